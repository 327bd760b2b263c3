// The worker's cache of loaded modules: one isolate per module, realms made in it one after another, kept
// in LRU order within a memory budget, so a job never runs beside more cached memory than the budget allows.
import { JsonLimitError, parseBoundedJson } from './json.js';
import { guestCode, type JobMessage, type LoadInfo, type SandboxLimits } from './protocol.js';
import { classify, GuestFailure, loadRealm, newHost, releaseRealm, type Host, type Realm } from './realm.js';
import { readTrips } from './trips.js';

interface WorkerOptions {
  maxCached: number;
  /** Memory (V8 heap and external) the cached isolates other than the running job's may hold, in MB. */
  cacheMb: number;
}
const options: WorkerOptions = {
  maxCached: 32,
  cacheMb: 320,
  ...JSON.parse(process.env.ENVFORGE_WORKER_OPTIONS ?? '{}'),
};

/** A loaded candidate: its realm, in which every call gets a fresh module instance. */
export interface Compiled {
  realm: Realm;
}
export interface CacheEntry {
  source: string;
  load: LoadInfo;
  name: string;
  /** The isolate its realms live in, one after another, until it has hosted MAX_REALMS_PER_ISOLATE. */
  host: Host | null;
  compiled: Compiled | null;
  /** The lifetime every job its realm ran asked for (JobMessage.lifetime), null once another job ran in it. */
  lifetime: number | null;
  /** Calls its realm was given, every job's (a realm remade within a job still counts them all). */
  served: number;
}

/** Bounds what realms released into one isolate can leave behind (garbage, fragmentation) before it is replaced. */
const MAX_REALMS_PER_ISOLATE = 64;

export const cache = new Map<string, CacheEntry>();

/** Disposes the entry's isolate: after a failure, nothing of it is reused. */
export function dispose(entry: CacheEntry): void {
  if (entry.host && !entry.host.isolate.isDisposed) entry.host.isolate.dispose();
  entry.host = null;
  entry.compiled = null;
}

/** Ends the current realm; the next call gets a fresh realm in the same isolate. */
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
  const meta = parseRuntime(call(realm.meta), limits, 'meta') as {
    ok?: unknown;
    value?: unknown;
    code?: unknown;
    message?: unknown;
  };
  const list = parseRuntime(call(realm.exportsList), limits, 'the export list');
  const exports: Record<string, string> = {};
  for (const item of Array.isArray(list) ? list.slice(0, 100) : []) {
    if (typeof item !== 'string') continue;
    const at = item.lastIndexOf(':');
    exports[item.slice(0, Math.min(at, 100))] = item.slice(at + 1);
  }
  if (meta.ok !== true) {
    const message = typeof meta.message === 'string' ? meta.message.slice(0, limits.maxMessageChars) : '';
    return {
      load: {
        ok: true,
        hash,
        meta: undefined,
        metaError: { code: guestCode(meta.code), message: `reading meta: ${message}` },
        exports,
      },
      name: '',
    };
  }
  const value = meta.value as { name?: unknown } | null;
  const name = value && typeof value === 'object' && typeof value.name === 'string' ? value.name : '';
  return { load: { ok: true, hash, meta: meta.value, exports }, name };
}

/** Loads the module into a fresh realm, in the given host while it may take one more, else in a new isolate. */
export function compile(
  hash: string,
  source: string,
  limits: SandboxLimits,
  reuse: Host | null,
): { host: Host | null; compiled: Compiled | null; load: LoadInfo; name: string } {
  if (source.length > limits.maxSourceChars) {
    return {
      host: reuse,
      compiled: null,
      name: '',
      load: {
        ok: false,
        hash,
        code: 'E_TOO_LARGE',
        message: `the source has ${source.length} characters, over the limit of ${limits.maxSourceChars}`,
      },
    };
  }
  let host: Host | null = null;
  let realm: Realm | undefined;
  try {
    // A new realm goes into a new isolate when the old one still holds much memory (a big table its released
    // realm left for the collector), so the new realm's own allocations never compete with it.
    const usable =
      reuse &&
      !reuse.isolate.isDisposed &&
      reuse.realms < MAX_REALMS_PER_ISOLATE &&
      isolateMb(reuse) < limits.memoryMb / 4;
    if (reuse && !usable && !reuse.isolate.isDisposed) reuse.isolate.dispose();
    host = usable ? reuse : newHost(limits.memoryMb);
    realm = loadRealm(host, source, limits.loadTimeoutMs);
    // Nothing here ages with the realm, so nothing counts its calls: every call gets a fresh instance (the runtime
    // refuses a realm without a factory).
    const { load, name } = describe(realm, hash, limits);
    // The top level and meta's getters ran: a trip there (caught or not) fails the load.
    const trips = readTrips(realm.trips.applySync(undefined, [], { timeout: limits.callTimeoutMs }));
    if (trips.count > 0)
      throw new GuestFailure(
        'E_ESCAPE_ATTEMPT',
        `loading the module reached for ${trips.what.join('; ')}: a capability outside the environment ` +
          `contract (the attempt counts even when the module catches the refusal)`,
      );
    if (load.ok) Object.assign(load, { instancing: 'episode' as const, loadMs: Math.round(realm.loadMs * 100) / 100 });
    return { host, compiled: { realm }, load, name };
  } catch (error) {
    const failure = realm ? classify(error, realm.isolate, 'loading the module') : (error as GuestFailure);
    if (host && !host.isolate.isDisposed) host.isolate.dispose();
    const code = failure instanceof GuestFailure ? failure.code : 'E_PROTOCOL';
    return { host: null, compiled: null, name: '', load: { ok: false, hash, code, message: failure.message } };
  }
}

/**
 * Whether a fresh job with a lifetime may run in the entry's realm instead of a new one: a realm that ran only jobs
 * of the same lifetime, with room left for this job's calls. Safe because a realm keeps nothing of a job: every guest
 * call gets a fresh module instance, the global object and intrinsics are frozen, the runtime starts every batch over
 * (begin) and the worker reads the tripwires' log after every crossing (docs/sandbox.md).
 */
function packs(entry: CacheEntry, job: JobMessage): boolean {
  return (
    job.fresh &&
    job.lifetime !== undefined &&
    entry.lifetime === job.lifetime &&
    entry.compiled !== null &&
    !entry.compiled.realm.isolate.isDisposed &&
    entry.served + job.calls.length <= job.lifetime
  );
}

export function entryFor(job: JobMessage, source: string): CacheEntry {
  const key = job.hash;
  let entry = cache.get(key);
  const packed = entry !== undefined && packs(entry, job);
  if (entry && job.fresh && !packed) retire(entry); // a fresh realm: module state starts over
  // A load that failed stays failed (it is not retried per job); a realm is made again only when asked for.
  if (!entry || (job.fresh && !packed)) {
    const { host, compiled, load, name } = compile(job.hash, source, job.limits, entry?.host ?? null);
    entry = { source, load, name, host, compiled, lifetime: job.lifetime ?? null, served: 0 };
  }
  entry.served += job.calls.length;
  if (entry.lifetime !== (job.lifetime ?? null)) entry.lifetime = null;
  // LRU: the most recently used entry is last.
  cache.delete(key);
  cache.set(key, entry);
  evict(entry);
  return entry;
}

/** V8 heap and external memory of a host's isolate, in MB (0 once disposed). */
function isolateMb(host: Host | null): number {
  if (!host || host.isolate.isDisposed) return 0;
  const stats = host.isolate.getHeapStatisticsSync();
  return (stats.total_heap_size + stats.externally_allocated_size) / 2 ** 20;
}

/**
 * Drops least recently used entries (never `current`) until at most maxCached remain and the others hold
 * at most cacheMb: the running job then has its own memory limit to itself, and an RSS kill is its own.
 */
function evict(current: CacheEntry): void {
  let others = 0;
  for (const e of cache.values()) if (e !== current) others += isolateMb(e.host);
  for (const [key, old] of cache) {
    if (cache.size <= options.maxCached && others <= options.cacheMb) break;
    if (old === current) continue;
    others -= isolateMb(old.host);
    dispose(old);
    cache.delete(key);
  }
}
