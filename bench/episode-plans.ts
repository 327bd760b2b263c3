// The episodes the episode-session benchmarks play: reference (act) rollouts of every episodic seed that
// finish with score 1, over a library admitted into `libraryDir`.
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { runRollouts } from '../sandbox/rollouts.js';
import type { Plan } from './episode-load.js';
import { admitEpisodicSeeds } from './episodic-library.js';

/** Reference rollouts of every episodic seed that finish with score 1, interleaved by environment. */
export async function referencePlans(libraryDir: string): Promise<Plan[]> {
  const plans: Plan[] = [];
  const library = SqliteLibrary.open(libraryDir, { create: true });
  const pool = new SandboxPool();
  try {
    for (const seed of await admitEpisodicSeeds(library, pool)) {
      const requests = Array.from({ length: 24 }, (_, i) => ({
        seed: 1_000 + i,
        level: 1 + (i % Math.min(3, seed.meta.levels)),
        policy: { type: 'act' as const },
      }));
      const run = await runRollouts(pool, seed.source, seed.meta, requests);
      for (const r of run.rollouts)
        if (r.ok && r.score === 1 && r.end === 'done')
          plans.push({ env: seed.meta.name, seed: r.seed, level: r.level, actions: r.actions });
    }
  } finally {
    await pool.close();
    await library.close();
  }
  return plans.sort((a, b) => a.seed - b.seed || (a.env < b.env ? -1 : 1));
}
