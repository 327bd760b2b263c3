// A constant that wins a small level often, missed by the halves: at validation seed 8020 the fitting half of level
// 1's 25 instances ranked a rarer answer first, its held-out half scored that one at 0, and the level was never
// sampled further, so broken-constant-level-one.js (the answer 0 wins ~45% of level 1) was admitted. A level
// whose fitted constant wins that much on its fitting half now draws more instances before the verdict.
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { SandboxPool } from '../sandbox/pool.js';
import { validateCandidate } from '../validators/validate.js';

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());

it('a constant that wins 45% of level 1 is found at the seed where the halves fitted another answer', async () => {
  const source = readFileSync(new URL('./fixtures/candidates/broken-constant-level-one.js', import.meta.url), 'utf8');
  const report = await validateCandidate(source, { pool, validationSeed: 8020 });
  expect(report.problems.map((p) => p.code)).toContain('E_ACCEPTS_CONSTANT');
  const hack = report.stages.find((s) => s.stage === 'hack')?.metrics.checks as {
    guessing: { levels: Array<{ level: number; samples: number; constant: string }> };
  };
  const one = hack.guessing.levels.find((l) => l.level === 1);
  expect(one).toMatchObject({ constant: '0' });
  expect(one?.samples).toBeGreaterThan(25);
}, 120_000);
