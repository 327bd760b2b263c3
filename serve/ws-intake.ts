// What an OpenEnv WebSocket connection holds of frames still arriving, charged to its client as the bytes come (V25-4):
// ws keeps a frame's payload until the frame is whole, so every byte read from the socket is charged to the client's
// share of the body budget until it has become a message (charged from then on by openenv-ws.ts), a ping or a pong;
// past the share the connection closes 1013 (and is dropped at once), bytes that stop coming (or trickle) are
// reclaimable for another client as a body's are (body-budget.ts), and a message still arriving past the body deadline
// closes its connection 1008 (V26-3: an HTTP body's --body-timeout, from the message's first byte, never restarted
// before it is whole). What is held is charged in the form it is held (V27-3): the bytes of the frames in flight and a
// fixed cost for each data frame ws keeps of an unfinished message, read from the stream itself (ws-frames.ts).
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { type BodyBudget, MIN_PROGRESS_BYTES } from './body-budget.js';
import { FrameReader } from './ws-frames.js';

/** WebSocket's close code for "try again later". */
export const TRY_AGAIN_LATER = 1013;
/** WebSocket's close code for a policy violation (a message slower than the body deadline). */
export const POLICY_VIOLATION = 1008;

/** A message's size in bytes, as ws delivers it (one Buffer, fragments, or an ArrayBuffer). */
export const byteLength = (data: RawData) =>
  Array.isArray(data)
    ? data.reduce((n, b) => n + b.length, 0)
    : data instanceof ArrayBuffer
      ? data.byteLength
      : data.length;

/**
 * Charges what `raw` (the upgraded socket under `ws`) delivers to `principal` in `budget` until it is a whole message,
 * ping or pong. Its listener goes before ws's own, so a message's bytes leave this hold before openenv-ws.ts charges
 * the message. Bytes still owed after `deadlineMs` (more than MIN_PROGRESS_BYTES of them) close the connection.
 */
export function chargeArrivals(
  raw: Duplex,
  ws: WebSocket,
  budget: BodyBudget,
  principal: string,
  deadlineMs = Number.POSITIVE_INFINITY,
): void {
  const frames = new FrameReader();
  const hold = budget.reserve(principal, 0, { drop: () => ws.terminate() });
  let deadline: NodeJS.Timeout | undefined;
  const shut = (code: number, reason: string) => {
    clearTimeout(deadline);
    hold.release();
    raw.pause(); // nothing more is read into memory
    ws.close(code, reason.slice(0, 120));
    setImmediate(() => ws.terminate()); // the close frame is written: what ws buffered goes with the socket
  };
  raw.prependListener('data', (chunk: Buffer) => {
    frames.push(chunk);
    if (hold.released) return;
    try {
      const due = frames.cost;
      if (due > hold.bytes) hold.grow(due - hold.bytes);
      else hold.shrink(hold.bytes - due);
      hold.moved(chunk.length);
    } catch (error) {
      shut(TRY_AGAIN_LATER, `frames arriving: ${(error as Error).message}`);
      return;
    }
    // The clock of what arrives starts once more than MIN_PROGRESS_BYTES are owed and stops only when nothing is
    // (every message and control frame whole): a ping between a message's fragments does not restart it.
    if (frames.owed === 0) {
      clearTimeout(deadline);
      deadline = undefined;
    } else if (frames.owed > MIN_PROGRESS_BYTES && deadline === undefined && Number.isFinite(deadlineMs)) {
      const seconds = Math.round(deadlineMs / 1_000);
      deadline = setTimeout(() => shut(POLICY_VIOLATION, `a message still arriving after ${seconds} s`), deadlineMs);
      deadline.unref();
    }
  });
  ws.once('close', () => (clearTimeout(deadline), hold.release()));
}
