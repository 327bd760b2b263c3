// The generator's example modules in prompts/examples/ (shown for the families no seed covers, and in the
// compact profile) pass the whole validator, as the seeds do, and follow the rules they teach: the
// reference's plan uses at most about 40% of maxTurns (an agent needs about 2.5 times its actions).
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLES_DIR } from '../agents/examples.js';
import { listSeeds } from '../library/seeds.js';
import { SandboxPool } from '../sandbox/pool.js';
import { validateCandidate } from '../validators/validate.js';

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());

const examples = listSeeds(`${EXAMPLES_DIR}/episodic`);

describe('the prompt examples', () => {
  it('exist for the web and world families and are short enough for the compact profile', () => {
    expect(examples.map((e) => e.name)).toEqual(['parcel-depot-grid', 'rail-ticket-site', 'returns-desk']);
  });

  it.each(examples.map((e) => [e.name, e] as const))(
    '%s is admitted by the validator, with its reference inside 40%% of maxTurns',
    async (_name, example) => {
      const report = await validateCandidate(example.source, { pool, validationSeed: 20_261_127 });
      expect(report.problems.map((p) => `${p.code}: ${p.message}`)).toEqual([]);
      expect(report.verdict).toBe('admit');
      const share = report.stages.find((s) => s.stage === 'solvability')?.metrics['maxTurnsShare'];
      expect(share).toBeLessThanOrEqual(0.4);
    },
    120_000,
  );
});
