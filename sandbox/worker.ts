// A sandbox worker process: loads environment modules into hardened isolates (realm.ts) and runs batches
// of calls through the trampoline, streaming size-checked results to the supervisor. Guest code may abort
// or wedge this whole process; the supervisor then kills and replaces it.
import type { ProblemCode } from '../contract/codes.js';
import { jsonDepth } from './json.js';
import { guardAgainstOrphaning } from './orphan-guard.js';
import { unpackCalls, withTools } from './packed-calls.js';
import { maxChunkChars, type JobMessage, type JobsMessage, type LoadInfo, type WorkerMessage } from './protocol.js';
import { runStepped } from './left-behind.js';
import { classify, GuestFailure, warmSetup, watchSetup, type Realm } from './realm.js';
import { crossingArgs, prepareCalls, type Prepared } from './crossing.js';
import { cache, compile, dispose, entryFor, type Compiled } from './worker-cache.js';
import { readTrips, tripMessage, type Trips } from './trips.js';

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
  if (!entry.load.ok && entry.load.code === 'E_ESCAPE_ATTEMPT') send({ type: 'tripped', id: job.id, what: [entry.load.message] });
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
  // After a crossing failed past the calls it had finished, the calls up to here are re-run one per crossing to
  // find the culprit: those whose results were lost (the calls after them go back to full crossings), or after
  // an isolate died of memory, the rest of the crossing.
  let carefulUntil = 0;
  const fail = (from: number, count: number, code: ProblemCode, message: string, fn = 'call') => {
    send({ type: 'failed', id: job.id, from, count, code, message, fn });
    failures += count;
  };
  // A chunk's results go on unless a tripwire fired after its calls returned (work they left behind): then they fail.
  const deliver = (chunk: Chunk, from: number, trips: Trips | null) => {
    if (!trips || trips.late === 0) return forward(job.id, chunk);
    lastCode = 'E_ESCAPE_ATTEMPT';
    fail(from, chunk.count, 'E_ESCAPE_ATTEMPT', tripMessage(trips.what));
  };
  const endRealm = () => {
    drainTrips(job, entry.compiled?.realm);
    dispose(entry);
  };
  const realm = (): Realm => {
    if (!entry.compiled || entry.compiled.realm.isolate.isDisposed) {
      const recompiled = compile(job.hash, entry.source, limits, entry.host);
      entry.host = recompiled.host;
      entry.compiled = recompiled.compiled;
      if (!entry.compiled) throw new LoadFailed(recompiled.load as Extract<LoadInfo, { ok: false }>);
    }
    return entry.compiled.realm;
  };
  while (position < total) {
    await letWritesOut();
    if (failures >= limits.maxFailuresPerJob) {
      fail(position, total - position, lastCode, `not run: ${failures} earlier calls of this batch already failed with ${lastCode} (the limit is ${limits.maxFailuresPerJob})`);
      break;
    }
    try {
      realm();
    } catch (error) {
      if (!(error instanceof LoadFailed)) throw error;
      fail(position, total - position, error.load.code, error.load.message, 'load');
      return;
    }
    const compiled = entry.compiled as Compiled;
    const { isolate } = compiled.realm;
    const crossingStart = position;
    const careful = position < carefulUntil;
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
        deliver(chunk, crossingStart + done, drainTrips(job, compiled.realm));
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
        endRealm();
        continue;
      }
      if (failure.code === 'E_MEMORY' || isolate.isDisposed) {
        endRealm();
        position = crossingStart + done;
        if (!careful) {
          carefulUntil = end;
          continue; // retry from the first call whose result was not received
        }
        // A lone episode: which of its functions (or the work one left behind) exhausted the memory.
        if ('op' in (prepared[position] as Prepared)) fail(position, 1, 'E_MEMORY', failure.message);
        else failures += await chargeLeftBehind(job, prepared[position] as Prepared, failure, maxChunk, limitsText, limits.maxFailuresPerJob - failures, realm, endRealm);
        position += 1;
        continue;
      }
      // A timeout (or a promise job that threw) leaves the isolate usable long enough to collect what finished before it.
      let inFlight = crossingStart + done;
      if (failure.code === 'E_TIMEOUT' || failure.code === 'E_THROWN') {
        let lost: Chunk | null = null;
        try {
          const chunk = readChunk(compiled.realm.collect.applySync(undefined, [], { timeout: 1_000 }), crossing, maxChunk, limits.maxDepth);
          deliver(chunk, crossingStart + done, drainTrips(job, compiled.realm));
          if (chunk.cursor > done + chunk.count) lost = { ...chunk, count: done + chunk.count };
          inFlight = crossingStart + chunk.cursor;
        } catch {
          // nothing more to salvage from this crossing
        }
        if (lost) {
          // Calls ran but their results were lost: the failure hit work they left behind (promise jobs) after
          // next() returned. Re-run them one per crossing; a lone call that loses its result is the culprit.
          endRealm();
          position = crossingStart + lost.count;
          if (!careful && lost.cursor - lost.count > 1) {
            carefulUntil = crossingStart + lost.cursor;
            continue;
          }
          const charged = await chargeLeftBehind(job, prepared[position] as Prepared, failure, maxChunk, limitsText, limits.maxFailuresPerJob - failures, realm, endRealm);
          failures += charged;
          position += 1;
          continue;
        }
      }
      fail(inFlight, 1, failure.code, failure.message);
      position = inFlight + 1;
      endRealm();
    }
  }
}

class LoadFailed extends Error {
  constructor(readonly load: Extract<LoadInfo, { ok: false }>) {
    super(load.message);
  }
}

/**
 * The lone call `call` failed after it returned (`failure`): an episode is re-run one guest function per
 * crossing (left-behind.ts) so the function that left the work is charged and the others keep their results;
 * a rollout is charged whole, and so is an episode whose search charges no function (the failure stands:
 * red-team rt6, a module that fails only while its functions share a crossing). Sends the outcome; returns
 * the failures it charged.
 */
async function chargeLeftBehind(job: JobMessage, call: Prepared, failure: GuestFailure, maxChunk: number, limitsText: string, allowance: number, realm: () => Realm, end: () => void): Promise<number> {
  const whole = (code: ProblemCode, message: string, fn: string) => {
    send({ type: 'failed', id: job.id, from: call.id, count: 1, code, message, fn });
    return 1;
  };
  const leftBehind = `work this call left behind (promise jobs) ${failure.code === 'E_TIMEOUT' ? 'ran past the wall-clock budget' : `failed after it returned: ${failure.message}`}`;
  if ('op' in call) return whole(failure.code, leftBehind, 'call');
  // Each fresh realm starts a new attempt of up to one call's budget: the supervisor hears from the worker between them.
  const attempt = () => {
    send({ type: 'progress', id: job.id });
    flush();
    return realm();
  };
  try {
    const outcome = runStepped(attempt, end, JSON.stringify([call]), limitsText, job.limits, call.responses.length, Math.max(1, allowance));
    const charged = Math.min(outcome.charged.length, Math.max(1, allowance));
    if ('failed' in outcome) return whole(outcome.failed.code, outcome.failed.message, outcome.failed.fn) + charged;
    // The call failed when it ran alone and whole: that is its own failure. The search only names the function;
    // one that finds none (the module behaves when its functions run apart) leaves the failure with the call.
    if (outcome.charged.length === 0) return whole(failure.code, `${leftBehind}; run one function at a time it did not, so the failure is the whole call's`, 'call');
    const chunk = readChunk(outcome.raw, 1, maxChunk, job.limits.maxDepth);
    if (outcome.charged.length > 0) send({ type: 'charged', id: job.id, call: call.id, verdicts: outcome.charged });
    forward(job.id, chunk);
    return charged;
  } catch (error) {
    end();
    if (error instanceof LoadFailed) return whole(error.load.code, error.load.message, 'load');
    const lost = error instanceof GuestFailure ? error : new GuestFailure('E_PROTOCOL', String(error));
    return whole(lost.code, lost.message, 'call');
  } finally {
    await letWritesOut();
  }
}

/** What the realm's tripwires recorded since the last read (tripwires.js), told to the supervisor, which keeps it per module. */
function drainTrips(job: JobMessage, realm: Realm | undefined): Trips | null {
  if (!realm || realm.isolate.isDisposed) return null;
  let trips: Trips;
  try {
    trips = readTrips(realm.trips.applySync(undefined, [], { timeout: 1_000 }));
  } catch {
    return null; // the isolate is past reading: what it recorded is lost with it
  }
  if (trips.count === 0) return null;
  send({ type: 'tripped', id: job.id, what: trips.what });
  return trips;
}

function forward(id: number, chunk: Chunk): void {
  if (chunk.count > 0) send({ type: 'chunk', id, text: chunk.text });
}

/** The job running now, which a setup of the sandbox's own is reported to. */
let current: number | null = null;
watchSetup((maxMs) => {
  if (current === null) return;
  send(maxMs === null ? { type: 'progress', id: current } : { type: 'progress', id: current, setupMs: maxMs });
  flush();
});

/** Jobs waiting for the source they asked for (need-source), by id: the supervisor sends the job again with it. */
const resent = new Map<number, (job: JobMessage) => void>();

async function onJob(job: JobMessage): Promise<void> {
  let received = job;
  let source = received.source ?? cache.get(received.hash)?.source;
  if (source === undefined) {
    // Jobs sent after this one wait: they run in the order they were sent.
    const again = new Promise<JobMessage>((resolve) => resent.set(received.id, resolve));
    send({ type: 'need-source', id: received.id });
    received = await again;
    source = received.source;
    if (source === undefined) {
      send({ type: 'failed', id: received.id, from: -1, count: 0, code: 'E_PROTOCOL', message: 'sandbox worker fault: the job came back without its source', fn: 'worker' });
      return send({ type: 'done', id: received.id });
    }
  }
  current = received.id;
  try {
    await runJob({ ...received, calls: received.packed ? unpackCalls(received.packed) : withTools(received.calls, received.tools) }, source);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    send({ type: 'failed', id: received.id, from: -1, count: 0, code: 'E_PROTOCOL', message: `sandbox worker fault: ${text}`, fn: 'worker' });
  }
  current = null;
  send({ type: 'done', id: received.id });
}

// Jobs run one after another: a job now yields between crossings (letWritesOut), so one must not start meanwhile.
let jobs = Promise.resolve();
process.on('message', (raw: unknown) => {
  const received = raw as JobMessage | JobsMessage;
  const each = received.type === 'jobs' ? received.jobs : received.type === 'job' ? [received] : [];
  for (const job of each) {
    const waiting = resent.get(job.id);
    resent.delete(job.id);
    if (waiting) waiting(job);
    else jobs = jobs.then(() => onJob(job));
  }
});

// The supervisor closes the channel to let an idle worker leave; a wedged worker is killed by the guard.
process.on('disconnect', () => process.exit(0));
guardAgainstOrphaning();

// SES's code cache is built before the worker says it is ready: the supervisor's deadlines start with a job.
warmSetup();
send({ type: 'ready' });
flush();
