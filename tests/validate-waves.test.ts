// The validator's stage waves: after execution, the determinism stage's fresh realms and the hack stage's
// jobs are in the sandbox at once (neither waits for the other), determinism builds two fresh realms, and
// the report lists the stages in their fixed order with the same verdict.
import { readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { SandboxPool, type RunRequest } from '../sandbox/pool.js';
import { validateCandidate } from '../validators/validate.js';

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());

it('runs determinism and hack at once, with two fresh realms, and reports the stages in order', async () => {
  const source = readFileSync(new URL('./fixtures/candidates/good-gcd-pair-sum.js', import.meta.url), 'utf8');
  const log: Array<{ fresh: boolean; calls: number; overlappedFresh: boolean }> = [];
  let freshInFlight = 0;
  // Records each sandbox job as the stages issue it: whether a fresh-realm job was still running when it started.
  const spy = new Proxy(pool, {
    get(target, key, receiver) {
      if (key !== 'run') return Reflect.get(target, key, receiver);
      return async (request: RunRequest, ...rest: unknown[]) => {
        const fresh = request.fresh === true;
        log.push({ fresh, calls: request.calls?.length ?? 0, overlappedFresh: freshInFlight > 0 });
        if (fresh) freshInFlight++;
        try {
          return await (target.run as (r: RunRequest, ...more: unknown[]) => ReturnType<SandboxPool['run']>)(
            request,
            ...rest,
          );
        } finally {
          if (fresh) freshInFlight--;
        }
      };
    },
  });
  const report = await validateCandidate(source, { pool: spy, validationSeed: 42 });
  expect(report.verdict, report.problems.map((p) => `${p.code} ${p.message}`).join('\n')).toBe('admit');
  expect(report.stages.map((s) => s.stage)).toEqual([
    'static',
    'execution',
    'determinism',
    'solvability',
    'hack',
    'diversity',
    'difficulty',
    'novelty',
    'review',
  ]);
  const fresh = log.filter((j) => j.fresh);
  expect(fresh).toHaveLength(2);
  // The second fresh realm serves the calls again, then reversed and repeated: three times the first's calls.
  expect(fresh[1]?.calls).toBe(3 * (fresh[0]?.calls ?? 0));
  expect(log.some((j) => !j.fresh && j.overlappedFresh)).toBe(true);
}, 120_000);
