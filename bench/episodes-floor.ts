// `sandbox.episodeLayers` (issue 16): where the µs of one episode go, layer by layer, for the two modules of
// `sandbox.episodesRatio`, measured side by side in one process: the module's own work in plain Node; plus the
// runtime's contract work (fresh instance per call, plain-JSON check, canonical instance text, the parsed copy
// verify gets, the result text) still in plain Node; that inside one hardened isolate (SES, one realm, no IPC);
// and the whole path through a pool of one worker. Every layer derives the rng states (SHA-256) as plain Node
// does. The isolate-alone figure bounds what any number of workers can reach on C cores: C × plain ÷ isolate.
import ivm from 'isolated-vm';
import { availableParallelism } from 'node:os';
import { factorySource } from '../sandbox/instance.js';
import { DEFAULT_LIMITS } from '../sandbox/protocol.js';
import { loadRealm, newHost, releaseRealm } from '../sandbox/realm.js';
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { SandboxPool } from '../sandbox/pool.js';
import { GCD_SOURCE, GRID_SOURCE } from './episode-modules.js';
import { plainModule, plainRate, sandboxRate } from './episodes.js';
import type { BenchEntries } from './types.js';

const ITEMS = 20_000;

/** The trampoline's begin() arguments for ITEMS plain episodes of `name`, as the worker packs them. */
function packed(name: string, levels: number): { batch: string; states: Uint32Array } {
  const states = new Uint32Array(ITEMS * 4);
  const list: number[] = [];
  for (let i = 0; i < ITEMS; i++) {
    const level = (i % levels) + 1;
    states.set(deriveRngState(name, i, level), i * 4);
    list.push(level);
  }
  return { batch: `{"from":0,"levels":${JSON.stringify(list)}}`, states };
}

const LIMITS_TEXT = JSON.stringify(DEFAULT_LIMITS);
/** Calls finished so far, from the trampoline's "cursor|count|[results]". */
const cursorOf = (chunk: string) => Number(chunk.slice(0, chunk.indexOf('|')));

interface Trampoline {
  begin(batch: string, limits: string, states: unknown): unknown;
  next(sliceMs: number): string;
}

/** Derives and packs the rng states, then runs every episode through a trampoline in slices, as the worker does; µs per episode. */
function drive(api: Trampoline, name: string, levels: number, states: (s: Uint32Array) => unknown): number {
  const start = performance.now();
  const input = packed(name, levels);
  api.begin(input.batch, LIMITS_TEXT, states(input.states));
  while (cursorOf(api.next(DEFAULT_LIMITS.sliceMs)) < ITEMS);
  return ((performance.now() - start) * 1000) / ITEMS;
}

/** The runtime in this process, unhardened, bound to the module and its factory of fresh instances. */
async function plainTrampoline(source: string): Promise<Trampoline> {
  const runtime = loadPlainRuntime() as unknown as { api: Trampoline & { bind(ns: unknown, factory: unknown): void } };
  const load = (text: string) => import(`data:text/javascript,${encodeURIComponent(text)}`) as Promise<Record<string, unknown>>;
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
        begin: (batch, limits, states) => realm.begin.applySync(undefined, [batch, limits, states]),
        next: (sliceMs) => realm.next.applySync(undefined, [sliceMs]) as string,
      };
      const t: Layers = { plain: [], runtime: [], isolate: [], pool: [] };
      for (let round = -1; round < rounds; round++) {
        // Interleaved so machine noise hits every layer alike; the first round warms every JIT up.
        const p = 1e6 / plainRate(plain);
        const r = drive(inProcess, plain.meta.name, plain.meta.levels, (states) => states);
        const i = drive(isolated, plain.meta.name, plain.meta.levels, (states) => new ivm.ExternalCopy(states).copyInto({ release: true }));
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
      note: 'µs per episode (best of interleaved rounds): plain Node; + the runtime\'s contract work in this process; that in one hardened isolate without IPC; the whole path on a pool of 1 worker. value = the lower ceilingRatio = cores × plain ÷ isolate, the most episodesRatio can reach on this machine with zero host and IPC cost',
    },
  };
}

const round2 = (x: number) => Math.round(x * 100) / 100;
