// What an OpenEnv WebSocket connection holds of frames still arriving, charged to its client as the bytes come (V25-4):
// ws keeps a frame's payload until the frame is whole, so every byte read from the socket is charged to the client's
// share of the body budget until it has become a message (charged from then on by openenv-ws.ts), a ping or a pong;
// past the share the connection closes 1013 (and is dropped at once), bytes that stop coming (or trickle) are
// reclaimable for another client as a body's are (body-budget.ts), and a message still arriving past the body deadline
// closes its connection 1008 (V26-3: an HTTP body's --body-timeout, from the message's first byte).
import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';
import { type BodyBudget, MIN_PROGRESS_BYTES } from './body-budget.js';

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
 * The bytes a client's frame of `payload` bytes takes on the wire besides it: two, the length's extension, and the
 * mask key every client frame carries (RFC 6455 5.2). A message sent in several fragments is counted as one frame, so
 * its other frames' few bytes stay charged to its client while the connection lasts.
 */
export const frameOverhead = (payload: number) => 2 + 4 + (payload > 65_535 ? 8 : payload > 125 ? 2 : 0);

/**
 * Charges the bytes `raw` (the upgraded socket under `ws`) delivers to `principal` in `budget` until ws has made them a
 * message, a ping or a pong. Call before serveConnection, so a message's bytes leave this hold before its own is made.
 * A message whose bytes have been arriving for `deadlineMs` (more than a few: see `arriving`) closes its connection.
 */
export function chargeArrivals(
  raw: Duplex,
  ws: WebSocket,
  budget: BodyBudget,
  principal: string,
  deadlineMs = Number.POSITIVE_INFINITY,
): void {
  // Bytes read and not yet a message, ping or pong; below 0 for a moment where ws emits a message before this hears of
  // the chunk that made it.
  let owed = 0;
  const hold = budget.reserve(principal, 0, { drop: () => ws.terminate() });
  const settle = () => {
    const due = Math.max(0, owed);
    if (due > hold.bytes) hold.grow(due - hold.bytes);
    else hold.shrink(hold.bytes - due);
  };
  let deadline: NodeJS.Timeout | undefined;
  const shut = (code: number, reason: string) => {
    clearTimeout(deadline);
    hold.release();
    raw.pause(); // nothing more is read into memory
    ws.close(code, reason.slice(0, 120));
    setImmediate(() => ws.terminate()); // the close frame is written: what ws buffered goes with the socket
  };
  // The clock of the message arriving starts with its first chunk and stops when it (or a ping, a pong) is whole. Owed
  // bytes under MIN_PROGRESS_BYTES start none: a fragmented message's other frame headers stay owed (frameOverhead).
  const arriving = () => {
    if (owed <= MIN_PROGRESS_BYTES || deadline !== undefined || !Number.isFinite(deadlineMs)) return;
    const seconds = Math.round(deadlineMs / 1_000);
    deadline = setTimeout(() => shut(POLICY_VIOLATION, `a message still arriving after ${seconds} s`), deadlineMs);
    deadline.unref();
  };
  raw.on('data', (chunk: Buffer) => {
    owed += chunk.length;
    if (hold.released) return;
    try {
      settle();
      hold.moved(chunk.length);
      arriving();
    } catch (error) {
      shut(TRY_AGAIN_LATER, `frames arriving: ${(error as Error).message}`);
    }
  });
  const consumed = (payload: number) => {
    owed -= payload + frameOverhead(payload);
    clearTimeout(deadline);
    deadline = undefined;
    settle(); // never more than held: no refusal
  };
  ws.on('message', (data) => consumed(byteLength(data)));
  ws.on('ping', (data) => consumed(data.length));
  ws.on('pong', (data) => consumed(data.length));
  ws.once('close', () => (clearTimeout(deadline), hold.release()));
}
