// Validator latency: full validation per candidate over the seeds, p50 and p95, and its CPU per validation
// on the supervisor and in the workers (what bounds validations per second on a busy machine).
import { listSeeds } from '../library/seeds.js';
import { SandboxPool } from '../sandbox/pool.js';
import { seedNoveltyIndex } from '../library/novelty-index.js';
import { validateCandidate } from '../validators/validate.js';
import { processCpuMs } from './proc-stats.js';
import type { BenchEntries } from './types.js';

/**
 * CPU time of the pool's worker processes so far, in ms (Linux /proc; 0 elsewhere; a worker that exited meanwhile:
 * lost, not wrong).
 */
const workersCpuMs = (pool: SandboxPool): number => pool.workerPids().reduce((a, pid) => a + processCpuMs(pid), 0);

export async function benchValidate(rounds = 3): Promise<BenchEntries> {
  const pool = new SandboxPool();
  try {
    const novelty = await seedNoveltyIndex(pool);
    const seeds = listSeeds();
    const times: number[] = [];
    let rejected = 0;
    await validateCandidate((seeds[0] as { source: string }).source, { pool, novelty }); // warm-up
    const cpu0 = process.cpuUsage();
    const workers0 = workersCpuMs(pool);
    for (let r = 0; r < rounds; r++) {
      for (const seed of seeds) {
        const report = await validateCandidate(seed.source, { pool, novelty });
        if (report.verdict !== 'admit') rejected++;
        times.push(report.ms);
      }
    }
    const cpu = process.cpuUsage(cpu0);
    const workersMs = workersCpuMs(pool) - workers0;
    const sorted = [...times].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
    return {
      'validate.p50Ms': {
        value: at(0.5),
        unit: 'ms',
        candidates: times.length,
        rejected,
        workers: pool.options.workers,
      },
      'validate.p95Ms': { value: at(0.95), unit: 'ms', candidates: times.length },
      'validate.cpuMsPerValidation': {
        value: (cpu.user + cpu.system) / 1000 / times.length + workersMs / times.length,
        unit: 'ms',
        supervisorMs: (cpu.user + cpu.system) / 1000 / times.length,
        workersMs: workersMs / times.length,
        candidates: times.length,
      },
    };
  } finally {
    await pool.close();
  }
}
