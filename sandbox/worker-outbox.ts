// The sandbox worker's messages to its supervisor: an outbox that batches them, the turn of the event loop
// owed after a flush so queued writes go out, and the trampoline's chunks of results, size-checked and forwarded.
import { jsonDepth } from './json.js';
import type { WorkerMessage } from './protocol.js';
import { GuestFailure } from './realm.js';

// Messages are batched: one IPC message per small job, and at most every FLUSH_MS (or FLUSH_CHARS) on long
// ones, so the supervisor's deadline keeps being fed and results before a crash are still salvaged.
const FLUSH_MS = 50;
const FLUSH_CHARS = 4 << 20;
let outbox: WorkerMessage[] = [];
let outboxChars = 0;
let lastFlush = performance.now();
/** Whether a message went out since the job last let this process's event loop turn (see letWritesOut). */
let flushedInJob = false;

export function send(message: WorkerMessage): void {
  outbox.push(message);
  if (message.type === 'chunk') outboxChars += message.text.length;
  if (
    message.type === 'done' ||
    message.type === 'need-source' ||
    outboxChars >= FLUSH_CHARS ||
    performance.now() - lastFlush >= FLUSH_MS
  )
    flush();
}

export function flush(): void {
  if (outbox.length === 0) return;
  const messages = outbox;
  outbox = [];
  outboxChars = 0;
  lastFlush = performance.now();
  flushedInJob = true;
  process.send?.(messages.length === 1 ? messages[0] : { type: 'batch', messages });
}

/**
 * Lets the event loop turn once after a flush. A message the pipe cannot take at once waits in this
 * process's write queue, and every later one queues behind it, until the loop turns: without this, a
 * long job whose supervisor was slow to read for a moment went silent until it ended and was killed
 * at the silence deadline (a false E_TIMEOUT; tests/sandbox-stall.test.ts).
 */
export async function letWritesOut(): Promise<void> {
  if (!flushedInJob) return;
  flushedInJob = false;
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A job starts owing no turn of the loop: one is owed only for what it sends (see letWritesOut). */
export function beginJobWrites(): void {
  flushedInJob = false;
}

export interface Chunk {
  /** Calls of this crossing finished so far. */
  cursor: number;
  /** Results in `text`. */
  count: number;
  text: string;
}

/** Reads the trampoline's "cursor|count|[results]", checking its size before anything is forwarded. */
export function readChunk(raw: unknown, crossing: number, maxChars: number, maxDepth: number): Chunk {
  const text = typeof raw === 'string' ? raw : '';
  const a = text.indexOf('|');
  const b = a < 0 || a > 20 ? -1 : text.indexOf('|', a + 1);
  const cursor = Number(text.slice(0, a));
  const count = Number(text.slice(a + 1, b));
  if (
    b < 0 ||
    b > 40 ||
    !Number.isSafeInteger(cursor) ||
    !Number.isSafeInteger(count) ||
    cursor < 0 ||
    cursor > crossing ||
    count < 0 ||
    count > cursor
  ) {
    throw new GuestFailure('E_PROTOCOL', 'malformed trampoline chunk');
  }
  if (text.length > maxChars)
    throw new GuestFailure(
      'E_PROTOCOL',
      `a chunk of ${text.length} characters from the runtime is over the limit of ${maxChars}`,
    );
  const results = text.slice(b + 1);
  // Nesting is checked here, once, so the supervisor (results.ts) parses without scanning: every value in it
  // was checked to maxDepth by the runtime, and a result adds at most a few levels around one.
  if (jsonDepth(results, maxDepth + 8) > maxDepth + 8)
    throw new GuestFailure('E_PROTOCOL', `a chunk from the runtime is nested deeper than ${maxDepth + 8} levels`);
  return { cursor, count, text: results };
}
export function forward(id: number, chunk: Chunk): void {
  if (chunk.count > 0) send({ type: 'chunk', id, text: chunk.text });
}
