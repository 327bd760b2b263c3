// The stated bounds of a code statement (validators/code/bounds.ts) and the check that the top level's hidden tests
// reach them (checks/code-bounds.ts): bounds written several ways, lengths told from values, statements with no
// upper bound (or bounds on what is no argument) finding nothing; bounds of the output, of an aggregate or of no
// subject left untied (rt22 F1), the constraint notation read whole and an unreadable bound counted (rt22 F3), and a
// bound's subject as the nearest named quantity: attached, computed, the task's own noun, a list (rt24 C1-C4).
import { describe, expect, it } from 'vitest';
import { reached, tightest, unreached } from '../validators/checks/code-bounds.js';
import { readBounds, statedBounds, statedNumber } from '../validators/code/bounds.js';

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

describe('the subject of a bound (rt22 F1): only a bound tied to an input constrains the tests', () => {
  it('leaves a bound on the output, an aggregate or nothing untied, however it is written', () => {
    for (const [params, s, bound, subject] of [
      [
        ['heights'],
        'Given heights (each 1 <= n <= 70), return the ways. Every answer is less than 10^15.',
        1e15,
        'output',
      ],
      [
        ['prices'],
        'Given a list prices (each from 1 to 1000), return the total. The total is therefore at most 50,000.',
        50000,
        'output',
      ],
      [
        ['prices'],
        'Given a list prices (each from 1 to 1000), return their sum; the sum never exceeds 50,000.',
        50000,
        'aggregate',
      ],
      [['nums'], 'Return the sum of nums. You may assume the output is < 2^31.', 2 ** 31, 'output'],
      [['n'], 'Given n, return the n-th Fibonacci number F(n), which is below 2^63.', 2 ** 63, 'output'],
      [['nums'], 'Return the count of numbers in nums below 1000.', 1000, 'output'],
      [['n', 'm'], 'Given n and m with n * m <= 10^6, return the number of paths.', 1e6, 'aggregate'],
      [['nums'], 'Given nums, return their sum. It fits in 32 bits: at most 2^31 - 1.', 2 ** 31 - 1, 'none'],
      [['nums'], 'Apply the steps. Every result is at most 99, so the answer is below 10^4.', 1e4, 'output'],
    ] as const) {
      const read = readBounds(s, params);
      expect(
        read.bounds.map((b) => b.bound),
        s,
      ).not.toContain(bound);
      expect(read.untied, s).toContainEqual({ bound, subject });
    }
  });

  it('ties a bound to the parameter its clause or sentence makes the subject', () => {
    expect(statedBounds('Given heights (each 1 <= n <= 70), return the ways.', ['heights'])).toEqual([
      { of: 'value', bound: 70, param: 0 },
    ]);
    expect(
      statedBounds('Write a function that returns the max of nums, where nums has at most 10^5 items.', ['nums']),
    ).toEqual([{ of: 'length', bound: 1e5, param: 0 }]);
    expect(statedBounds('Each moment is [year, month] (year 2000 to 2400).', ['moments'])).toEqual([
      { of: 'size', bound: 2400, param: 0 },
    ]);
    expect(statedBounds('Return the answer modulo 2^31 - 1 (n up to 10^6).', ['n'])).toEqual([
      { of: 'value', bound: 1e6, param: 0 },
    ]);
  });

  it('reads a plural noun after a bound as a count unless it is a unit', () => {
    expect(statedBounds('Given stairs, a count of at most 20 stairs.', ['stairs'])).toEqual([
      { of: 'length', bound: 20, param: 0 },
    ]);
    expect(statedBounds('Given prices (up to 50 prices, each at most 1000 cents).', ['prices'])).toEqual([
      { of: 'length', bound: 50, param: 0 },
      { of: 'value', bound: 1000, param: 0 },
    ]);
    expect(statedBounds('Given a list steps of at most 30 moves.', ['steps'])).toEqual([
      { of: 'length', bound: 30, param: 0 },
    ]);
  });
});

describe('the constraint notation (rt22 F3)', () => {
  it('reads chains over any expression of a parameter, with numbers as expressions', () => {
    for (const [s, expected] of [
      [
        'Constraints: 1 <= nums.length <= 20, 1 <= nums[i] <= 10^9.',
        [
          ['length', 20],
          ['value', 1e9],
        ],
      ],
      [
        'Constraints: 1 ≤ len(nums) ≤ 2·10^5 and 1 ≤ nums[i] ≤ 10⁹.',
        [
          ['length', 2e5],
          ['value', 1e9],
        ],
      ],
      [
        'Constraints: 10^9 >= nums[i] >= 1; nums.length <= 1,000,000.',
        [
          ['value', 1e9],
          ['length', 1e6],
        ],
      ],
      [
        'Constraints: 1 \\le nums_i \\le 10^{9}, |nums| < 2 x 10^5.',
        [
          ['value', 1e9],
          ['size', 2e5],
        ],
      ],
      [
        'Each value of nums is at most 10**9; nums holds up to 1e5 items.',
        [
          ['value', 1e9],
          ['length', 1e5],
        ],
      ],
      ['Constraints: 0 <= |nums[i]| <= 2^31 - 1.', [['value', 2 ** 31 - 1]]],
    ] as const)
      expect(
        statedBounds(s, ['nums']).map((b) => [b.of, b.bound, b.param]),
        s,
      ).toEqual(expected.map(([of, bound]) => [of, bound, 0]));
    // An unknown symbol in a constraints section (n, not a parameter) bounds any argument's size.
    expect(statedBounds('Constraints: 1 <= a_i <= 10^9, 1 <= n <= 2 * 10^5.', ['a'])).toEqual([
      { of: 'value', bound: 1e9, param: 0 },
      { of: 'size', bound: 2e5 },
    ]);
    expect(statedBounds('Given v (|v| <= 10^9), return v squared.', ['v'])).toEqual([
      { of: 'size', bound: 1e9, param: 0 },
    ]);
  });

  it('counts a bound it cannot read whole instead of reading part of it', () => {
    for (const s of ['Constraints: 1 <= nums[i] <= 10^(9).', 'Constraints: nums[i] <= 10 ^ 9 ^ 2.'])
      expect(readBounds(s, ['nums']), s).toEqual({ bounds: [], untied: [], unread: 1 });
    // A line break ends a number: the next line of a numbered list is no part of it.
    expect(readBounds('1. keep the numbers below 12\n2. sort them', ['nums']).unread).toBe(0);
  });

  it('reads numbers as expressions', () => {
    for (const [text, value] of [
      ['2 * 10^5', 2e5],
      ['2·10^5', 2e5],
      ['10⁹', 1e9],
      ['10^{9}', 1e9],
      ['1e9', 1e9],
      ['10**9', 1e9],
      ['1,000,000', 1e6],
      ['2^31 - 1', 2 ** 31 - 1],
      ['1e-9', 1e-9],
    ] as const)
      expect(statedNumber(text), text).toBe(value);
    expect(statedNumber('n - 1')).toBeNaN();
  });

  it('ends a number at its line (redteam-s18 C5): one constraint a line keeps each bound, none read as 0', () => {
    const leet = 'Constraints:\n1 <= nums.length <= 10^5\n1 <= k <= 10^9\n-10^9 <= nums[i] <= 10^9';
    const bounds = statedBounds(leet, ['nums', 'k']);
    expect(bounds).toContainEqual(expect.objectContaining({ param: 0, of: 'length', bound: 1e5 }));
    expect(bounds).toContainEqual(expect.objectContaining({ param: 1, bound: 1e9 }));
    expect(bounds).toContainEqual(expect.objectContaining({ param: 0, bound: 1e9 }));
    expect(statedNumber('10^9\n-10^9')).toBeNaN();
    // A chain's subject may be a list (redteam-s18 C4): each listed parameter gets the bound.
    for (const [text, names] of [
      ['1 <= a[i], b[i] <= 10^9', ['a', 'b']],
      ['1 ≤ x, y ≤ 10⁹', ['x', 'y']],
      ['0 < a_i, b_i and c_i <= 10^9', ['a', 'b', 'c']],
    ] as const) {
      const read = statedBounds(text, names);
      for (const [param] of names.entries())
        expect(read, text).toContainEqual(expect.objectContaining({ param, bound: 1e9 }));
    }
    // Not a chain: a list before a bound without a lower bound ties the last subject only.
    expect(statedBounds('Given nums, k <= 100', ['nums', 'k'])).toEqual([expect.objectContaining({ param: 1 })]);
    const bulleted = statedBounds('Constraints:\n- 1 <= n <= 10^5\n- 1 <= m <= 10', ['n', 'm']);
    expect(bulleted).toContainEqual(expect.objectContaining({ param: 0, bound: 1e5 }));
  });
});

describe('what a stated bound bounds: the nearest named quantity (rt24 C1-C4)', () => {
  const tied = (s: string, params: string[]) =>
    statedBounds(s, params).map((b) => `${b.of} ${b.bound} ${b.param === undefined ? '*' : params[b.param]}`);
  it('ties a bound attached to a parameter to it, whatever verb of the task came before (C1)', () => {
    for (const [params, s, expected] of [
      [
        ['nums'],
        'Return the sum of the products of adjacent values of nums (up to 20 values, each at most 10^9).',
        ['length 20 nums', 'value 1000000000 nums'],
      ],
      [
        ['nums'],
        'Compute the maximum subarray sum of nums (length up to 10^5, values up to 10^4 in absolute value).',
        ['length 100000 nums', 'value 10000 nums'],
      ],
      [['s'], 'Return the longest palindromic substring of s, whose length is at most 1000.', ['length 1000 s']],
      [['nums'], 'Return the largest product of two values of nums, each at most 10^9.', ['value 1000000000 nums']],
      [['nums'], 'Return the sum of nums (each at most 10^9).', ['value 1000000000 nums']],
      // A symbol of its own is compared, not governed by the verb: "n <= 10^5" bounds n.
      [['nums'], 'Return the sum of nums (n <= 10^5).', ['size 100000 nums']],
      [['nums'], 'Return the sum (n <= 10^5).', ['size 100000 *']],
    ] as const)
      expect(tied(s, [...params]), s).toEqual(expected);
    // What the verb itself governs stays the task's: a threshold of the task, a relative clause after a result.
    for (const [params, s] of [
      [['nums'], 'Return the count of numbers in nums below 1000.'],
      [['grid'], 'Compute the number of distinct paths through grid, which is at most 10^18.'],
      [['nums'], 'Return the product of nums (which fits in 64 bits, at most 2^63).'],
    ] as const)
      expect(tied(s, [...params]), s).toEqual([]);
  });

  it('leaves a bound on a quantity computed from the inputs untied (C2)', () => {
    for (const [params, s] of [
      [
        ['ns'],
        'Given ns (each 1 <= n <= 90), return F(n) for each n. Every Fibonacci number up to F(90) is below 2^63.',
      ],
      [['n'], 'Return the n-th Fibonacci number. The n-th Fibonacci number is below 2^63.'],
      [['n'], 'Given n, return the number of ways to climb n stairs. The number of ways is less than 10^15.'],
      [['n'], 'Constraints: 1 <= n <= 90\nThe result fits in 64 bits: it is below 2^63.'],
      [['n'], 'Given n, return F(n), where F(n) < 2^63.'],
      [['nums', 'k'], 'Given nums and k, return (nums[i] * k) modulo 1000000007 for each i, each in [0, 1000000006].'],
    ] as const) {
      const read = readBounds(s, [...params]);
      expect(
        read.bounds.map((b) => b.bound),
        s,
      ).not.toContain(2 ** 63);
      expect(
        read.bounds.filter((b) => b.bound >= 1e9),
        s,
      ).toEqual([]);
      expect(read.untied.length, s).toBeGreaterThan(0);
    }
    // The inputs' own elements stay the inputs, however qualified.
    expect(tied('Given nums, return the sum. Every positive value is below 10^9.', ['nums'])).toEqual([
      'value 1000000000 *',
    ]);
    expect(tied('Given n, return the number of ways. The number of items is at most 50.', ['n'])).toEqual([
      'length 50 *',
    ]);
  });

  it("leaves a noun of the task's own bound untied, the inputs' bounds tied (C3)", () => {
    for (const [params, s] of [
      [['words'], 'Given a list words, wrap them greedily into lines of at most 80 characters; return the lines.'],
      [['text'], 'Given text, split it into SMS parts of at most 160 characters each and return the count.'],
      [['items'], 'Given items, pack them in order into boxes holding up to 1000 grams each; return the boxes.'],
      [['nums'], 'Given nums, group consecutive values into chunks of at most 50 items and return the chunks.'],
    ] as const)
      expect(readBounds(s, [...params]).bounds, s).toEqual([]);
    expect(tied('Given a sequence of at most 10^5 integers pts, return x.', ['pts'])).toEqual(['length 100000 *']);
    expect(tied('The input consists of at most 10^5 integers.', ['pts'])).toEqual(['length 100000 *']);
    // A noun the inputs are described with, not one the task makes them into, is no threshold of the task.
    expect(tied('Given nums, with weights of at most 10^9, return the heaviest.', ['nums'])).toEqual([
      'size 1000000000 nums',
    ]);
  });

  it('binds every subject of a list that shares a bound in words (C4)', () => {
    for (const [params, s] of [
      [['n', 'm'], 'Given n and m, return the grid paths. n and m are at most 16.'],
      [['n', 'm', 'k'], 'n, m and k are both at most 16.'],
      [['a', 'b'], 'Each a[i] and b[i] is positive, no more than 16.'],
      [['a', 'b'], 'Given lists a and b (each at most 16), return their dot product.'],
    ] as const)
      expect(new Set(statedBounds(s, [...params]).map((b) => b.param)), s).toEqual(new Set(params.keys()));
    // A subject alone, or a list without a word that shares the bound, keeps it to the last.
    expect(statedBounds('Given nums, k is at most 100.', ['nums', 'k'])).toEqual([
      expect.objectContaining({ param: 1 }),
    ]);
    expect(statedBounds('Given n and m at most 16, return x.', ['n', 'm'])).toEqual([
      expect.objectContaining({ param: 1 }),
    ]);
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
  it('reads a size as the larger of magnitude and length, and a magnitude as absolute', () => {
    expect(reached({ of: 'size', bound: 70, param: 0 }, [[[3, 70]], [[-90]]])).toBe(90);
    expect(reached({ of: 'size', bound: 100 }, [[[1, 2, 3, 4]]])).toBe(4);
    expect(reached({ of: 'size', bound: 100 }, [[{}]])).toBeNull();
  });
  it('holds a bound reached within a factor of 2, and caps a length at what one test can hold', () => {
    expect(unreached({ of: 'value', bound: 2000 }, 18)).toBe(true);
    expect(unreached({ of: 'value', bound: 2000 }, 1000)).toBe(false);
    expect(unreached({ of: 'value', bound: 2000 }, 999)).toBe(true);
    expect(unreached({ of: 'length', bound: 1e5 }, 5000)).toBe(false);
    expect(unreached({ of: 'length', bound: 1e5 }, 50)).toBe(true);
    // A size is capped like a length where its argument holds lists, judged like a value where it holds numbers.
    expect(unreached({ of: 'size', bound: 1e9 }, 5000, true)).toBe(false);
    expect(unreached({ of: 'size', bound: 1e9 }, 5000, false)).toBe(true);
  });
});

describe('depths of a nested argument (redteam-s24c K1)', () => {
  const rows = 'rows holds at most 2000 rows; each row has at most 20 values, each between 1 and 100.';
  /** n rows of `width` values. */
  const table = (n: number, width: number) => [Array.from({ length: n }, () => Array(width).fill(1))];
  it("reads the depth a length is said of: the argument's own, its elements'", () => {
    for (const [s, params] of [
      [rows, ['rows']],
      ['words holds at most 2000 words, each of at most 20 letters.', ['words']],
      ['1 <= len(words) <= 2000 and 1 <= len(words[i]) <= 20.', ['words']],
      ['1 <= words.length <= 2000, 1 <= words[i].length <= 20', ['words']],
      ['graph has at most 2000 nodes; every node lists at most 20 neighbours.', ['graph']],
    ] as const) {
      const lengths = readBounds(s, params).bounds.filter((b) => b.of === 'length');
      expect(
        lengths.map((b) => `${b.bound}@${b.depth}`),
        s,
      ).toEqual(['2000@0', '20@1']);
    }
    // Each test or call is no element of an argument; a flat list's bound has no depth.
    expect(readBounds('In each test, nums has at most 2000 values.', ['nums']).bounds[0]?.depth).toBeUndefined();
    expect(readBounds('nums has at most 2000 values, each at most 9.', ['nums']).bounds[0]?.depth).toBeUndefined();
  });
  it("lets no element's length stand for the argument's own, nor one of no depth where the tests nest lists", () => {
    const { bounds } = readBounds(rows, ['rows']);
    const inputs = Array.from({ length: 10 }, () => table(20, 2));
    expect(tightest(bounds, inputs).map((b) => b.bound)).toEqual([2000, 20, 100]);
    // The same bounds with no depth told: judged both where the tests nest lists, one standing for the other on flat.
    const plain = bounds.map(({ depth: _, ...b }) => b);
    expect(tightest(plain, inputs).map((b) => b.bound)).toEqual([2000, 20, 100]);
    expect(tightest(plain, [[Array(20).fill(1)]]).map((b) => b.bound)).toEqual([20, 100]);
  });
  it("measures the argument's own length at depth 0 and its elements' at depth 1", () => {
    const inputs = [table(20, 2), table(3, 900)];
    expect(reached({ of: 'length', bound: 2000, param: 0, depth: 0 }, inputs)).toBe(20);
    expect(reached({ of: 'length', bound: 20, param: 0, depth: 1 }, inputs)).toBe(900);
    expect(reached({ of: 'length', bound: 2000, param: 0 }, inputs)).toBe(900);
  });
});
