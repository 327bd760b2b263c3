// A code comparator is judged by what it accepts on each hidden test (validators/code/acceptance.ts): the reference's
// own output zeroed, negated, nudged by one where it is integer-valued, reordered or swapped with another test's, and,
// where order is free, the arguments' cheap multisets — red team rtcode C1, C2, C3.
import { describe, expect, it } from 'vitest';
import type { Comparator } from '../contract/compare.js';
import type { CodeTest } from '../contract/code.js';
import { integerPaths, paysWrong, probeInstance } from '../validators/code/acceptance.js';

/** The probes the comparator pays on at least one test, with the tests it pays them on. */
function paid(compare: Comparator, tests: CodeTest[]): Record<string, number[]> {
  const found = probeInstance({ compare }, { tests, examples: tests.slice(0, 1) });
  return Object.fromEntries([...found].filter(([, p]) => p.tests.length > 0).map(([name, p]) => [name, p.tests]));
}

const t = (input: unknown[], output: unknown): CodeTest => ({ input, output });

describe('the acceptance region of a hidden test', () => {
  it("pays every permutation of 0..n-1 under 'unordered' when the answer is an order of n tasks (C1)", () => {
    const tests = [t([3, [[2, 0]]], [1, 2, 0]), t([4, [[3, 1]]], [0, 2, 3, 1])];
    expect(paid('unordered', tests)['the range 0..n-1 of argument 1']).toEqual([0, 1]);
  });

  it("pays a list argument's own items under 'unordered' when the answer rearranges it, at any argument", () => {
    const tests = [t([2, [5, 1, 5, 3], 'x'], [5, 1, 3, 5]), t([1, [2, 2, 9], 'y'], [2, 9, 2])];
    expect(paid('unordered', tests)["the list's items of argument 2"]).toEqual([0, 1]);
  });

  it("pays nothing cheap under 'exact' for the same orders: a canonical order must be computed", () => {
    expect(paid('exact', [t([3, [[2, 0]]], [1, 2, 0]), t([4, [[3, 1]]], [0, 2, 3, 1])])).toEqual({});
  });

  it('pays zeros of the output shape where every float lies under the absolute floor (C2)', () => {
    const tests = [t([[1, 2]], [3.3e-7]), t([[4, 5, 6]], [2.1e-7, 6.7e-8])];
    const found = paid('float', tests);
    expect(found['the expected output, every number zeroed']).toEqual([0, 1]);
    expect(found['the expected output, every number negated']).toEqual([0, 1]);
  });

  it('pays a swapped or reversed float set whose spread lies within the tolerance', () => {
    const tests = [t([1], [3.1415926, 3.1415927]), t([2], [3.1415927, 3.1415926])];
    const found = paid('float', tests);
    expect(found['the expected output, every list reversed']).toEqual([0, 1]);
    expect(found["another hidden test's expected output"]).toEqual([0, 1]);
  });

  it('pays the off-by-one on integer counts above 1e6 under the relative float tolerance (C3), not on small', () => {
    const tests = [t([0, 9, 3], 3), t([1, 3e7, 7], 4285714), t([5, 4e9, 2], 1999999998)];
    expect(paid('float', tests)['the expected output, every integer plus one']).toEqual([1, 2]);
    expect(paid('exact', tests)).toEqual({});
  });

  it('nudges only the numbers at paths that are integers in every output of the instance', () => {
    expect([
      ...integerPaths([
        { n: 3, r: 0.5 },
        { n: 4, r: 2 },
      ]),
    ]).toEqual(['/n']);
    expect([...integerPaths([[1, 2], [3]])]).toEqual(['/*']);
    const floats = [t([1], 1_500_000.25), t([2], 2_000_000)];
    expect(paid('float', floats)['the expected output, every integer plus one']).toBeUndefined();
  });

  it('pays nothing on honest floats well above the floor, nor the truth itself', () => {
    const tests = [t([[1, 2]], [1.8e-5]), t([[4, 5, 6]], [2.2e-4, 0.5])];
    expect(paid('float', tests)).toEqual({});
    expect(paysWrong('float', [1.8e-5], [1.8e-5])).toBe(false);
  });
});
