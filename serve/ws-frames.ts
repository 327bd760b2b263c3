// What a WebSocket client's bytes hold on the server while they arrive, read from the raw stream (RFC 6455 5.2): the
// bytes of the unfinished message's frames and of a control frame in flight, and how many data frames ws keeps as
// objects of their own until the message is whole (V27-3: each costs far more than its few bytes on the wire).

/**
 * What ws holds for one data frame of an unfinished message besides its bytes: a Buffer view, its slot and the
 * receiver's bookkeeping (measured ~230 bytes a fragment: tests/fixtures/redteam-v27 V27-3).
 */
export const FRAME_HELD = 256;
/** Frames one message may come in (ws's maxFragments; past it 1008): honest clients send a message in a few. */
export const MAX_FRAGMENTS = 1_024;

/** Follows a client's frames byte by byte; `owed` and `held` say what is in flight after each chunk. */
export class FrameReader {
  /** Data frames of the unfinished message, the one arriving included (0 once a final one is whole). */
  held = 0;
  /** Wire bytes of the unfinished message's frames (headers included). */
  private message = 0;
  /** Wire bytes of the control frame arriving (a ping or pong is whole on its own: it may sit between fragments). */
  private control = 0;
  private readonly head: number[] = [];
  private payload = 0;
  private final = false;
  private data = false;

  /** Bytes read and not yet a whole message or control frame: the header being read included. */
  get owed(): number {
    return this.message + this.control + this.head.length;
  }

  /** What the server holds of them: their bytes, and FRAME_HELD for each data frame ws keeps. */
  get cost(): number {
    return this.owed + FRAME_HELD * this.held;
  }

  push(chunk: Buffer): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.payload > 0) {
        const n = Math.min(this.payload, chunk.length - i);
        this.payload -= n;
        i += n;
        if (this.data) this.message += n;
        else this.control += n;
        if (this.payload === 0) this.whole();
        continue;
      }
      this.head.push(chunk[i++] as number);
      if (this.head.length >= 2 && this.head.length === this.headLength()) this.started();
    }
  }

  /** The header's length once its second byte is known: 2, the length's extension and the mask key. */
  private headLength(): number {
    const second = this.head[1] as number;
    const length = second & 0x7f;
    return 2 + (length === 126 ? 2 : length === 127 ? 8 : 0) + (second & 0x80 ? 4 : 0);
  }

  private started(): void {
    const [first, second] = this.head as [number, number];
    const length = second & 0x7f;
    let payload = length;
    if (length === 126) payload = (this.head[2] as number) * 256 + (this.head[3] as number);
    if (length === 127) payload = this.head.slice(2, 10).reduce((n, b) => n * 256 + b, 0);
    this.final = (first & 0x80) !== 0;
    this.data = (first & 0x0f) < 0x08;
    if (this.data) {
      this.held++;
      this.message += this.head.length;
    } else this.control = this.head.length;
    this.head.length = 0;
    this.payload = payload;
    if (payload === 0) this.whole();
  }

  private whole(): void {
    if (!this.data) this.control = 0;
    else if (this.final) [this.message, this.held] = [0, 0];
  }
}
