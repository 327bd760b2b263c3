// `sandbox.episodeLayers` (issue 16): where the µs of one episode go, layer by layer, for the two modules of
// `sandbox.episodesRatio`, measured side by side in one process: the module's own work in plain Node; plus the
// runtime's contract work (fresh instance per call, plain-JSON check, canonical instance text, the parsed copy
// verify gets, the result text) still in plain Node; that inside one hardened isolate (SES, one realm, no IPC);
// and the whole path through a pool of one worker. Every layer derives the rng states (SHA-256) as plain Node
// does. The isolate-alone figure bounds what any number of workers can reach on C cores: C × plain ÷ isolate.
import { availableParallelism } from 'node:os';
import { crossingArgs, prepareCalls } from '../sandbox/crossing.js';
import { factorySource } from '../sandbox/instance.js';
import { DEFAULT_LIMITS, type Call } from '../sandbox/protocol.js';
import { loadRealm, newHost, releaseRealm } from '../sandbox/realm.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { SandboxPool } from '../sandbox/pool.js';
import { GCD_SOURCE, GRID_SOURCE } from './episode-modules.js';
import { plainModule, plainRate, sandboxRate } from './episodes.js';
import type { BenchEntries } from './types.js';

const ITEMS = 20_000;

/** ITEMS plain episode calls of a module with `levels` levels. */
const calls = (levels: number): Call[] =>
  Array.from({ length: ITEMS }, (_, i) => ({ op: 'episode', seed: i, level: (i % levels) + 1 }));

/** The trampoline's begin() arguments for those calls as the worker packs them (rng states derived, SHA-256). */
function packedForIsolate(name: string, levels: number): unknown[] {
  return crossingArgs(prepareCalls(calls(levels), name));
}

/** The same, for the runtime in this process: the states as a plain Uint32Array instead of an isolate copy. */
function packedForNode(name: string, levels: number): unknown[] {
  const prepared = prepareCalls(calls(levels), name);
  const states = new Uint32Array(ITEMS * 4);
  prepared.forEach((p, k) => states.set(p.s, k * 4));
  return [`{"from":0,"levels":${JSON.stringify(prepared.map((p) => p.level))}}`, states];
}

const LIMITS_TEXT = JSON.stringify(DEFAULT_LIMITS);
/** Calls finished so far, from the trampoline's "cursor|count|[results]". */
const cursorOf = (chunk: string) => Number(chunk.slice(0, chunk.indexOf('|')));

interface Trampoline {
  begin(batch: unknown, limits: string, ...copies: unknown[]): unknown;
  next(sliceMs: number): string;
}

/**
 * Packs the calls (`pack`), then runs every episode through a trampoline in slices, as the worker does; µs per episode.
 */
function drive(api: Trampoline, pack: () => unknown[]): number {
  const start = performance.now();
  const [batch, ...copies] = pack();
  api.begin(batch, LIMITS_TEXT, ...copies);
  while (cursorOf(api.next(DEFAULT_LIMITS.sliceMs)) < ITEMS);
  return ((performance.now() - start) * 1000) / ITEMS;
}

/** The runtime in this process, unhardened, bound to the module and its factory of fresh instances. */
async function plainTrampoline(source: string): Promise<Trampoline> {
  const runtime = loadPlainRuntime() as unknown as { api: Trampoline & { bind(ns: unknown, factory: unknown): void } };
  const load = (text: string) =>
    import(`data:text/javascript,${encodeURIComponent(text)}`) as Promise<Record<string, unknown>>;
  runtime.api.bind(await load(source), (await load(factorySource(source))).default);
  return runtime.api;
}

interface Layers {
  plain: number[];
  runtime: number[];
  isolate: number[];
  pool: number[];
}

export async function benchEpisodeLayers(rounds = 5): Promise<BenchEntries> {
  const sources = { gcd: GCD_SOURCE, gridPath: GRID_SOURCE };
  const pool = new SandboxPool({ workers: 1 });
  const host = newHost(DEFAULT_LIMITS.memoryMb);
  const figures: Record<string, Record<string, number>> = {};
  try {
    for (const [key, source] of Object.entries(sources)) {
      const plain = await plainModule(source);
      const inProcess = await plainTrampoline(source);
      const realm = loadRealm(host, source, 5_000);
      const isolated: Trampoline = {
        begin: (batch, limits, ...copies) => realm.begin.applySync(undefined, [batch, limits, ...copies]),
        next: (sliceMs) => realm.next.applySync(undefined, [sliceMs]) as string,
      };
      const t: Layers = { plain: [], runtime: [], isolate: [], pool: [] };
      for (let round = -1; round < rounds; round++) {
        // Interleaved so machine noise hits every layer alike; the first round warms every JIT up.
        const p = 1e6 / plainRate(plain);
        const r = drive(inProcess, () => packedForNode(plain.meta.name, plain.meta.levels));
        const i = drive(isolated, () => packedForIsolate(plain.meta.name, plain.meta.levels));
        const w = 1e6 / (await sandboxRate(pool, source, plain.meta.levels));
        if (round < 0) continue;
        t.plain.push(p);
        t.runtime.push(r);
        t.isolate.push(i);
        t.pool.push(w);
      }
      releaseRealm(realm);
      const best = (xs: number[]) => Math.min(...xs);
      const [p, r, i, w] = [best(t.plain), best(t.runtime), best(t.isolate), best(t.pool)];
      figures[key] = {
        plainUs: round2(p),
        runtimeInNodeUs: round2(r),
        isolateUs: round2(i),
        oneWorkerPoolUs: round2(w),
        ceilingRatio: round2((availableParallelism() * p) / i),
      };
    }
  } finally {
    host.isolate.dispose();
    await pool.close();
  }
  const ceiling = Math.min(...Object.values(figures).map((f) => f.ceilingRatio as number));
  return {
    'sandbox.episodeLayers': {
      value: ceiling,
      unit: 'ratio',
      ...figures,
      items: ITEMS,
      cores: availableParallelism(),
      note:
        "µs per episode (best of interleaved rounds): plain Node; + the runtime's contract work in this " +
        'process; that in one hardened isolate without IPC; the whole path on a pool of 1 worker. value = the ' +
        'lower ceilingRatio = cores × plain ÷ isolate, the most episodesRatio can reach on this machine ' +
        'with zero host and IPC cost',
    },
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
