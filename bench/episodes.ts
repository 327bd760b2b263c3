// `sandbox.episodesRatio` (issue 16): episodes/s of the path users run (runEpisodes on the default pool:
// generate → solve → verify(reference), batched, split over the workers) ÷ the same module in plain Node on
// one core, for a cheap module (GCD) and a heavier one (grid search), measured side by side in one run.
import { availableParallelism } from 'node:os';
import { runEpisodes } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime, type PlainRng } from '../sandbox/runtime.js';
import { GCD_SOURCE, GRID_SOURCE } from './episode-modules.js';
import type { BenchEntries } from './types.js';

export interface PlainModule {
  meta: { name: string; levels: number };
  generate(rng: PlainRng, level: number): unknown;
  solve(instance: unknown): string;
  verify(instance: unknown, response: string): unknown;
}

const ITEMS = 20_000;
const requests = (levels: number) => Array.from({ length: ITEMS }, (_, i) => ({ seed: i, level: (i % levels) + 1 }));

export async function plainModule(source: string): Promise<PlainModule> {
  (globalThis as { kit?: unknown }).kit ??= loadPlainRuntime().kit;
  return (await import(`data:text/javascript,${encodeURIComponent(source)}`)) as PlainModule;
}

/** Plain Node, this process, one core: the same items, rng states derived the same way. */
export function plainRate(module: PlainModule): number {
  const runtime = loadPlainRuntime();
  const start = performance.now();
  for (const { seed, level } of requests(module.meta.levels)) {
    const instance = module.generate(runtime.makeRng(...deriveRngState(module.meta.name, seed, level)), level);
    if (module.verify(instance, module.solve(instance)) !== 1)
      throw new Error(`${module.meta.name}: the reference does not score 1 in plain Node`);
  }
  return ITEMS / ((performance.now() - start) / 1000);
}

export async function sandboxRate(pool: SandboxPool, source: string, levels: number): Promise<number> {
  const start = performance.now();
  const run = await runEpisodes(pool, source, requests(levels), { parallel: true });
  const rate = ITEMS / ((performance.now() - start) / 1000);
  if (!run.episodes.every((e) => e.ok && e.referenceVerdict.ok && e.referenceVerdict.score === 1))
    throw new Error('an episode failed in the sandbox benchmark');
  return rate;
}

const best = (xs: number[]) => Math.max(...xs);

export async function benchEpisodes(rounds = 5): Promise<BenchEntries> {
  const modules = [
    { key: 'gcd', source: GCD_SOURCE, plain: await plainModule(GCD_SOURCE) },
    { key: 'gridPath', source: GRID_SOURCE, plain: await plainModule(GRID_SOURCE) },
  ];
  const one = new SandboxPool({ workers: 1 });
  const two = new SandboxPool({ workers: 2 });
  const rates = new Map<string, { plain: number[]; one: number[]; two: number[] }>(
    modules.map((m) => [m.key, { plain: [], one: [], two: [] }]),
  );
  try {
    for (let round = -2; round < rounds; round++) {
      // Interleaved, so machine noise hits every path alike; the first two rounds warm every JIT up.
      for (const m of modules) {
        const r = rates.get(m.key) as { plain: number[]; one: number[]; two: number[] };
        const p = plainRate(m.plain);
        const a = await sandboxRate(one, m.source, m.plain.meta.levels);
        const b = await sandboxRate(two, m.source, m.plain.meta.levels);
        if (round < 0) continue;
        r.plain.push(p);
        r.one.push(a);
        r.two.push(b);
      }
    }
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
  const figures = Object.fromEntries(
    modules.map((m) => {
      const r = rates.get(m.key) as { plain: number[]; one: number[]; two: number[] };
      const plain = best(r.plain);
      return [
        m.key,
        {
          plainNodePerSec: Math.round(plain),
          oneWorkerPerSec: Math.round(best(r.one)),
          twoWorkersPerSec: Math.round(best(r.two)),
          oneWorkerRatio: best(r.one) / plain,
          twoWorkerRatio: best(r.two) / plain,
        },
      ];
    }),
  ) as Record<string, { twoWorkerRatio: number }>;
  return {
    'sandbox.episodesRatio': {
      value: Math.min(...Object.values(figures).map((f) => f.twoWorkerRatio)),
      unit: 'ratio',
      ...figures,
      items: ITEMS,
      cores: availableParallelism(),
      note:
        'runEpisodes on a pool of 2 (and 1) workers, batched and split, vs plain Node on one core; value = the ' +
        "lower of the two modules' 2-worker ratios. Best of interleaved rounds. No 16-core machine was " +
        'available: 1- and 2-worker figures only.',
    },
  };
}
