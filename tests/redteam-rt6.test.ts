// Red team round rt6: the left-behind search (sandbox/left-behind.ts) re-runs a failed episode one guest function
// per crossing, and a module can tell that mode apart. Fixed (sandbox/worker.ts, chargeLeftBehind): an episode that
// failed alone and whole keeps that failure when the search charges none of its functions. Beside each finding, a
// plain test checks the fixture still attacks (its normal-mode crossing really does time out).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runEpisodes } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { validateCandidate } from '../validators/validate.js';

const DIR = new URL('./fixtures/redteam/', import.meta.url);
const source = (file: string) => readFileSync(new URL(file, DIR), 'utf8');
const pool = new SandboxPool({
  workers: 1,
  graceMs: 1_000,
  limits: { callTimeoutMs: 400, loadTimeoutMs: 1_000, sliceMs: 50, memoryMb: 64 },
});
afterAll(() => pool.close());
const REQUESTS = Array.from({ length: 6 }, (_, i) => ({
  seed: 7 + i,
  level: 1 + (i % 3),
  responses: ['<answer>1</answer>', 'x'],
}));

describe('rt6: work left behind that fails only when the functions of an episode share a crossing', () => {
  it('the fixture attacks: with its step-mode check removed, every episode is charged', async () => {
    const plain = source('rt6-step-mode-escape.js').replace('if (instance.solved !== true) return;', '');
    const run = await runEpisodes(pool, plain, REQUESTS.slice(0, 2));
    expect(run.episodes.every((e) => !e.ok)).toBe(true);
  }, 60_000);

  // Found: generate's promise job loops only once solve has flagged the (shared, unhardened) instance object, so
  // it times out in every normal crossing but not in step mode, where it runs before solve: each episode costs
  // two call budgets (its full crossing, its careful crossing) and is reported ok with nothing charged, so
  // maxFailuresPerJob never bounds the search (20 episodes: ~10 s at callTimeoutMs 400, vs ~0.1 s honest).
  it('an episode whose every normal crossing times out is not reported ok with nothing charged', async () => {
    const run = await runEpisodes(pool, source('rt6-step-mode-escape.js'), REQUESTS);
    expect(run.episodes.filter((e) => e.ok)).toHaveLength(0);
  }, 120_000);

  // Found: the same with a job that exhausts the isolate's memory instead of looping (E_MEMORY, fresh isolates).
  it('an episode whose every normal crossing exhausts memory is not reported ok with nothing charged', async () => {
    const hoarding = source('rt6-step-mode-escape.js').replace(
      'const go = () => { Promise.resolve().then(go); };',
      'const keep = []; const go = () => { keep.push(new Array(2e6).fill(1)); Promise.resolve().then(go); };',
    );
    expect(hoarding).toContain('keep.push');
    const run = await runEpisodes(pool, hoarding, REQUESTS);
    expect(run.episodes.filter((e) => e.ok)).toHaveLength(0);
  }, 120_000);
});

describe('rt6: the validator', () => {
  const validation = new SandboxPool({ workers: 1 });
  afterAll(() => validation.close());
  // Found: good-determinant.js with the trick on one instance in eight was admitted (execution failed: 0, 48 s).
  it('rejects good-determinant with the step-mode trick on some instances (E_TIMEOUT at execution)', async () => {
    const report = await validateCandidate(source('rt6-admitted-escape.js'), {
      pool: validation,
      validationSeed: 20261122,
    });
    expect(report.verdict).toBe('reject');
    expect(report.stages.find((s) => s.stage === 'execution')?.problems.map((p) => p.code)).toContain('E_TIMEOUT');
  }, 180_000);
});
