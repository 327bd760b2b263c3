// Novelty across concurrent writers, on each store: two batches run at once on one library (two handles,
// as two `envforge run` processes or workers would hold), each writing a family of near-duplicate
// modules under names of its own. Each judges novelty against its own snapshot, so without the
// admission-time re-check both would admit one of the family; with it, no two admitted environments
// are near-duplicates (counted with the validator's own fingerprints).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Author } from '../agents/author.js';
import { CostLedger } from '../agents/llm/cost.js';
import type { EnvSpec } from '../agents/spec.js';
import { nearDuplicatePairs } from '../library/novelty-audit.js';
import { openLibrary } from '../library/open.js';
import { DEFAULT_BATCH_OPTIONS, runBatch } from '../pipeline/batch.js';
import { SandboxPool } from '../sandbox/pool.js';
import { fixture, spec } from './helpers/batch-script.js';
import { postgresForTests } from './helpers/postgres.js';

const server = postgresForTests();
const pool = new SandboxPool();
afterAll(async () => {
  await pool.close();
  await server.stop();
});

const TEMPLATE = fixture('good-determinant.js');
const trace = { promptHash: 'twins', costUsd: 0, cached: false, model: 'twins' };

/** An author whose every spec gets the same module under the spec's name: a family of near-duplicates. */
function twinAuthor(prefix: string, count: number): Author {
  const specs: EnvSpec[] = Array.from({ length: count }, (_, i) => spec(`${prefix}-twin-${i}`));
  return {
    identity: { provider: 'twins' },
    lineageAuthor: () => 'twins',
    propose: async () => ({ ...trace, specs, dropped: [] }),
    write: async (s) => ({ ...trace, source: TEMPLATE.replace("name: 'integer-determinant'", `name: '${s.name}'`) }),
    repair: async () => ({ ...trace, source: null, problem: 'no repair' }),
  };
}

const STORES = [
  { store: 'sqlite', location: () => mkdtemp(join(tmpdir(), 'envforge-twins-')) },
  { store: 'postgres', location: async () => (await server.ready()).createDatabase() },
] as const;

describe.each(STORES)('two batches at once on one $store library', ({ store, location }) => {
  it.skipIf(store === 'postgres' && server.skipped)(
    'admit no pair of near-duplicates, whichever batch wrote them',
    { timeout: 180_000 },
    async () => {
      const where = await location();
      const [a, b] = [openLibrary(where, { create: true }), openLibrary(where, { create: true })];
      try {
        const batch = (library: typeof a, id: string) =>
          runBatch(
            { library, pool, author: twinAuthor(id, 3), ledger: new CostLedger({ batchId: id, budget: {} }) },
            {
              ...DEFAULT_BATCH_OPTIONS,
              batchId: id,
              target: 3,
              maxCandidates: 3,
              repairRounds: 0,
              concurrency: 3,
              specsPerRound: 3,
              review: false,
            },
          );
        const reports = await Promise.all([batch(a, 'left'), batch(b, 'right')]);
        const admitted = (await a.admittedSince(0)).envs;
        expect(nearDuplicatePairs(admitted)).toEqual([]);
        expect(admitted).toHaveLength(1);
        expect(reports.reduce((n, r) => n + r.funnel.admitted, 0)).toBe(1);
        // The others were rejected as duplicates, whether by the validator or by the re-check at admission.
        const rejections = await a.rejections();
        expect(rejections).toHaveLength(5);
        for (const r of rejections) expect(r.codes).toContain('E_DUPLICATE_CODE');
      } finally {
        await a.close();
        await b.close();
        if (store === 'sqlite') await rm(where, { recursive: true, force: true });
      }
    },
  );
});
