// What a stated bound bounds follows from what the statement computes and names (validators/code/bound-subject.ts,
// bound-words.ts; red team rt25, tests/fixtures/redteam-s19/FINDINGS.md): a selection of a parameter's values bounds
// them (B1), the nearest named noun phrase is the subject and a parameter after a condition's preposition is none (B2),
// a subordinate clause is read on its own (B4), a number no phrase reads that its clause says of an input is judged
// (B3, bound-unread.ts). Each finding's wordings, the red team's variants and others.
import { describe, expect, it } from 'vitest';
import { readBounds } from '../validators/code/bounds.js';

/** Each bound read, as "of bound param" ("*": any argument), and the untied ones as "bound subject". */
function read(s: string, params: readonly string[]): { tied: string[]; untied: string[] } {
  const r = readBounds(s, params);
  return {
    tied: r.bounds.map((b) => `${b.of} ${b.bound} ${b.param === undefined ? '*' : params[b.param]}`),
    untied: r.untied.map((u) => `${u.bound} ${u.subject}`),
  };
}

describe('a selection of a parameter bounds its values (rt25 B1)', () => {
  it('ties an order statistic or magnitude of a parameter, in a comparison or in words, to its values', () => {
    for (const [params, s] of [
      [['nums'], 'Return x. Constraints: 1 <= len(nums) <= 20, max(nums) <= 10^9.'],
      [['nums', 'k'], 'Constraints: -10^9 <= min(nums) <= max(nums) <= 10^9.'],
      [['nums', 'k'], 'Given nums and k, where max(nums) is at most 10^9, return x.'],
      [['nums', 'k'], 'Constraints: max(|nums[i]|) <= 10^9.'],
      [['nums', 'k'], 'Constraints: max(abs(nums[i])) <= 10^9.'],
      // Written otherwise (scratch variants).
      [['nums'], 'Constraints: 1 <= nums.length <= 20; min(nums) >= 1 and max(nums) < 10^9.'],
      [['nums'], 'Constraints: abs(nums[i]) <= 10^9 for all i.'],
      [['nums'], 'Return the sum of nums (max(nums) at most 10^9).'],
    ] as const)
      expect(read(s, params).tied, s).toContain('value 1000000000 nums');
  });

  it('keeps a quantity that combines values (a sum, a range, a function of the task) off the parameter', () => {
    for (const [params, s, untied] of [
      [['n'], 'Given n, return F(n), where F(n) < 2^63.', `${2 ** 63} output`],
      [['nums'], 'Constraints: max(nums) - min(nums) <= 10^6.', '1000000 aggregate'],
      [['nums'], 'Constraints: sum(nums) <= 10^9.', '1000000000 output'],
    ] as const) {
      const r = read(s, params);
      expect(r.tied, s).toEqual([]);
      expect(r.untied, s).toContain(untied);
    }
  });
});

describe('the nearest named noun phrase is the subject (rt25 B2)', () => {
  it('leaves a quantity named by a noun no list knows untied, past a condition on a parameter', () => {
    for (const [params, s] of [
      [['ns'], 'Given ns, each 1 <= n <= 40, return x. For n up to 40 the count is below 10^9, so 32 bits hold it.'],
      [['ns'], 'Given ns. For these n the count is below 10^9.'],
      [['ns'], 'Given ns. Even at n = 40 the count is below 10^9.'],
      [['prices'], 'Constraints: 1 <= prices.length <= 100, 0 <= prices[i] <= 10^4. The profit is at most 10^6.'],
      [['prices'], 'Given prices, return the best profit. Given the limits, the profit is below 10^6.'],
      [['nums'], 'Return x, where nums has at most 100 values; a subarray count is at most 5050.'],
      [['nums'], 'With nums of at most 100 values there are at most 5050 subarrays.'],
      // Written otherwise (scratch variants).
      [['ns'], 'Given ns. When n reaches 40 the tally is still below 10^9.'],
      [['ns'], 'Given ns (each n at most 40). Across these n, the resulting figure stays below 10^9.'],
      [['grid'], 'Given grid, return x. For grid up to 50 rows the path count is at most 10^18.'],
    ] as const) {
      const r = read(s, params);
      expect(r.untied.length, s).toBeGreaterThan(0);
      const untied = r.untied.map((u) => u.split(' ')[0]);
      expect(
        r.tied.filter((t) => untied.includes(t.split(' ')[1])),
        s,
      ).toEqual([]);
    }
  });

  it("still ties a parameter's own bound, and a noun the bound describes rather than a verb's subject", () => {
    expect(read('For n up to 10^5, return the sum.', ['n']).tied).toEqual(['value 100000 n']);
    expect(read('Given stairs, a count of at most 20 stairs.', ['stairs']).tied).toEqual(['length 20 stairs']);
    expect(read('Given nums. The values in each row are at most 10^9.', ['nums']).tied).toEqual(['value 1000000000 *']);
    // Each of something is an element of the inputs, not a quantity of its own.
    expect(read('Given coin values (each coin is at most 10^4), return x.', ['values']).tied).toEqual([
      'value 10000 values',
    ]);
  });
});

describe('a subordinate clause is read on its own (rt25 B4)', () => {
  it("ties the inputs' bound in a reason clause, not to the combined quantity of the main clause", () => {
    for (const s of [
      'Return the sum of the products of adjacent values of nums. Each product fits in 64 bits since values are at ' +
        'most 10^9.',
      'nums has at most 20 values. Products need 64 bits because every value is at most 10^9.',
      'nums has at most 20 values. The total fits in 64 bits as values are at most 10^9.',
      'nums has at most 20 values. A product needs 64 bits, as each value may be up to 10^9.',
      // Written otherwise (scratch variants).
      'Return the sum. The running total stays below 2^63 since each value is at most 10^9.',
      'Return the sum. Doubles lose precision here, because each of nums may be up to 10^9.',
    ])
      expect(
        read(s, ['nums']).tied.filter((t) => t.startsWith('value 1000000000')),
        s,
      ).toHaveLength(1);
    const both = read('Given nums and k. Each sum fits in 32 bits since values are at most 10^4 and k at most 100.', [
      'nums',
      'k',
    ]);
    expect(both.tied).toEqual(['value 10000 *', 'value 100 k']);
    // The "as" of a comparison opens no clause, and an aggregate of values stays one.
    expect(read('Return the sum of nums. The sum of values is at most 10^9.', ['nums']).untied).toEqual([
      '1000000000 aggregate',
    ]);
  });
});

describe('a number no phrase reads, said of an input by its own clause, is judged as its bound (rt25 B3)', () => {
  it("ties the inputs' bound said in words no phrase list holds", () => {
    for (const s of [
      'Return the sum of the products of adjacent values of nums. nums has at most 20 values and no value exceeds ' +
        '10^9.',
      'Return x. nums has 20 values or fewer, each 10^9 or less.',
      'Return x. Values of nums can be as large as 10^9.',
      'Return x. Each value of nums is a positive integer not above 10^9.',
      'Return x. The maximum value in nums is 10^9.',
      "Return x. nums's values are bounded by 10^9.",
      // Written otherwise (scratch variants).
      'Return x. No element of nums is bigger than 10^9.',
      'Return x. nums never holds a value beyond 10^9.',
      'Return x. The entries of nums go as high as 10^9.',
    ])
      expect(read(s, ['nums']).tied, s).toContain('value 1000000000 nums');
    expect(read('Return x. nums has 20 values or fewer.', ['nums']).tied).toEqual(['length 20 nums']);
  });

  it('reads no bound into examples, formulas, dates, places, lower bounds, other nouns or the task threshold', () => {
    for (const [params, s] of [
      [
        ['nums'],
        'Given nums, for example nums = [3, 1000, 2], return the sorted list. Each value is a year like 1999.',
      ],
      [['dates'], 'Given dates, all in 2024, return the weekday of each. There are 10 test cases.'],
      [['moments'], 'Return, for each moment, the number of seconds since 1970-01-01 00:00:00 UTC.'],
      [['masses', 'gaps'], 'Return 1e9 * G * masses[i] * masses[i+1] / gaps[i]^2 with G = 6.674e-11 (1 nN = 1e-9 N).'],
      [['sales'], 'A shop flags a day when its sales reach at least 3521. Given sales, return the flagged days.'],
      [['nums', 'k'], 'Given nums and k (k >= 1, each value 1 or more), return the sum of nums modulo 1000000007.'],
      [['numerals'], 'Inside a numeral, a symbol before a larger one is subtracted (IV is 4, XL is 40, CM is 900).'],
      [['n'], 'You climb n stairs (n >= 0), taking 1, 2 or 3 stairs at each step. With n = 0 there is one way.'],
      [['nums'], 'Return the sum of nums, modulo 1000000007; it fits in a 64-bit integer.'],
      [['matrix'], 'Rotate the n x n matrix by 90 degrees clockwise.'],
      [['nums'], 'Given nums, return them shifted by 1000 places.'],
      [
        ['words'],
        'Given a list words, wrap them greedily into lines of 80 characters or fewer (a word that does not fit ' +
          'starts the next line; no word is longer than 80 characters) and return the number of lines.',
      ],
      [
        ['words'],
        'Given a list words, wrap them greedily into lines of at most 80 characters (a word that does not fit starts ' +
          'the next line; no word is longer than 80 characters) and return the number of lines.',
      ],
    ] as const)
      expect(read(s, params).tied, s).toEqual([]);
  });
});
