// A shown decision is a lookup only where taking it is the task (issue 28, docs/validator.md): the copy policy
// copies decisions off tools the reference never needs. A listing that prints the result of the prompt's own
// rule beside each ticket is an answer leak; the same listing where the task is to carry the assignments over
// (the reference lists, then routes) is a lookup and is admitted.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { judgedOnce, LOAD_CODES } from './helpers/run-cache.js';
import { SandboxPool } from '../sandbox/pool.js';
import { validationSeeds } from './helpers/validation-seeds.js';

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
const SLOW = { timeout: 300_000 };
const DIR = new URL('./fixtures/episodic-structure/', import.meta.url);

async function verdict(file: string, seed: number) {
  const report = await judgedOnce(readFileSync(new URL(file, DIR), 'utf8'), { pool, validationSeed: seed });
  const problems = report.problems.filter((p) => !LOAD_CODES.has(p.code));
  return {
    problems,
    text:
      `${file} --validation-seed ${seed}: ` +
      `${problems.map((p) => `${p.code} ${p.message.slice(0, 140)}`).join('; ') || 'admitted'}`,
  };
}

describe('a decision a listing shows', () => {
  it(
    'is an answer leak where the prompt derives it by a rule and the reference never reads the listing',
    SLOW,
    async () => {
      for (const seed of validationSeeds([44, 11])) {
        const { problems, text } = await verdict('hack-listing-rule-result.js', seed);
        expect(
          problems.some(
            (p) =>
              p.code === 'E_ANSWER_LEAK' && (p.evidence as { check?: string } | undefined)?.check === 'episodic-values',
          ),
          text,
        ).toBe(true);
      }
    },
  );

  it('is a lookup where the task is to carry it over and the reference reads it', SLOW, async () => {
    for (const seed of validationSeeds([44, 11])) {
      const { problems, text } = await verdict('honest-listing-lookup-queue.js', seed);
      expect(problems, text).toEqual([]);
    }
  });
});
