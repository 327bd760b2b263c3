// Whatever a guest function leaves behind (promise jobs that run after it returned, looping or throwing) is
// charged to that function, never to another call or response; the others keep their true results; the
// cost of finding it stays bounded; and a slow setup of the sandbox's own is never charged to the candidate.
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runEpisodes, type EpisodeResult, type ScoredVerdict } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { envSource } from './helpers/env-source.js';

const pool = new SandboxPool({
  workers: 1,
  graceMs: 1_000,
  limits: { callTimeoutMs: 400, loadTimeoutMs: 1_000, sliceMs: 50, memoryMb: 64 },
});
afterAll(() => pool.close());

const ENDLESS = 'const go = () => { Promise.resolve().then(go); }; go();';
const THROWS = "Promise.resolve().then(() => { throw new Error('a late failure'); });";
/**
 * A verifier whose score is a function of the response alone (the reference scores 1), running `left` on long
 * responses.
 */
const verifying = (left: string) =>
  `if (response.length > 50) { ${left} } return response.startsWith('<answer>') ? ` +
  `(kit.int(kit.answer(response) ?? '') === instance.answer ? 1 : 0) : response.length / 100;`;
/** Four episodes; the second gets a long response among short ones. */
const REQUESTS = [1, 2, 3, 1].map((level, i) => ({
  seed: 7,
  level,
  responses: i === 1 ? ['', 'ab', 'x'.repeat(60), 'abcd'] : ['a'],
}));

const scores = (verdicts: ScoredVerdict[]) => verdicts.map((v) => (v.ok ? v.score : v.code));
function episode(e: EpisodeResult | undefined): Extract<EpisodeResult, { ok: true }> {
  expect(e?.ok, JSON.stringify(e)).toBe(true);
  return e as Extract<EpisodeResult, { ok: true }>;
}
function failed(e: EpisodeResult | undefined): Extract<EpisodeResult, { ok: false }> {
  expect(e?.ok, JSON.stringify(e)).toBe(false);
  return e as Extract<EpisodeResult, { ok: false }>;
}
/** Every episode but `except` got its true result: the reference scores 1 and each short response its length / 100. */
function innocentAreTrue(episodes: EpisodeResult[], except: number): void {
  episodes.forEach((e, i) => {
    if (i === except) return;
    const ok = episode(e);
    expect(ok.referenceVerdict).toMatchObject({ ok: true, score: 1 });
    expect(scores(ok.verdicts)).toEqual([0.01]);
  });
}

describe('work a guest function leaves behind is charged to it', () => {
  it.each([
    [
      'loop',
      ENDLESS,
      'E_TIMEOUT',
      /verify of response 2 ran past the call's wall-clock budget, counting the work it left behind/,
    ],
    [
      'throw',
      THROWS,
      'E_THROWN',
      /verify of response 2 returned, then work it left behind \(a promise job\) threw .*a late failure/,
    ],
  ])('verify: promise jobs that %s fail only the response that started them', async (_name, left, code, message) => {
    const run = await runEpisodes(pool, envSource({ verify: verifying(left) }), REQUESTS);
    const charged = episode(run.episodes[1]);
    expect(charged.referenceVerdict).toMatchObject({ ok: true, score: 1 });
    expect(scores(charged.verdicts)).toEqual([0, 0.02, code, 0.04]);
    expect((charged.verdicts[2] as { message: string }).message).toMatch(message);
    innocentAreTrue(run.episodes, 1);
  });

  it('verify: a chain of promise jobs that exhausts the heap (16 MB a job) fails only its own response', async () => {
    const hoard =
      'const keep = []; const go = () => { keep.push(new Array(2e6).fill(1)); return ' +
      'Promise.resolve().then(go); }; go();';
    const run = await runEpisodes(pool, envSource({ verify: verifying(hoard) }), REQUESTS);
    const charged = episode(run.episodes[1]);
    expect(charged.referenceVerdict).toMatchObject({ ok: true, score: 1 });
    expect(scores(charged.verdicts)).toEqual([0, 0.02, expect.stringMatching(/^E_(TIMEOUT|MEMORY)$/), 0.04]);
    expect((charged.verdicts[2] as { message: string }).message).toMatch(/^verify of response 2 /);
    innocentAreTrue(run.episodes, 1);
  });

  it('verify of the reference: its own verdict is charged, the responses keep theirs', async () => {
    const verify = `if (response.startsWith('<answer>')) { ${ENDLESS} } return response.length / 100;`;
    const run = await runEpisodes(pool, envSource({ verify }), [
      { seed: 3, level: 1, responses: ['ab', 'abc'] },
      { seed: 4, level: 2, responses: ['a'] },
    ]);
    for (const e of run.episodes) expect(episode(e).referenceVerdict).toMatchObject({ ok: false, code: 'E_TIMEOUT' });
    expect(scores(episode(run.episodes[0]).verdicts)).toEqual([0.02, 0.03]);
    expect(scores(episode(run.episodes[1]).verdicts)).toEqual([0.01]);
  });

  it.each(['generate', 'solve'])('%s: promise jobs it leaves fail its own call, named after it', async (fn) => {
    const storm = (where: string) => (fn === where ? ENDLESS : '');
    const generate =
      `if (level === 2) { ${storm('generate')} } const a = rng.int(1, 1000); return { prompt: 'Level ' + level ` +
      `+ ': what is ' + a + ' + 1?', answer: a + 1 };`;
    const solve =
      `if (instance.prompt.startsWith('Level 2')) { ${storm('solve')} } return '<answer>' + ` +
      `instance.answer + '</answer>';`;
    const run = await runEpisodes(
      pool,
      envSource({ generate, solve, verify: verifying('') }),
      REQUESTS.map((r) => ({ ...r, responses: ['a'] })),
    );
    expect(failed(run.episodes[1])).toMatchObject({
      code: 'E_TIMEOUT',
      fn,
      message: expect.stringMatching(new RegExp(`^${fn} ran past`)),
    });
    innocentAreTrue(run.episodes, 1);
  });

  it('a job storm that ends by itself within one call budget charges no one, even when several ' +
    'overran a crossing together', async () => {
    // ~0.3-0.5 s of jobs per storm on this machine (250 jobs of 1e6 additions), 6 storms in one slice: together
    // past the crossing's 2.05 s, each alone far within it. On a fast machine nothing times out, and all the same
    // holds.
    const storm =
      'let n = 0; const job = () => { let x = 0; for (let i = 0; i < 1e6; i++) x += i; if (++n < 250) ' +
      'Promise.resolve().then(job); }; job();';
    const requests = [1, 2, 3, 1, 2, 3].map((level) => ({ seed: 11, level, responses: ['ab', 'x'.repeat(60)] }));
    const run = await runEpisodes(pool, envSource({ verify: verifying(storm) }), requests, {
      limits: { callTimeoutMs: 2_000 },
    });
    for (const e of run.episodes) {
      expect(episode(e).referenceVerdict).toMatchObject({ ok: true, score: 1 });
      expect(scores(episode(e).verdicts)).toEqual([0.02, 0.6]);
    }
  }, 60_000);

  it(
    'the search is bounded: past maxFailuresPerJob charged verifies, the rest fail unrun instead ' +
      'of costing more budgets',
    async () => {
      const requests = [1, 2, 3].map((level) => ({
        seed: 5,
        level,
        responses: ['a', 'b', 'c', 'd', 'e'].map((c) => c.repeat(60)),
      }));
      const run = await runEpisodes(pool, envSource({ verify: verifying(ENDLESS) }), requests, {
        limits: { maxFailuresPerJob: 2 },
      });
      const first = episode(run.episodes[0]);
      expect(first.referenceVerdict).toMatchObject({ ok: true, score: 1 });
      expect(scores(first.verdicts)).toEqual(['E_TIMEOUT', 'E_TIMEOUT', 'E_TIMEOUT', 'E_TIMEOUT', 'E_TIMEOUT']);
      expect(first.verdicts.map((v) => (v.ok ? '' : /^not run/.test(v.message) ? 'unrun' : 'charged'))).toEqual([
        'charged',
        'charged',
        'unrun',
        'unrun',
        'unrun',
      ]);
      for (const e of run.episodes.slice(1)) expect(failed(e).message).toMatch(/^not run: 2 earlier calls/);
    },
  );
});

describe("the sandbox's own setup is not the candidate's time", () => {
  it('a realm setup slower than the silence deadline is waited for, not charged to the caller budget', async () => {
    // Every SES run in this pool's workers takes 600 ms more (the preload), while the silence deadline is 360 ms.
    const preload = fileURLToPath(new URL('./fixtures/sandbox/slow-setup.mjs', import.meta.url));
    const slow = new SandboxPool({
      workers: 1,
      graceMs: 50,
      execArgv: ['--import', preload],
      limits: { callTimeoutMs: 100, loadTimeoutMs: 100, sliceMs: 10, memoryMb: 64 },
    });
    try {
      for (const fresh of [false, true]) {
        const workBudget = { totalMs: 60_000, spentMs: 0 };
        const { load, results, wallMs } = await slow.run({
          source: envSource(),
          fresh,
          calls: [{ op: 'episode', seed: 1, level: 1 }],
          limits: { workBudget },
        });
        expect(load.ok, JSON.stringify(load)).toBe(true);
        expect(results[0]?.ok, JSON.stringify(results[0])).toBe(true);
        // The run's time less the budget's is at least the 600 ms setup: a load that slows both cannot break it.
        expect(wallMs - workBudget.spentMs).toBeGreaterThanOrEqual(600);
      }
    } finally {
      await slow.close();
    }
  }, 60_000);
});
