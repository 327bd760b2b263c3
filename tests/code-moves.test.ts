// The learned reader for code on list and string outputs (validators/code/moves.ts, validators/checks/code-reader.ts):
// structural moves of the arguments fitted on half a level's hidden tests and credited beyond what they earn on the
// instance's own examples, on samples built here: hidden inputs that arrive pre-solved are rejected whatever the
// output's type, and a task whose solution is itself a move (a sort and a cut, a deduplication) is admitted.
import { describe, expect, it } from 'vitest';
import type { CodeTest } from '../contract/code.js';
import { seenTest } from '../validators/code/features.js';
import { moveRules, orderValues } from '../validators/code/moves.js';
import { judge, list, META, type Rng, sample } from './helpers/code-samples.js';

const topK = (nums: number[], k: number) => [...nums].sort((a, b) => b - a).slice(0, k);
const topTest = (nums: number[], k: number): CodeTest => ({ input: [nums, k], output: topK(nums, k) });
/** The top-k task: the examples random, the hidden lists drawn by `hidden` (12 tests, the first a fixed one). */
const topDraw = (hidden: (r: Rng, level: number) => number[]) => (r: Rng, level: number) => {
  const tests = [topTest([7], 1)];
  while (tests.length < 12) {
    const nums = hidden(r, level);
    tests.push(topTest(nums, r.int(1, nums.length)));
  }
  return { examples: [topTest([5, 1, 4], 2), topTest(list(r, 5, 20), r.int(1, 5))], tests };
};
const drawn = (r: Rng, level: number) => list(r, r.int(2, 4 + 4 * level), 20 * level);
const ranked = (r: Rng, level: number) => drawn(r, level).sort((a, b) => b - a);
const TOP = META({ params: ['nums', 'k'], levels: 3 });

const word = (r: Rng) => Array.from({ length: r.int(3, 8) }, () => 'abcdeXYZ'[r.int(0, 7)]).join('');

describe('structural moves of the arguments', () => {
  it('orders values of any type, and reads a list as given, re-ordered, filtered, cut and joined', () => {
    expect([[2, 1], 'b', [1, 5], 'a', 3, [1]].sort(orderValues)).toEqual(['a', 'b', 3, [1], [1, 5], [2, 1]]);
    const seen = seenTest(['nums', 'k'], [[3, -1, 4, 4, 0], 2]);
    const rules = moveRules(['nums', 'k'], [seen], [...seen.features.keys()].sort(), 10_000);
    const value = (describe: string) => rules.find((r) => r.describe === describe)?.apply(seen);
    expect(value('[nums]')).toEqual([3, -1, 4, 4, 0]);
    expect(value('[nums] deduplicated, sorted descending')).toEqual([4, 3, 0, -1]);
    expect(value("[nums]'s odd items reversed")).toEqual([-1, 3]);
    expect(value('[nums] sorted descending, the first [k.value]')).toEqual([4, 4]);
    expect(value('[nums], without the last ([k.value] + 1)')).toEqual([3, -1]);
    expect(value('[nums] sorted, the first [k.value], joined by ", "')).toBe('-1, 0');
    // A cut longer than the list reads as absent, not as the whole list.
    expect(value('[nums], the first [nums.sum]')).toBeUndefined();
  });

  it('reads a string as given, reversed, re-cased and cut, and its characters and words as lists', () => {
    const seen = seenTest(['s'], ['Ab ba c']);
    const rules = moveRules(['s'], [seen], [...seen.features.keys()].sort(), 10_000);
    const value = (describe: string) => rules.find((r) => r.describe === describe)?.apply(seen);
    expect(value('[s] reversed')).toBe('c ab bA');
    expect(value('[s] upper-cased')).toBe('AB BA C');
    expect(value("[s]'s words sorted")).toEqual(['Ab', 'ba', 'c']);
    expect(value('[s]\'s characters deduplicated, joined by ""')).toBe('Ab ac');
  });

  it('rejects hidden lists that arrive ranked, so the first k items as given pay (rtS S5)', () => {
    const { problems, metrics } = judge(TOP, sample(3, 20, topDraw(ranked)));
    expect(problems.map((p) => p.code)).toEqual(['E_ACCEPTS_GUESSING']);
    expect(JSON.stringify(metrics.rules)).toContain('output = [nums], the first [k.value]');
  });

  it('admits the same task with random hidden lists: its solution and near misses pay on the examples too', () => {
    expect(judge(TOP, sample(3, 20, topDraw(drawn))).problems).toEqual([]);
  });

  it('rejects hidden lists that arrive deduplicated for a "drop the repeats" task, and admits random ones', () => {
    const dedupe = (v: number[]) => [...new Set(v)];
    const draw = (pre: boolean) => (r: Rng) => {
      const t = (nums: number[]): CodeTest => ({ input: [nums], output: dedupe(nums) });
      const repeats = () => list(r, r.int(4, 10), 4);
      return {
        examples: [t([1, 2, 1]), t(repeats())],
        tests: Array.from({ length: 10 }, () => t(pre ? dedupe(repeats()) : repeats())),
      };
    };
    expect(judge(META({}), sample(3, 20, draw(true))).problems.map((p) => p.code)).toEqual(['E_ACCEPTS_GUESSING']);
    expect(judge(META({}), sample(3, 20, draw(false))).problems).toEqual([]);
  });

  it('rejects hidden strings that arrive sorted for a "sort the letters" task, and admits random ones', () => {
    const draw = (pre: boolean) => (r: Rng) => {
      const t = (s: string): CodeTest => ({ input: [s], output: [...s].sort().join('') });
      const text = () => (pre ? [...word(r)].sort().join('') : word(r));
      return { examples: [t('cab'), t(word(r))], tests: Array.from({ length: 10 }, () => t(text())) };
    };
    const meta = META({ params: ['s'] });
    const { problems, metrics } = judge(meta, sample(3, 20, draw(true)));
    expect(problems.map((p) => p.code)).toEqual(['E_ACCEPTS_GUESSING']);
    expect(JSON.stringify(metrics.rules)).toContain('"output = [s]"');
    expect(judge(meta, sample(3, 20, draw(false))).problems).toEqual([]);
  });

  it('rejects a string built from a list whose hidden lists arrive sorted ("the words sorted and joined")', () => {
    const draw = (pre: boolean) => (r: Rng) => {
      const t = (words: string[]): CodeTest => ({ input: [words], output: [...words].sort().join(' ') });
      const words = () => Array.from({ length: r.int(3, 7) }, () => word(r));
      return {
        examples: [t(['b', 'a']), t(words())],
        tests: Array.from({ length: 10 }, () => t(pre ? words().sort() : words())),
      };
    };
    const meta = META({ params: ['words'] });
    const { problems, metrics } = judge(meta, sample(3, 20, draw(true)));
    expect(problems.map((p) => p.code)).toEqual(['E_ACCEPTS_GUESSING']);
    expect(JSON.stringify(metrics.rules)).toContain('output = [words], joined by \\" \\"');
    expect(judge(meta, sample(3, 20, draw(false))).problems).toEqual([]);
  });
});
