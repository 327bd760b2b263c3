// The stated bounds of a code statement (validators/code/bounds.ts) and the check that the top level's hidden tests
// reach them (checks/code-bounds.ts): bounds written several ways, lengths told from values, statements with no
// upper bound (or bounds on what is no argument) finding nothing.
import { describe, expect, it } from 'vitest';
import { reached, unreached } from '../validators/checks/code-bounds.js';
import { statedBounds, statedNumber } from '../validators/code/bounds.js';

describe('statedBounds', () => {
  it('reads a value bound written several ways, tied to the parameter it names', () => {
    for (const s of [
      'Given a list ns of integers (each 0 <= n <= 2000), return n! modulo 1000000007 for each.',
      'Given a list ns of integers (each 0 ≤ n ≤ 2000), return n! modulo 1000000007 for each.',
      'Given a list ns of integers, each n at most 2000, return n! modulo 1000000007 for each.',
      'Given a list ns of integers, every n from 0 to 2000, return n! modulo 1000000007 for each.',
      'Given a list ns of integers, each n between 0 and 2000, return n! modulo 1000000007 for each.',
      'Given ns, a list of integers no more than 2,000, return n! modulo 1000000007 for each.',
      'Given a list ns of integers, each n in the range [0, 2000], return n! modulo 1000000007 for each.',
      'Given a list ns of integers, each n in 0..2000, return n! modulo 1000000007 for each.',
    ])
      expect(statedBounds(s, ['ns'])).toContainEqual({ of: 'value', bound: 2000, param: 0 });
  });

  it('reads powers and exponents, and a count after the number as a length', () => {
    expect(statedBounds('nums holds up to 10^5 items, values below 10^9.', ['nums'])).toEqual([
      { of: 'length', bound: 1e5, param: 0 },
      { of: 'value', bound: 1e9, param: 0 },
    ]);
    expect(statedBounds('The length of words is at most 300.', ['words'])).toEqual([
      { of: 'length', bound: 300, param: 0 },
    ]);
    expect(statedNumber('2e9')).toBe(2e9);
    expect(statedNumber('2 ** 31')).toBe(2 ** 31);
  });

  it('finds no upper bound in lower bounds, symbolic bounds and formulas', () => {
    for (const s of [
      'Given the coin values (each at least 1) and an amount >= 0, return the fewest coins.',
      'There are n tasks numbered 0 to n-1. Return k (from 1 up to the number of items).',
      'Return how many integers x with lo <= x <= hi are multiples of k (k >= 1; lo, hi >= 0).',
      'Return G * m1 * m2 / d^2 with G = 6.674e-11; 1 nN = 1e-9 N.',
    ])
      expect(statedBounds(s, ['n', 'k', 'lo', 'hi'])).toEqual([]);
  });
});

describe('reached and unreached', () => {
  const inputs = [[[0, 5, 18]], [[3, 2]]];
  it('reads the largest value or length of the bound parameter, or of every argument', () => {
    expect(reached({ of: 'value', bound: 2000, param: 0 }, inputs)).toBe(18);
    expect(reached({ of: 'length', bound: 100 }, inputs)).toBe(3);
    expect(reached({ of: 'value', bound: 3999 }, [[['XIV', 'MCM']]])).toBeNull();
    expect(reached({ of: 'length', bound: 20 }, [[['XIV', 'MCMXC']]])).toBe(5);
    // The tests and their argument lists are no list of the task's.
    expect(
      reached(
        { of: 'length', bound: 400, param: 0 },
        Array.from({ length: 50 }, () => [[1, 2], 7]),
      ),
    ).toBe(2);
    expect(
      reached(
        { of: 'length', bound: 400 },
        Array.from({ length: 50 }, () => [[1, 2], 7, 8, 9]),
      ),
    ).toBe(2);
  });
  it('holds a bound reached within a factor of 2, and caps a length at what one test can hold', () => {
    expect(unreached({ of: 'value', bound: 2000 }, 18)).toBe(true);
    expect(unreached({ of: 'value', bound: 2000 }, 1000)).toBe(false);
    expect(unreached({ of: 'value', bound: 2000 }, 999)).toBe(true);
    expect(unreached({ of: 'length', bound: 1e5 }, 5000)).toBe(false);
    expect(unreached({ of: 'length', bound: 1e5 }, 50)).toBe(true);
  });
});
