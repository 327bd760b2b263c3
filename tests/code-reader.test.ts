// The learned reader for code (validators/checks/code-reader.ts): a rule of cheap features of the arguments fitted
// on half a level's hidden tests and judged on the other half, and tables of what the other half of the level showed,
// on samples built here (no sandbox: the check reads the tests the reference passed).
import { describe, expect, it } from 'vitest';
import type { CodeTest } from '../contract/code.js';
import { tableKeys, testFeatures } from '../validators/code/features.js';
import { judge, list, META, type Rng, sample } from './helpers/code-samples.js';

function swaps(nums: number[]): number {
  let n = 0;
  for (let i = 0; i < nums.length; i++)
    for (let j = i + 1; j < nums.length; j++) if ((nums[i] as number) > (nums[j] as number)) n++;
  return n;
}

const swapTest = (nums: number[]): CodeTest => ({ input: [nums], output: swaps(nums) });
const descending = (r: Rng, length: number) =>
  [...new Set(list(r, length + 10, 100))].slice(0, length).sort((a, b) => b - a);

describe('the learned reader for code', () => {
  it('reads the cheap features of a test: lengths, extremes, sortedness, the item an integer argument names', () => {
    const f = testFeatures(['nums', 'k'], [[4, 1, 7, 7], 2]);
    expect(Object.fromEntries(f)).toMatchObject({
      'nums.length': 4,
      'nums.min': 1,
      'nums.max': 7,
      'nums.sum': 19,
      'nums.distinct': 3,
      'nums.ascending': 0,
      'nums.rises': 1,
      'nums[k]': 7,
      'nums[k-1]': 1,
      'nums[length-k]': 7,
      'k.value': 2,
    });
    expect(tableKeys(['coins', 'amount']).map(([by, key]) => [by, key([[5, 1], 7])])).toEqual([
      ['the whole input', '[[5,1],7]'],
      ['the input with its lists sorted', '[["1","5"],7]'],
      ['coins alone', '[5,1]'],
      ['amount alone', '7'],
    ]);
  });

  it('rejects hidden tests from a narrow family the examples hide: every list decreasing, so n(n-1)/2 pays', () => {
    const draw = (r: Rng) => ({
      examples: [swapTest(list(r, 5, 9))],
      tests: [swapTest([]), ...Array.from({ length: 10 }, () => swapTest(descending(r, r.int(2, 12))))],
    });
    const { problems, metrics } = judge(META({}), sample(3, 20, draw));
    expect(problems.map((p) => p.code)).toEqual(['E_ACCEPTS_GUESSING']);
    expect(problems[0]?.message).toMatch(/wins 100% over all levels .*; also: .* the other half of the level's tests/);
    // The length, or the distinct count (equal on these lists), is the n of n(n-1)/2.
    expect(JSON.stringify(metrics.rules)).toMatch(/\[nums.(length|distinct)]\(\[nums.(length|distinct)]-1\)\/2/);
  });

  it('admits the same task whose hidden lists are random like the examples (one worst case among them)', () => {
    const draw = (r: Rng) => ({
      examples: [swapTest(list(r, 5, 9))],
      tests: [
        swapTest([]),
        swapTest(descending(r, 6)),
        ...Array.from({ length: 9 }, () => swapTest(list(r, r.int(4, 12), 50))),
      ],
    });
    expect(judge(META({}), sample(3, 20, draw)).problems).toEqual([]);
  });

  it('judges each level on its own: a narrow family at level 1 only is rejected there', () => {
    const kadane = (g: number[]) => {
      let best = g.length ? (g[0] as number) : 0;
      let run = 0;
      for (const x of g) (run = Math.max(x, run + x)), (best = Math.max(best, run));
      return best;
    };
    const draw = (r: Rng, level: number) => {
      const gains = (n: number) => (level === 1 ? list(r, n, 9).map((x) => -Math.abs(x)) : list(r, n, 9));
      const t = (g: number[]) => ({ input: [g], output: kadane(g) });
      return { examples: [t(list(r, 5, 9))], tests: Array.from({ length: 10 }, () => t(gains(r.int(4, 10)))) };
    };
    const [problem] = judge(META({}), sample(3, 20, draw)).problems;
    expect(problem?.code).toBe('E_ACCEPTS_GUESSING');
    expect(problem?.message).toMatch(/at level 1 /);
    expect(problem?.message).not.toMatch(/also at levels/);
  });

  it("rejects a level whose inputs the other prompts' examples cover, keyed by the whole input or one argument", () => {
    const stairs = (n: number): number => (n < 0 ? 0 : n === 0 ? 1 : stairs(n - 1) + stairs(n - 2) + stairs(n - 3));
    const window = (noise: boolean) => (r: Rng) => {
      const t = () => ({ input: [r.int(0, 12), noise ? r.int(0, 1e6) : 0], output: 0 }) as CodeTest;
      const fill = (x: CodeTest) => ({ ...x, output: stairs(x.input[0] as number) });
      return { examples: [0, 1, 2].map(() => fill(t())), tests: Array.from({ length: 8 }, () => fill(t())) };
    };
    for (const noise of [false, true]) {
      const { problems } = judge(META({ params: ['n', 'tag'] }), sample(2, 24, window(noise)));
      expect(problems.map((p) => p.code)).toEqual(['E_ACCEPTS_EXAMPLES']);
      expect(problems[0]?.message).toMatch(noise ? /looked up by n alone/ : /a table of the/);
    }
  });

  it('admits a level whose inputs are drawn from a space no pool of prompts covers', () => {
    const draw = (r: Rng) => {
      const t = () => {
        const nums = list(r, 8, 1000);
        return { input: [nums], output: [...nums].sort((a, b) => a - b)[3] };
      };
      return { examples: [t(), t()], tests: Array.from({ length: 8 }, t) };
    };
    expect(judge(META({}), sample(2, 24, draw)).problems).toEqual([]);
  });

  it('scores a rule under the declared scoring: with fraction scoring, edge tests alone earn only their share', () => {
    const draw = (r: Rng) => ({
      examples: [swapTest(list(r, 5, 9))],
      tests: [swapTest([]), ...Array.from({ length: 11 }, () => swapTest(list(r, r.int(6, 12), 50)))],
    });
    const { problems } = judge(META({ scoring: 'fraction' }), sample(3, 20, draw));
    // [] -> 0 (1 test in 12) is paid to many rules and tables, and by chance too: every instance holds it first.
    expect(problems).toEqual([]);
  });
});
