// `node dist/bench/scaling.js [MAX_WORKERS]`: how the sandbox path scales with cores (issue 16): episodes/s
// of the GCD and grid modules through runEpisodes on pools of 1, 2, 4 … workers up to the machine's cores,
// each ÷ plain Node on one core, interleaved in one run; writes bench/results/scaling.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../contract/paths.js';
import { SandboxPool } from '../sandbox/pool.js';
import { plainModule, plainRate, sandboxRate } from './episodes.js';
import { GCD_SOURCE, GRID_SOURCE } from './episode-modules.js';

const max = Number(process.argv[2] ?? availableParallelism());
const sizes = [1, 2, 4, 8, 16, 32].filter((n) => n <= max);
const modules = [
  { key: 'gcd', source: GCD_SOURCE, plain: await plainModule(GCD_SOURCE) },
  { key: 'gridPath', source: GRID_SOURCE, plain: await plainModule(GRID_SOURCE) },
];
const pools = sizes.map((workers) => new SandboxPool({ workers }));
const rates: Record<string, { plain: number[]; pools: number[][] }> = Object.fromEntries(
  modules.map((m) => [m.key, { plain: [], pools: sizes.map(() => []) }]),
);
try {
  for (let round = -1; round < 3; round++) {
    for (const m of modules) {
      const p = plainRate(m.plain);
      const r: number[] = [];
      for (const pool of pools) r.push(await sandboxRate(pool, m.source, m.plain.meta.levels));
      if (round < 0) continue; // warm-up
      const into = rates[m.key] as { plain: number[]; pools: number[][] };
      into.plain.push(p);
      r.forEach((v, i) => (into.pools[i] as number[]).push(v));
      process.stderr.write(
        `${m.key} round ${round}: plain ${Math.round(p)}/s, ` +
          `${sizes.map((n, i) => `${n}w ${Math.round(r[i] as number)}/s`).join(', ')}\n`,
      );
    }
  }
} finally {
  await Promise.all(pools.map((p) => p.close()));
}
const result = {
  cores: availableParallelism(),
  measuredAt: new Date().toISOString(),
  modules: Object.fromEntries(
    modules.map((m) => {
      const r = rates[m.key] as { plain: number[]; pools: number[][] };
      const plain = Math.max(...r.plain);
      return [
        m.key,
        {
          plainNodePerSec: Math.round(plain),
          workers: Object.fromEntries(
            sizes.map((n, i) => {
              const best = Math.max(...(r.pools[i] as number[]));
              return [n, { perSec: Math.round(best), ratio: Number((best / plain).toFixed(3)) }];
            }),
          ),
        },
      ];
    }),
  ),
};
const dir = join(PACKAGE_ROOT, 'bench', 'results');
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'scaling.json'), `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(result)}\n`);
