// The bytes of HTTP answers the service holds until the kernel has them, charged to their client (V22-2): an answer is
// the client's from its serialisation until it is flushed or its connection closes, under the same share and budget
// as request bodies (body-budget.ts), so a client that asks for large answers and does not read them is refused more
// work (503 before it) instead of holding unbounded memory. Unread answers are bounded in time too (V24-1: Node's
// request and header timeouts end when the request has arrived): an answer not flushed by its send deadline has its
// connection closed; and while unread it is the client's to lose (the service owes it nothing more), so when the
// service's total is full another client's body or answer reclaims it from the client holding the most, but only
// once its reading has stalled: an answer the kernel keeps taking is being read, and is never cut (V25-1).
import type { Socket } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { BodyBudget, Hold } from './body-budget.js';
import { clientAddress } from './client-address.js';
import { ServeError } from './options.js';

/** The bytes of a payload as onSend sees it: a string or a Buffer (a stream is written with back-pressure: 0). */
function sizeOf(payload: unknown): number {
  if (typeof payload === 'string') return Buffer.byteLength(payload);
  return Buffer.isBuffer(payload) ? payload.length : 0;
}

/** The principal an answer is charged to: its client's, or its address where its client was refused (a 401). */
const principalOf = (request: FastifyRequest) => request.envforgeClient?.principal ?? clientAddress(request.ip);

const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;

/** The milliseconds an answer of `bytes` may take to be read: `sendTimeoutMs`, plus one second per MiB. */
export const sendDeadlineMs = (sendTimeoutMs: number, bytes: number) =>
  sendTimeoutMs + Math.ceil(bytes / 2 ** 20) * 1_000;

/**
 * The progress of an answer written to `socket`: look() calls `hold.moved()` when the kernel took bytes of it since
 * the last look (the bytes libuv still queues for the socket went down), as the budget does before it would reclaim
 * the hold and as a timer does every `everyMs` (so progress is dated near when it came). The first look is taken once
 * the answer is written (after this turn of the loop: a large one takes a while to encode), and starts its transfer;
 * what the kernel's buffers take at once is no reading. Where the queue cannot be read the answer never moves after.
 */
function readingOf(socket: Socket | null, hold: () => Hold | undefined, everyMs: number) {
  const queued = () => (socket as { _handle?: { writeQueueSize?: unknown } } | null)?._handle?.writeQueueSize;
  let last: number | undefined;
  const look = () => {
    const now = queued();
    if (typeof now !== 'number') return;
    if (last !== undefined && now < last) hold()?.moved();
    last = now;
  };
  let timer: NodeJS.Timeout | undefined;
  const first = setImmediate(() => {
    look();
    hold()?.moved();
    // An answer the kernel took whole at once is flushed now: only one still queued is watched.
    if (everyMs > 0 && last !== undefined && last > 0) timer = setInterval(look, everyMs).unref();
  });
  return {
    look,
    stop: () => {
      clearImmediate(first);
      clearInterval(timer);
    },
  };
}

/** The 503 of a client whose answers not yet read fill its share (or of an answer that does not fit beside them). */
function unread(held: number, share: number, answer?: number): ServeError {
  return new ServeError(
    503,
    'E_OVERLOADED',
    `this client's answers not yet read hold ${mb(held)} of its share of ${mb(share)}` +
      (answer === undefined
        ? ''
        : `, and this answer of ${mb(answer)} does not fit beside them (or in the service's)`) +
      ': read its answers before asking for more, or ask for smaller ones',
  );
}

/** The error answer of a refused request or answer, its connection closed (what it held goes with it). */
function refusal(reply: FastifyReply, error: ServeError): string {
  reply.code(error.status).header('retry-after', '1').header('connection', 'close');
  reply.type('application/json; charset=utf-8');
  return JSON.stringify({ error: { code: error.code, message: error.message } });
}

/**
 * Charges every HTTP answer to its client in `budget` until it is flushed (`finish`) or its connection closes. A
 * client's first unflushed answer is bounded only by the total (one answer may be larger than a share); past that, an
 * answer over the client's share is replaced by a 503, and a request from a client whose unflushed answers already
 * fill its share is refused 503 before any work. An answer still unflushed at its deadline (`deadlineMs`) has
 * its connection closed; an unflushed answer stays reclaimable (body-budget.ts: the client holding the most loses it).
 */
export function registerAnswerBudget(
  app: FastifyInstance,
  budget: BodyBudget,
  /** The milliseconds an answer of `bytes` may stay unflushed before its connection is closed. */
  deadlineMs: (bytes: number) => number,
): void {
  /** Unflushed answers and their bytes, by principal. */
  const pending = new Map<string, { answers: number; bytes: number }>();
  const of = (principal: string) => pending.get(principal) ?? { answers: 0, bytes: 0 };
  app.addHook('preHandler', async (request, reply) => {
    if (reply.sent) return;
    const principal = principalOf(request);
    const held = of(principal);
    if (held.answers > 0 && held.bytes >= budget.clientBytes) {
      reply.header('connection', 'close');
      throw unread(held.bytes, budget.clientBytes);
    }
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const bytes = sizeOf(payload);
    if (bytes === 0) return payload;
    const principal = principalOf(request);
    const held = of(principal);
    let hold: Hold;
    const reading = readingOf(reply.raw.socket, () => hold, budget.stallMs / 4);
    try {
      hold = budget.reserve(
        principal,
        bytes,
        { drop: () => reply.raw.destroy(), look: reading.look },
        held.answers > 0,
      );
    } catch (error) {
      reading.stop();
      if (!(error instanceof ServeError)) throw error;
      return refusal(reply, unread(held.bytes, budget.clientBytes, bytes));
    }
    // Not marked arrived: the client owes the reading, so the answer is its to lose once its reading stalls.
    pending.set(principal, { answers: held.answers + 1, bytes: held.bytes + bytes });
    const deadline = setTimeout(() => reply.raw.destroy(), deadlineMs(bytes));
    deadline.unref();
    let settled = false;
    const release = () => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      reading.stop();
      hold.release();
      const now = of(principal);
      if (now.answers <= 1) pending.delete(principal);
      else pending.set(principal, { answers: now.answers - 1, bytes: now.bytes - bytes });
    };
    reply.raw.once('finish', release);
    reply.raw.once('close', release);
    return payload;
  });
}
