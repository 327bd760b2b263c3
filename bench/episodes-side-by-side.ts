// `node dist/bench/episodes-side-by-side.js BASE_DIST [ROUNDS]` (issue 16): the users' path (runEpisodes on a
// pool of 1 and 2 workers) of this build and of another build's dist/, in one process, rounds interleaved,
// for the two modules of `sandbox.episodesRatio`. Besides episodes/s ÷ plain Node it reports CPU time per
// episode (supervisor and workers, from /proc; and the supervisor's alone), which a machine loaded by others
// disturbs far less than wall time.
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runEpisodes as ownRunEpisodes } from '../sandbox/episodes.js';
import { SandboxPool as OwnPool } from '../sandbox/pool.js';
import { GCD_SOURCE, GRID_SOURCE } from './episode-modules.js';
import { processCpuMs } from './proc-stats.js';
import { plainModule, plainRate } from './episodes.js';
import { baseDistAndRounds, median } from './episodes-args.js';

const ITEMS = 20_000;
const WORKERS = [1, 2];
type Pool = Pick<OwnPool, 'run' | 'close' | 'workerPids'>;
interface Side {
  runEpisodes: typeof ownRunEpisodes;
  pools: Map<number, Pool>;
}

/** CPU time used so far by this process (the supervisor), in µs. */
function ownCpuUs(): number {
  const own = process.cpuUsage();
  return own.user + own.system;
}

/**
 * CPU time used so far by this process and the pool's workers, in µs (a worker that has just exited: lost to this
 * round).
 */
const cpuUs = (pool: Pool): number =>
  pool.workerPids().reduce((a, pid) => a + processCpuMs(pid) * 1_000, 0) + ownCpuUs();

async function side(dist: string | null): Promise<Side> {
  const load = async <T>(file: string): Promise<T> =>
    (await import(pathToFileURL(resolve(dist as string, file)).href)) as T;
  const runEpisodes = dist
    ? (await load<{ runEpisodes: typeof ownRunEpisodes }>('sandbox/episodes.js')).runEpisodes
    : ownRunEpisodes;
  const Pool = dist ? (await load<{ SandboxPool: typeof OwnPool }>('sandbox/pool.js')).SandboxPool : OwnPool;
  return { runEpisodes, pools: new Map(WORKERS.map((w) => [w, new Pool({ workers: w }) as Pool])) };
}

async function main(): Promise<void> {
  const { baseDist, rounds } = baseDistAndRounds('episodes-side-by-side.js', 5);
  const sides: Record<string, Side> = { base: await side(baseDist), this: await side(null) };
  const modules = [
    { key: 'gcd', source: GCD_SOURCE, plain: await plainModule(GCD_SOURCE) },
    { key: 'grid', source: GRID_SOURCE, plain: await plainModule(GRID_SOURCE) },
  ];
  const rows = new Map<string, { ratio: number[]; cpuUs: number[]; supervisorUs: number[] }>();
  const plainRows = new Map<string, { perSec: number[]; cpuUs: number[] }>();
  const loads: string[] = [];
  try {
    for (let round = -1; round < rounds; round++) {
      for (const m of modules) {
        const requests = Array.from({ length: ITEMS }, (_, i) => ({ seed: i, level: (i % m.plain.meta.levels) + 1 }));
        const before = process.cpuUsage();
        const plain = plainRate(m.plain);
        const spent = process.cpuUsage(before);
        const plainCpu = (spent.user + spent.system) / ITEMS;
        if (round >= 0) {
          const row = plainRows.get(m.key) ?? { perSec: [], cpuUs: [] };
          row.perSec.push(plain);
          row.cpuUs.push(plainCpu);
          plainRows.set(m.key, row);
        }
        // Alternate which build goes first, so a burst of load from elsewhere hits both alike.
        const order = round % 2 === 0 ? ['base', 'this'] : ['this', 'base'];
        for (const workers of WORKERS) {
          for (const name of order) {
            const s = sides[name] as Side;
            const pool = s.pools.get(workers) as Pool;
            const cpu0 = cpuUs(pool);
            const own0 = ownCpuUs();
            const start = performance.now();
            const run = await s.runEpisodes(pool as OwnPool, m.source, requests, { parallel: true });
            const rate = ITEMS / ((performance.now() - start) / 1000);
            const cpu = (cpuUs(pool) - cpu0) / ITEMS;
            const supervisor = (ownCpuUs() - own0) / ITEMS;
            if (!run.episodes.every((e) => e.ok && e.referenceVerdict.ok && e.referenceVerdict.score === 1))
              throw new Error(`${name}: an episode failed`);
            if (round < 0) continue; // the first round warms every JIT and cache
            const row = rows.get(`${m.key} ${name} ${workers}w`) ?? { ratio: [], cpuUs: [], supervisorUs: [] };
            row.ratio.push(rate / plain);
            row.cpuUs.push(cpu);
            row.supervisorUs.push(supervisor);
            rows.set(`${m.key} ${name} ${workers}w`, row);
          }
        }
      }
      if (round >= 0) loads.push(loadavg()[0]?.toFixed(1) ?? '?');
    }
  } finally {
    for (const s of Object.values(sides)) for (const pool of s.pools.values()) await pool.close();
  }
  const plainOut = Object.fromEntries(
    [...plainRows].map(([k, r]) => [
      k,
      { perSecMedian: Math.round(median(r.perSec)), cpuUsPerItemMedian: +median(r.cpuUs).toFixed(2) },
    ]),
  );
  const out = Object.fromEntries(
    [...rows].map(([k, r]) => [
      k,
      {
        ratioMedian: +median(r.ratio).toFixed(3),
        ratioBest: +Math.max(...r.ratio).toFixed(3),
        cpuUsPerItemMedian: +median(r.cpuUs).toFixed(2),
        cpuUsPerItemLeast: +Math.min(...r.cpuUs).toFixed(2),
        supervisorCpuUsPerItemMedian: +median(r.supervisorUs).toFixed(2),
      },
    ]),
  );
  process.stdout.write(
    `${JSON.stringify({ items: ITEMS, rounds, loadAverage: loads, plainNode: plainOut, sandbox: out }, null, 2)}\n`,
  );
}

await main();
