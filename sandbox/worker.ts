// A sandbox worker process: loads environment modules into hardened isolates (realm.ts) and runs batches
// of calls through the trampoline, streaming size-checked results to the supervisor. Guest code may abort
// or wedge this whole process; the supervisor then kills and replaces it.
import type { ProblemCode } from '../contract/codes.js';
import { jsonDepth } from './json.js';
import { guardAgainstOrphaning } from './orphan-guard.js';
import { unpackCalls } from './packed-calls.js';
import { maxChunkChars, type Call, type JobMessage, type LoadInfo, type WorkerMessage } from './protocol.js';
import { classify, GuestFailure } from './realm.js';
import { crossingArgs, prepareCalls } from './crossing.js';
import { cache, compile, dispose, entryFor } from './worker-cache.js';

// Messages are batched: one IPC message per small job, and at most every FLUSH_MS (or FLUSH_CHARS) on long
// ones, so the supervisor's deadline keeps being fed and results before a crash are still salvaged.
const FLUSH_MS = 50;
const FLUSH_CHARS = 4 << 20;
let outbox: WorkerMessage[] = [];
let outboxChars = 0;
let lastFlush = performance.now();
/** Whether a message went out since the job last let this process's event loop turn (see letWritesOut). */
let flushedInJob = false;

function send(message: WorkerMessage): void {
  outbox.push(message);
  if (message.type === 'chunk') outboxChars += message.text.length;
  if (message.type === 'done' || message.type === 'need-source' || outboxChars >= FLUSH_CHARS || performance.now() - lastFlush >= FLUSH_MS) flush();
}

function flush(): void {
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
async function letWritesOut(): Promise<void> {
  if (!flushedInJob) return;
  flushedInJob = false;
  await new Promise<void>((resolve) => setImmediate(resolve));
}

interface Chunk {
  /** Calls of this crossing finished so far. */
  cursor: number;
  /** Results in `text`. */
  count: number;
  text: string;
}

/** Reads the trampoline's "cursor|count|[results]", checking its size before anything is forwarded. */
function readChunk(raw: unknown, crossing: number, maxChars: number, maxDepth: number): Chunk {
  const text = typeof raw === 'string' ? raw : '';
  const a = text.indexOf('|');
  const b = a < 0 || a > 20 ? -1 : text.indexOf('|', a + 1);
  const cursor = Number(text.slice(0, a));
  const count = Number(text.slice(a + 1, b));
  if (b < 0 || b > 40 || !Number.isSafeInteger(cursor) || !Number.isSafeInteger(count) || cursor < 0 || cursor > crossing || count < 0 || count > cursor) {
    throw new GuestFailure('E_PROTOCOL', 'malformed trampoline chunk');
  }
  if (text.length > maxChars) throw new GuestFailure('E_PROTOCOL', `a chunk of ${text.length} characters from the runtime is over the limit of ${maxChars}`);
  const results = text.slice(b + 1);
  // Nesting is checked here, once, so the supervisor (results.ts) parses without scanning: every value in it
  // was checked to maxDepth by the runtime, and a result adds at most a few levels around one.
  if (jsonDepth(results, maxDepth + 8) > maxDepth + 8) throw new GuestFailure('E_PROTOCOL', `a chunk from the runtime is nested deeper than ${maxDepth + 8} levels`);
  return { cursor, count, text: results };
}

async function runJob(job: JobMessage, source: string): Promise<void> {
  flushedInJob = false; // a turn of the loop is owed only for what this job sends
  const cachedBefore = cache.has(job.hash) && !job.fresh;
  const entry = entryFor(job, source);
  send({ type: 'loaded', id: job.id, load: entry.load });
  // A fresh compile is where loads fail; report it at once so a later crash is not mistaken for one.
  if (!cachedBefore) flush();
  const total = job.calls.length;
  if (!entry.load.ok) {
    if (total > 0) send({ type: 'failed', id: job.id, from: 0, count: total, code: entry.load.code, message: entry.load.message, fn: 'load' });
    return;
  }
  const { limits } = job;
  const prepared = prepareCalls(job.calls, entry.name);
  const limitsText = JSON.stringify(limits);
  let position = 0;
  let failures = 0;
  let lastCode: ProblemCode = 'E_TIMEOUT';
  // After an isolate dies of memory, the calls of its crossing are retried one per crossing to find the culprit.
  let careful = false;
  const fail = (from: number, count: number, code: ProblemCode, message: string) => {
    send({ type: 'failed', id: job.id, from, count, code, message, fn: 'call' });
    failures += count;
  };
  while (position < total) {
    await letWritesOut();
    if (failures >= limits.maxFailuresPerJob) {
      fail(position, total - position, lastCode, `not run: ${failures} earlier calls of this batch already failed with ${lastCode} (the limit is ${limits.maxFailuresPerJob})`);
      break;
    }
    if (!entry.compiled || entry.compiled.realm.isolate.isDisposed) {
      const recompiled = compile(job.hash, entry.source, limits, entry.host);
      entry.host = recompiled.host;
      entry.compiled = recompiled.compiled;
      if (!entry.compiled) {
        const load = recompiled.load as Extract<LoadInfo, { ok: false }>;
        send({ type: 'failed', id: job.id, from: position, count: total - position, code: load.code, message: load.message, fn: 'load' });
        return;
      }
    }
    const compiled = entry.compiled;
    const { isolate } = compiled.realm;
    const crossingStart = position;
    const end = careful ? position + 1 : total;
    const crossing = end - crossingStart;
    const slice = prepared.slice(crossingStart, end);
    const maxChunk = maxChunkChars(slice, limits);
    let done = 0; // calls of this crossing whose results were forwarded
    try {
      const [batchText, ...copies] = crossingArgs(slice);
      compiled.realm.begin.applySync(undefined, [batchText, limitsText, ...copies], { timeout: limits.loadTimeoutMs });
      while (done < crossing) {
        const chunk = readChunk(compiled.realm.next.applySync(undefined, [limits.sliceMs], { timeout: limits.callTimeoutMs + limits.sliceMs }), crossing, maxChunk, limits.maxDepth);
        if (chunk.cursor <= done || chunk.count !== chunk.cursor - done) throw new GuestFailure('E_PROTOCOL', 'the runtime made no progress or lost results');
        forward(job.id, chunk);
        done = chunk.cursor;
        await letWritesOut();
      }
      position = end;
    } catch (error) {
      const failure = classify(error, isolate, 'the call');
      lastCode = failure.code;
      if (failure.code === 'E_PROTOCOL') {
        fail(crossingStart + done, crossing - done, 'E_PROTOCOL', failure.message);
        position = end;
        dispose(entry);
        continue;
      }
      if (failure.code === 'E_MEMORY' || isolate.isDisposed) {
        dispose(entry);
        position = crossingStart + done;
        if (!careful) {
          careful = true;
          continue; // retry from the first call whose result was not received
        }
        fail(position, 1, 'E_MEMORY', failure.message);
        position += 1;
        continue;
      }
      // A timeout leaves the isolate usable long enough to collect what finished before it.
      let inFlight = crossingStart + done;
      if (failure.code === 'E_TIMEOUT') {
        try {
          const chunk = readChunk(compiled.realm.collect.applySync(undefined, [], { timeout: 1_000 }), crossing, maxChunk, limits.maxDepth);
          forward(job.id, chunk);
          const received = done + chunk.count;
          if (chunk.cursor > received) {
            // Calls ran but their results were lost: the timeout hit promise jobs they left after next() returned.
            // Re-run them one per crossing to find which one; a lone call that loses its result is the culprit.
            dispose(entry);
            position = crossingStart + received;
            if (!careful) {
              careful = true;
              continue;
            }
            fail(position, chunk.cursor - received, 'E_TIMEOUT', 'work this call scheduled (promise jobs) ran past the wall-clock budget');
            position = crossingStart + chunk.cursor;
            continue;
          }
          inFlight = crossingStart + chunk.cursor;
        } catch {
          // nothing more to salvage from this crossing
        }
      }
      fail(inFlight, 1, failure.code, failure.message);
      position = inFlight + 1;
      dispose(entry);
    }
  }
}

function forward(id: number, chunk: Chunk): void {
  if (chunk.count > 0) send({ type: 'chunk', id, text: chunk.text });
}

async function onJob(received: JobMessage & { source?: string }): Promise<void> {
  const source = received.source ?? cache.get(received.hash)?.source;
  if (source === undefined) {
    send({ type: 'need-source', id: received.id });
    return;
  }
  try {
    await runJob(received.packed ? { ...received, calls: unpackCalls(received.packed) } : received, source);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    send({ type: 'failed', id: received.id, from: -1, count: 0, code: 'E_PROTOCOL', message: `sandbox worker fault: ${text}`, fn: 'worker' });
  }
  send({ type: 'done', id: received.id });
}

// Jobs run one after another: a job now yields between crossings (letWritesOut), so one must not start meanwhile.
let jobs = Promise.resolve();
process.on('message', (raw: unknown) => {
  const received = raw as JobMessage & { source?: string };
  if (received.type !== 'job') return;
  jobs = jobs.then(() => onJob(received));
});

// The supervisor closes the channel to let an idle worker leave; a wedged worker is killed by the guard.
process.on('disconnect', () => process.exit(0));
guardAgainstOrphaning();

send({ type: 'ready' });
flush();
