// A sandbox worker process: compiles environment modules into isolated-vm isolates and runs batches of
// calls through the trampoline, streaming results to the supervisor. Guest code may abort or wedge this
// whole process; the supervisor then kills and replaces it.
import ivm from 'isolated-vm';
import type { Code } from '../contract/codes.js';
import type { Call, JobMessage, LoadInfo, SandboxLimits, WorkerMessage } from './protocol.js';
import { deriveRngState } from './rng.js';
import { SETUP_SCRIPT } from './runtime.js';

interface WorkerOptions {
  maxCached: number;
  maxCallsPerIsolate: number;
}
const options: WorkerOptions = { maxCached: 32, maxCallsPerIsolate: 50_000, ...JSON.parse(process.env.ENVFORGE_WORKER_OPTIONS ?? '{}') };

/** A compiled candidate: one isolate, one context, references to the trampoline's functions. */
interface Compiled {
  isolate: ivm.Isolate;
  begin: ivm.Reference;
  next: ivm.Reference;
  collect: ivm.Reference;
  calls: number;
}
interface CacheEntry {
  source: string;
  load: LoadInfo;
  name: string;
  compiled: Compiled | null;
}

const cache = new Map<string, CacheEntry>();

// Messages are batched: one IPC message per small job, and at most every FLUSH_MS on long ones, so the
// supervisor's deadline keeps being fed and results before a crash are still salvaged.
const FLUSH_MS = 50;
let outbox: WorkerMessage[] = [];
let lastFlush = performance.now();

function send(message: WorkerMessage): void {
  outbox.push(message);
  if (message.type === 'done' || message.type === 'need-source' || performance.now() - lastFlush >= FLUSH_MS) flush();
}

function flush(): void {
  if (outbox.length === 0) return;
  const messages = outbox;
  outbox = [];
  lastFlush = performance.now();
  process.send?.(messages.length === 1 ? messages[0] : { type: 'batch', messages });
}

class GuestFailure extends Error {
  constructor(readonly code: Code, message: string) {
    super(message);
  }
}

const TIMEOUT_MESSAGE = 'Script execution timed out.';

/** Maps an error thrown by isolated-vm while running guest code to a stable code. */
function classify(error: unknown, isolate: ivm.Isolate, what: string): GuestFailure {
  if (error instanceof GuestFailure) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isolate.isDisposed || /memory limit/i.test(message)) return new GuestFailure('E_MEMORY', `${what} exceeded the isolate memory limit`);
  if (message === TIMEOUT_MESSAGE) return new GuestFailure('E_TIMEOUT', `${what} ran past its wall-clock budget`);
  if (/already bound/.test(message)) return new GuestFailure('E_TAMPER', message);
  const name = error instanceof Error && error.name !== 'Error' ? `${error.name}: ` : '';
  return new GuestFailure('E_THROWN', `${what} threw ${name}${message}`.slice(0, 2000));
}

function dispose(compiled: Compiled | null): void {
  if (compiled && !compiled.isolate.isDisposed) compiled.isolate.dispose();
}

const START_MARKER = `__envforge.markEvaluationStart();`;
const BINDER = `import 'envforge:start'; import * as guest from 'envforge:guest'; __envforge.bind(guest);`;

function compile(hash: string, source: string, limits: SandboxLimits): { compiled: Compiled | null; load: LoadInfo; name: string } {
  if (source.length > limits.maxSourceChars) {
    return { compiled: null, name: '', load: { ok: false, hash, code: 'E_TOO_LARGE', message: `the source has ${source.length} characters, over the limit of ${limits.maxSourceChars}` } };
  }
  const isolate = new ivm.Isolate({ memoryLimit: limits.memoryMb });
  try {
    const context = isolate.createContextSync();
    context.evalSync(SETUP_SCRIPT, { timeout: limits.loadTimeoutMs });
    let guest: ivm.Module;
    try {
      guest = isolate.compileModuleSync(source, { filename: 'environment.js' });
    } catch (error) {
      throw new GuestFailure('E_SYNTAX', `the module does not compile: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (guest.dependencySpecifiers.length > 0) {
      const names = guest.dependencySpecifiers.map((s) => JSON.stringify(s)).join(', ');
      throw new GuestFailure('E_IMPORT', `the module imports ${names}; environments must be self-contained (no import statements)`);
    }
    guest.instantiateSync(context, () => {
      throw new Error('imports are not allowed');
    });
    const start = isolate.compileModuleSync(START_MARKER, { filename: 'envforge-start.js' });
    start.instantiateSync(context, () => {
      throw new Error('the start marker imports nothing');
    });
    const binder = isolate.compileModuleSync(BINDER, { filename: 'envforge-binder.js' });
    binder.instantiateSync(context, (specifier) => (specifier === 'envforge:start' ? start : guest));
    try {
      binder.evaluateSync({ timeout: limits.loadTimeoutMs });
    } catch (error) {
      throw classify(error, isolate, 'evaluating the module');
    }
    if (context.evalSync('__envforge.bound()') !== true || context.evalSync('__envforge.boundAfterAwait()') === true) {
      throw new GuestFailure('E_ASYNC', 'the module uses top-level await: environments must evaluate synchronously');
    }
    const ref = (name: string) => context.evalSync(`__envforge.${name}`, { reference: true }) as ivm.Reference;
    const metaText = String(ref('meta').applySync(undefined, [], { timeout: limits.callTimeoutMs }));
    const exportsText = String(ref('exportsList').applySync(undefined, [], { timeout: limits.callTimeoutMs }));
    const metaResult = parseBounded(metaText, limits) as { ok: boolean; value?: unknown; code?: Code; message?: string };
    const exportList = parseBounded(exportsText, limits) as string[];
    const exports: Record<string, string> = {};
    for (const item of exportList) {
      const at = item.lastIndexOf(':');
      exports[item.slice(0, at)] = item.slice(at + 1);
    }
    const meta = metaResult.ok ? metaResult.value : undefined;
    const name = meta && typeof meta === 'object' && typeof (meta as { name?: unknown }).name === 'string' ? (meta as { name: string }).name : '';
    const load: LoadInfo = metaResult.ok
      ? { ok: true, hash, meta, exports }
      : { ok: true, hash, meta: undefined, metaError: { code: metaResult.code ?? 'E_THROWN', message: `reading meta: ${metaResult.message ?? ''}` }, exports };
    const compiled: Compiled = { isolate, begin: ref('begin'), next: ref('next'), collect: ref('collect'), calls: 0 };
    return { compiled, load, name };
  } catch (error) {
    const failure = classify(error, isolate, 'loading the module');
    if (!isolate.isDisposed) isolate.dispose();
    return { compiled: null, name: '', load: { ok: false, hash, code: failure.code, message: failure.message } };
  }
}

function parseBounded(text: string, limits: SandboxLimits): unknown {
  if (text.length > limits.maxValueChars * 4) throw new GuestFailure('E_TOO_LARGE', 'trampoline output over the size limit');
  try {
    return JSON.parse(text);
  } catch {
    throw new GuestFailure('E_PROTOCOL', 'the trampoline returned malformed JSON');
  }
}

function entryFor(job: JobMessage, source: string): CacheEntry {
  let entry = cache.get(job.hash);
  if (entry && job.fresh) {
    dispose(entry.compiled);
    entry = undefined;
  }
  if (!entry) {
    const { compiled, load, name } = compile(job.hash, source, job.limits);
    entry = { source, load, name, compiled };
  }
  // LRU: the most recently used entry is last.
  cache.delete(job.hash);
  cache.set(job.hash, entry);
  while (cache.size > options.maxCached) {
    const [oldest, old] = cache.entries().next().value as [string, CacheEntry];
    dispose(old.compiled);
    cache.delete(oldest);
  }
  return entry;
}

/** Adds the rng state to every call that generates, so the isolate needs no hashing of its own. */
function prepareCalls(calls: Call[], name: string): unknown[] {
  return calls.map((call) => (call.op === 'generate' || call.op === 'episode' ? { ...call, s: deriveRngState(name, call.seed, call.level) } : call));
}

function runJob(job: JobMessage, source: string): void {
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
  const prepared = prepareCalls(job.calls, entry.name);
  const limitsText = JSON.stringify(job.limits);
  let position = 0;
  let failures = 0;
  let lastCode: Code = 'E_TIMEOUT';
  // After an isolate dies of memory, the calls of its crossing are retried one per crossing to find the culprit.
  let careful = false;
  const fail = (from: number, count: number, code: Code, message: string) => {
    send({ type: 'failed', id: job.id, from, count, code, message, fn: 'call' });
    failures += count;
  };
  while (position < total) {
    if (failures >= job.limits.maxFailuresPerJob) {
      fail(position, total - position, lastCode, `not run: ${failures} earlier calls of this batch already failed with ${lastCode} (the limit is ${job.limits.maxFailuresPerJob})`);
      break;
    }
    if (!entry.compiled || entry.compiled.isolate.isDisposed) {
      const recompiled = compile(job.hash, entry.source, job.limits);
      entry.compiled = recompiled.compiled;
      if (!entry.compiled) {
        const load = recompiled.load as Extract<LoadInfo, { ok: false }>;
        send({ type: 'failed', id: job.id, from: position, count: total - position, code: load.code, message: load.message, fn: 'load' });
        return;
      }
    }
    const compiled = entry.compiled;
    const crossingStart = position;
    const end = careful ? position + 1 : total;
    let done = 0; // results of this crossing already forwarded
    try {
      compiled.begin.applySync(undefined, [JSON.stringify(prepared.slice(position, end)), limitsText], { timeout: job.limits.loadTimeoutMs });
      while (crossingStart + done < end) {
        const chunk = readChunk(String(compiled.next.applySync(undefined, [job.limits.sliceMs], { timeout: job.limits.callTimeoutMs + job.limits.sliceMs })));
        forward(job.id, chunk);
        done = chunk.cursor;
      }
      position = crossingStart + done;
      compiled.calls += end - crossingStart;
    } catch (error) {
      const failure = classify(error, compiled.isolate, 'the call');
      lastCode = failure.code;
      if (failure.code === 'E_MEMORY' || compiled.isolate.isDisposed) {
        dispose(compiled);
        entry.compiled = null;
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
          const chunk = readChunk(String(compiled.collect.applySync(undefined, [], { timeout: 1_000 })));
          forward(job.id, chunk);
          const received = done + chunk.count;
          if (chunk.cursor > received) {
            // Calls ran but their results were lost: the timeout hit promise jobs they left after next() returned.
            // Re-run them one per crossing to find which one; a lone call that loses its result is the culprit.
            dispose(compiled);
            entry.compiled = null;
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
      dispose(compiled);
      entry.compiled = null;
    }
  }
  if (entry.compiled && entry.compiled.calls >= options.maxCallsPerIsolate) {
    dispose(entry.compiled);
    entry.compiled = null;
  }
}


interface Chunk {
  /** Calls of this crossing finished so far. */
  cursor: number;
  /** Results in `text`. */
  count: number;
  text: string;
}

/** Reads the trampoline's "cursor|count|[results]". */
function readChunk(raw: string): Chunk {
  const a = raw.indexOf('|');
  const b = raw.indexOf('|', a + 1);
  const cursor = Number(raw.slice(0, a));
  const count = Number(raw.slice(a + 1, b));
  if (a < 0 || b < 0 || !Number.isSafeInteger(cursor) || !Number.isSafeInteger(count)) throw new GuestFailure('E_PROTOCOL', 'malformed trampoline chunk');
  return { cursor, count, text: raw.slice(b + 1) };
}

function forward(id: number, chunk: Chunk): void {
  if (chunk.count > 0) send({ type: 'chunk', id, text: chunk.text });
}

process.on('message', (raw: unknown) => {
  const message = raw as JobMessage & { source?: string };
  if (message.type !== 'job') return;
  let source = message.source;
  if (source === undefined) {
    const cached = cache.get(message.hash);
    if (!cached) {
      send({ type: 'need-source', id: message.id });
      return;
    }
    source = cached.source;
  }
  try {
    runJob(message, source);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    send({ type: 'failed', id: message.id, from: -1, count: 0, code: 'E_PROTOCOL', message: `sandbox worker fault: ${text}`, fn: 'worker' });
  }
  send({ type: 'done', id: message.id });
});

// The supervisor closes the channel to let an idle worker leave.
process.on('disconnect', () => process.exit(0));

send({ type: 'ready' });
flush();
