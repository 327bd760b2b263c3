// The mutants check (validators/checks/code-mutants.ts) on built modules: a survivor of every hidden test that a
// visible example kills is a wrong program the hidden tests pay, not an equivalent one (red team rts20 T4); the
// answer pool's verdict of programs on tests of the caller's choosing (kinds/code.ts failsTests).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CodeMeta } from '../contract/code.js';
import { code, failsTests } from '../kinds/code.js';
import type { Episode, EpisodeResult } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { codeMutants } from '../validators/checks/code-mutants.js';
import { judgeFindings } from '../validators/checks/rules.js';
import type { StageContext } from '../validators/context.js';
import { DEFAULT_VALIDATOR_OPTIONS } from '../validators/options.js';

/** Distances walked: the examples show backward moves; the hidden moves go backward only when `back`. */
const walk = (back: boolean) => `
export const meta = { name: 'line-walk-distance', title: 'The distance walked along a line',
  description: 'Write a function that returns the total distance of a list of signed moves.',
  skills: ['arithmetic'], levels: 5, kind: 'code', entry: 'walked', params: ['moves'], compare: 'exact',
  scoring: 'all-pass' };
function walked(moves) {
  let total = 0;
  for (const m of moves) total += m < 0 ? -m : m;
  return total;
}
export function generate(rng, level) {
  const test = (moves) => ({ input: [moves], output: walked(moves) });
  const moves = (b) => Array.from({ length: 4 + level }, (_, i) => (b && i % 2 ? -1 : 1) * rng.int(1, 60));
  const tests = [test([0])];
  while (tests.length < 8) tests.push(test(moves(${back})));
  return { statement: 'Return the total distance of the signed moves.', examples: [test([3, -2]), test([-7, -1])],
    tests };
}
export function solve() { return String(walked); }
`;

/**
 * The largest prime factor by trial division to the square root (red team rt23s G5): its mutant "d + d <= n" is the
 * same function made slower, right on levels 1-2 and stopped by the clock on level 3's numbers near 10^12.
 */
const primeFactor = `
export const meta = { name: 'largest-prime-factor', title: 'Largest prime factor',
  description: 'Write a function that returns the largest prime factor of n.', skills: ['number-theory'], levels: 3,
  kind: 'code', entry: 'largest', params: ['n'], compare: 'exact', scoring: 'all-pass' };
function largest(n) {
  let last = 1;
  for (let d = 2; d * d <= n; d++) while (n % d === 0) { last = d; n = n / d; }
  return n > 1 ? n : last;
}
export function generate(rng, level) {
  const most = [1000, 10000, 1e12][level - 1];
  const test = (n) => ({ input: [n], output: largest(n) });
  const tests = [test(8), test(1024), test(49), test(most)];
  while (tests.length < 8) tests.push(test(rng.int(2, most)));
  return { statement: 'Return the largest prime factor of n.', examples: [test(12), test(97)], tests };
}
export function solve() { return String(largest); }
`;

let pool: SandboxPool;
beforeAll(() => {
  pool = new SandboxPool({ workers: 2 });
});
afterAll(() => pool.close());

/** The check's findings on a module, judged by the shared rules, and its metrics (mutants run under `limits`). */
async function judged(source: string, levels = [1, 2], limits?: { callTimeoutMs: number }) {
  const requests = levels.flatMap((level) => [1, 2, 3, 4].map((seed) => ({ seed, level })));
  const run = await code.runEpisodes(pool, source, requests);
  const episodes = run.episodes.filter((e): e is Episode => e.ok);
  expect(episodes, JSON.stringify(run.episodes[0])).toHaveLength(requests.length);
  const meta = (run.load.ok ? run.load.meta : undefined) as CodeMeta;
  // Mutants no instance kills are not counted against the module here: only the examples' verdict decides.
  const options = {
    ...DEFAULT_VALIDATOR_OPTIONS,
    code: { ...DEFAULT_VALIDATOR_OPTIONS.code, minMutantsKilled: 0 },
    limits: limits ?? {},
  };
  const stage = { pool, source, options, meta, episodes } as unknown as StageContext;
  const plan = codeMutants.plan({ stage, memo: (_k, make) => make() });
  if (!plan) throw new Error('no plan');
  const rerun = async (more: typeof plan.requests) =>
    (await code.runEpisodes(pool, source, [...more], limits ? { limits } : {})).episodes;
  const outcomes: EpisodeResult[] = await rerun(plan.requests);
  const verdict = await plan.judge(outcomes, { run: rerun, all: () => outcomes });
  return { codes: judgeFindings(verdict.findings).map((p) => p.code), metrics: verdict.metrics };
}

describe('the mutants the visible examples kill', () => {
  it('are a finding when no hidden test kills them: the hidden moves never go backward', async () => {
    const { codes, metrics } = await judged(walk(false));
    expect(metrics?.examplesKill).toBe(1); // "- → +": the raw sum of the moves
    expect(codes).toEqual(['E_WEAK_TESTS']);
  }, 120_000);

  it('are none when the hidden tests hold what the examples show (the twin)', async () => {
    const { codes, metrics } = await judged(walk(true));
    expect(metrics?.examplesKill).toBe(0);
    expect(codes).toEqual([]);
  }, 120_000);
});

describe('a mutant only the clock stops', () => {
  it('is no kill: the same function made slower survives where it finishes, an equivalent program', async () => {
    // The clock's effect at a budget of 300 ms a test, not the default second: every looping mutant (the slower one
    // on level 3's 10^12, and the mutants that never end) burns its whole budget twice (alone again in a fresh
    // isolate), so the default cost this test 19.5 CPU-s, 300 ms 11.1. A stop is no evidence either way (neither a
    // kill nor a survival), so a tighter clock cannot make a finding; the references are sampled at the default.
    const { codes, metrics } = await judged(primeFactor, [1, 2, 3], { callTimeoutMs: 300 });
    const slower = (change: unknown) => String(change).startsWith('* → +');
    expect((metrics?.survivors as string[]).filter(slower), JSON.stringify(metrics)).toHaveLength(1);
    expect(slower(metrics?.worstMutant)).toBe(false);
    expect(codes).toEqual([]);
  }, 240_000);
});

describe('failsTests', () => {
  it('says which programs fail a test of the given ones, and gives no verdict on one that cannot run', async () => {
    const meta = { entry: 'f', compare: 'exact', scoring: 'all-pass' } as CodeMeta;
    const tests = [{ input: [2], output: 4 }];
    const programs = ['function f(x) { return x * 2; }', 'function f(x) { return x + 3; }', 'function g() {}'];
    expect(
      await failsTests(
        pool,
        meta,
        programs.map((program) => ({ program, tests })),
      ),
    ).toEqual([false, true, null]);
  }, 60_000);
});
