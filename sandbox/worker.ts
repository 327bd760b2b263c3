// A sandbox worker process: loads environment modules into hardened isolates (realm.ts) and runs batches
// of calls through the trampoline, streaming size-checked results to the supervisor. Guest code may abort
// or wedge this whole process; the supervisor then kills and replaces it.
import type { ProblemCode } from '../contract/codes.js';
import { JsonLimitError, parseBoundedJson } from './json.js';
import { guardAgainstOrphaning } from './orphan-guard.js';
import { guestCode, maxChunkChars, VERIFIES_PER_CALL, type Call, type JobMessage, type LoadInfo, type SandboxLimits, type WorkerMessage } from './protocol.js';
import { classify, GuestFailure, loadRealm, newHost, releaseRealm, type Host, type Realm } from './realm.js';
import { deriveRngState } from './rng.js';

interface WorkerOptions {
  maxCached: number;
}
const options: WorkerOptions = { maxCached: 32, ...JSON.parse(process.env.ENVFORGE_WORKER_OPTIONS ?? '{}') };

/** A loaded candidate: its realm (one module lifetime) and how many calls of each guest function it has served. */
interface Compiled {
  realm: Realm;
  generate: number;
  solve: number;
  verify: number;
}
interface CacheEntry {
  source: string;
  load: LoadInfo;
  name: string;
  /** The isolate its realms live in, one after another, until it has hosted MAX_REALMS_PER_ISOLATE. */
  host: Host | null;
  compiled: Compiled | null;
}

/** Bounds what realms released into one isolate can leave behind (garbage, fragmentation) before it is replaced. */
const MAX_REALMS_PER_ISOLATE = 64;

const cache = new Map<string, CacheEntry>();

// Messages are batched: one IPC message per small job, and at most every FLUSH_MS (or FLUSH_CHARS) on long
// ones, so the supervisor's deadline keeps being fed and results before a crash are still salvaged.
const FLUSH_MS = 50;
const FLUSH_CHARS = 4 << 20;
let outbox: WorkerMessage[] = [];
let outboxChars = 0;
let lastFlush = performance.now();

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
  process.send?.(messages.length === 1 ? messages[0] : { type: 'batch', messages });
}

/** Disposes the entry's isolate: after a failure, nothing of it is reused. */
function dispose(entry: CacheEntry): void {
  if (entry.host && !entry.host.isolate.isDisposed) entry.host.isolate.dispose();
  entry.host = null;
  entry.compiled = null;
}

/** Ends the current realm's lifetime; the next call gets a fresh realm in the same isolate. */
function retire(entry: CacheEntry): void {
  if (entry.compiled) releaseRealm(entry.compiled.realm);
  entry.compiled = null;
}

/** Output of the runtime, parsed with the same size and depth limits as any guest value. */
function parseRuntime(text: unknown, limits: SandboxLimits, what: string): unknown {
  if (typeof text !== 'string') throw new GuestFailure('E_PROTOCOL', `the runtime returned no text for ${what}`);
  try {
    return parseBoundedJson(text, { maxChars: limits.maxValueChars + 1_024, maxDepth: limits.maxDepth + 2 });
  } catch (error) {
    if (error instanceof JsonLimitError) throw new GuestFailure('E_TOO_LARGE', `${what}: ${error.message}`);
    throw new GuestFailure('E_PROTOCOL', `the runtime returned malformed JSON for ${what}`);
  }
}

/** meta and the export list, read through the trampoline and checked here before anything crosses IPC. */
function describe(realm: Realm, hash: string, limits: SandboxLimits): { load: LoadInfo; name: string } {
  const call = (ref: Realm['meta']) => ref.applySync(undefined, [], { timeout: limits.callTimeoutMs }) as unknown;
  const meta = parseRuntime(call(realm.meta), limits, 'meta') as { ok?: unknown; value?: unknown; code?: unknown; message?: unknown };
  const list = parseRuntime(call(realm.exportsList), limits, 'the export list');
  const exports: Record<string, string> = {};
  for (const item of Array.isArray(list) ? list.slice(0, 100) : []) {
    if (typeof item !== 'string') continue;
    const at = item.lastIndexOf(':');
    exports[item.slice(0, Math.min(at, 100))] = item.slice(at + 1);
  }
  if (meta.ok !== true) {
    const message = typeof meta.message === 'string' ? meta.message.slice(0, limits.maxMessageChars) : '';
    return { load: { ok: true, hash, meta: undefined, metaError: { code: guestCode(meta.code), message: `reading meta: ${message}` }, exports }, name: '' };
  }
  const value = meta.value as { name?: unknown } | null;
  const name = value && typeof value === 'object' && typeof value.name === 'string' ? value.name : '';
  return { load: { ok: true, hash, meta: meta.value, exports }, name };
}

/** Loads the module into a fresh realm, in the given host while it may take one more, else in a new isolate. */
function compile(hash: string, source: string, limits: SandboxLimits, reuse: Host | null): { host: Host | null; compiled: Compiled | null; load: LoadInfo; name: string } {
  if (source.length > limits.maxSourceChars) {
    return { host: reuse, compiled: null, name: '', load: { ok: false, hash, code: 'E_TOO_LARGE', message: `the source has ${source.length} characters, over the limit of ${limits.maxSourceChars}` } };
  }
  let host: Host | null = null;
  let realm: Realm | undefined;
  try {
    const usable = reuse && !reuse.isolate.isDisposed && reuse.realms < MAX_REALMS_PER_ISOLATE;
    if (reuse && !usable && !reuse.isolate.isDisposed) reuse.isolate.dispose();
    host = usable ? reuse : newHost(limits.memoryMb);
    realm = loadRealm(host, source, limits.loadTimeoutMs);
    const { load, name } = describe(realm, hash, limits);
    return { host, compiled: { realm, generate: 0, solve: 0, verify: 0 }, load, name };
  } catch (error) {
    const failure = realm ? classify(error, realm.isolate, 'loading the module') : (error as GuestFailure);
    if (host && !host.isolate.isDisposed) host.isolate.dispose();
    const code = failure instanceof GuestFailure ? failure.code : 'E_PROTOCOL';
    return { host: null, compiled: null, name: '', load: { ok: false, hash, code, message: failure.message } };
  }
}

function entryFor(job: JobMessage, source: string): CacheEntry {
  let entry = cache.get(job.hash);
  if (entry && job.fresh) retire(entry); // a fresh realm: module state starts over
  // A load that failed stays failed (it is not retried per job); a realm is made again only when asked for.
  if (!entry || job.fresh) {
    const { host, compiled, load, name } = compile(job.hash, source, job.limits, entry?.host ?? null);
    entry = { source, load, name, host, compiled };
  }
  // LRU: the most recently used entry is last.
  cache.delete(job.hash);
  cache.set(job.hash, entry);
  while (cache.size > options.maxCached) {
    const [oldest, old] = cache.entries().next().value as [string, CacheEntry];
    dispose(old);
    cache.delete(oldest);
  }
  return entry;
}

interface Prepared {
  id: number;
  s: readonly number[];
  level: number;
  responses: string[];
  keepInstance: boolean;
  keep?: true;
  sameAs?: number;
}

/** The calls as the runtime reads them: numbered by their index in the job, with the rng state derived here. */
function prepareCalls(calls: Call[], name: string): Prepared[] {
  return calls.map((call, id) => ({
    id,
    s: deriveRngState(name, call.seed, call.level),
    level: call.level,
    responses: call.responses ?? [],
    keepInstance: call.keepInstance !== false,
    ...(call.keep ? { keep: true as const } : {}),
    ...(call.sameAs !== undefined ? { sameAs: call.sameAs } : {}),
  }));
}

/**
 * End (exclusive) of the calls from `from` that the isolate can still serve within its lifetime
 * (protocol.ts: isolateCalls), charging them to it. A fresh isolate always takes at least one call.
 */
function reserve(compiled: Compiled, calls: Prepared[], from: number, to: number, budget: number): number {
  let end = from;
  while (end < to) {
    const verify = compiled.verify + 1 + (calls[end] as Prepared).responses.length;
    const fresh = compiled.generate === 0;
    if (!fresh && (compiled.generate + 1 > budget || verify > budget * VERIFIES_PER_CALL)) break;
    compiled.generate++;
    compiled.solve++;
    compiled.verify = verify;
    end++;
  }
  return end;
}

interface Chunk {
  /** Calls of this crossing finished so far. */
  cursor: number;
  /** Results in `text`. */
  count: number;
  text: string;
}

/** Reads the trampoline's "cursor|count|[results]", checking its size before anything is forwarded. */
function readChunk(raw: unknown, crossing: number, maxChars: number): Chunk {
  const text = typeof raw === 'string' ? raw : '';
  const a = text.indexOf('|');
  const b = a < 0 || a > 20 ? -1 : text.indexOf('|', a + 1);
  const cursor = Number(text.slice(0, a));
  const count = Number(text.slice(a + 1, b));
  if (b < 0 || b > 40 || !Number.isSafeInteger(cursor) || !Number.isSafeInteger(count) || cursor < 0 || cursor > crossing || count < 0 || count > cursor) {
    throw new GuestFailure('E_PROTOCOL', 'malformed trampoline chunk');
  }
  if (text.length > maxChars) throw new GuestFailure('E_PROTOCOL', `a chunk of ${text.length} characters from the runtime is over the limit of ${maxChars}`);
  return { cursor, count, text: text.slice(b + 1) };
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
    if (failures >= limits.maxFailuresPerJob) {
      fail(position, total - position, lastCode, `not run: ${failures} earlier calls of this batch already failed with ${lastCode} (the limit is ${limits.maxFailuresPerJob})`);
      break;
    }
    if (entry.compiled && reserve({ ...entry.compiled }, prepared, position, position + 1, limits.isolateCalls) === position) retire(entry); // its lifetime is spent
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
    const end = reserve(compiled, prepared, position, careful ? position + 1 : total, limits.isolateCalls);
    const crossing = end - crossingStart;
    const slice = prepared.slice(crossingStart, end);
    const maxChunk = maxChunkChars(slice, limits);
    let done = 0; // calls of this crossing whose results were forwarded
    try {
      compiled.realm.begin.applySync(undefined, [JSON.stringify(slice), limitsText], { timeout: limits.loadTimeoutMs });
      while (done < crossing) {
        const chunk = readChunk(compiled.realm.next.applySync(undefined, [limits.sliceMs], { timeout: limits.callTimeoutMs + limits.sliceMs }), crossing, maxChunk);
        if (chunk.cursor <= done || chunk.count !== chunk.cursor - done) throw new GuestFailure('E_PROTOCOL', 'the runtime made no progress or lost results');
        forward(job.id, chunk);
        done = chunk.cursor;
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
          const chunk = readChunk(compiled.realm.collect.applySync(undefined, [], { timeout: 1_000 }), crossing, maxChunk);
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

// The supervisor closes the channel to let an idle worker leave; a wedged worker is killed by the guard.
process.on('disconnect', () => process.exit(0));
guardAgainstOrphaning();

send({ type: 'ready' });
flush();
