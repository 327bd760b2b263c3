// A number is what the statement means by it (validators/code/bound-notation.ts, redteam-s21c C1-C4): a bound written
// in words, as a type or bit width, or as a count of digits is read as the bound it means, and a comparative a
// negation governs, or a pronoun standing for the subject of the sentence before, ties it. Each finding's wording, the
// red team's variants and others; and the readings that must not move (a string's digits, the output's width).
import { describe, expect, it } from 'vitest';
import { writtenMagnitudes } from '../validators/code/bound-notation.js';
import { wordsValue } from '../validators/number-words.js';
import { readBounds } from '../validators/code/bounds.js';
import { tightest } from '../validators/checks/code-bounds.js';

/** Each bound read of nums, as "of bound" ("of bound *" when tied to any argument). */
function tied(s: string, params: readonly string[] = ['nums']): string[] {
  return readBounds(s, params).bounds.map((b) => `${b.of} ${b.bound}${b.param === undefined ? ' *' : ''}`);
}

describe('numbers in words', () => {
  it('reads a run of number words as its value', () => {
    for (const [words, value] of [
      ['twenty', 20],
      ['twenty-five', 25],
      ['a billion', 1e9],
      ['ten million', 1e7],
      ['two hundred thousand', 2e5],
      ['one hundred', 100],
      ['a thousand', 1000],
      ['three thousand five hundred', 3500],
    ] as const)
      expect(wordsValue(words), words).toBe(value);
  });

  it('leaves articles and a lone "one" as words', () => {
    expect(writtenMagnitudes('a list of one or more values, a ten-digit integer')).toBe(
      'a list of one or more values, a integer below 10^10',
    );
    expect(writtenMagnitudes('Given an array')).toBe('Given an array');
  });

  it('ties a bound written in words (C3)', () => {
    for (const s of [
      'nums has at most 20 values, each under a billion.',
      'nums has at most 20 values, each less than one billion.',
      'nums has at most twenty values, each below a billion.',
    ])
      expect(tied(s), s).toContain('value 1000000000');
    expect(tied('nums has at most twenty values.')).toContain('length 20');
    expect(tied('nums has at most 20 values, each at most ten million.')).toContain('value 10000000');
  });
});

describe('types, bit widths and digit counts', () => {
  it('reads a type or bit width as the range it names (C2)', () => {
    for (const [s, bound] of [
      ['nums has at most 20 values, each a 32-bit signed integer.', 2 ** 31],
      ['nums has at most 20 values; the values are signed 32-bit.', 2 ** 31],
      ['nums has at most 20 values, each an int32.', 2 ** 31],
      ['nums holds at most 20 unsigned 32-bit integers.', 2 ** 32],
      ['nums has at most 20 values, each of which fits in 30 bits.', 2 ** 30],
    ] as const)
      expect(
        tied(s).filter((b) => b.endsWith(String(bound))),
        s,
      ).toHaveLength(1);
    expect(tied('nums holds at most 20 unsigned 32-bit integers.')).toContain('length 20');
  });

  it("reads a count of a number's digits as its magnitude, of a string's as its length (C4)", () => {
    for (const s of [
      'nums has at most 20 values, each a positive integer of at most 10 digits.',
      'nums[i] is a positive integer of up to 10 digits.',
      'nums has at most 20 values, each a 10-digit integer.',
    ])
      expect(tied(s), s).toContain('value 10000000000');
    expect(tied('nums has at most 20 values of up to nine digits each.')).toContain('value 1000000000');
    expect(tied('s is a string of at most 10 digits.', ['s'])).not.toContain('value 10000000000');
  });

  it("keeps the output's width and a machine's off the inputs", () => {
    expect(tied('Given nums, return their sum. It fits in 32 bits: at most 2^31 - 1.')).toEqual([]);
    expect(tied('The answer fits in a 64-bit integer.')).toEqual([]);
    expect(tied('Return the 32-bit checksum of nums.')).toEqual([]);
  });
});

describe('comparatives under a negation, and a subject named before (C1)', () => {
  it('ties a bound said of an elided or pronoun subject', () => {
    for (const s of [
      'nums has at most 20 values, none larger than 10^9.',
      'nums has at most 20 values and none of them is larger than 10^9.',
      'nums has at most 20 values; no value is greater than 10^9.',
      'nums has at most 20 values. All are smaller than 10^9.',
      'nums has at most 20 values. They are each at most 10^9.',
      'nums has at most 20 values, none above 10^9.',
    ])
      expect(
        tied(s).some((b) => /^(?:value|size) 1000000000$/.test(b)),
        s,
      ).toBe(true);
  });

  it('reads no bound from a comparative no negation governs', () => {
    expect(tied('Return the count of values greater than 1000 in nums.')).toEqual([]);
  });

  it('counts a bound whose noun follows a modifier as a length', () => {
    expect(tied('nums holds at most 100000 positive integers.')).toEqual(['length 100000']);
    expect(tied('nums has at most 20 lowercase letters.')).toEqual(['length 20']);
    expect(tied('nums[i] is at most 10^9 in absolute value.')).toEqual(['value 1000000000']);
  });
});

describe('a number read whole, the tightest bound promised, a type as advice (redteam-s22c K1-K3)', () => {
  it('reads a numeral with its scale, a power in words and thousands grouped by spaces (K1)', () => {
    for (const [s, bound] of [
      ['each under 2 billion', 2e9],
      ['each under 1.5 million', 1.5e6],
      ['each at most nine hundred and fifty million', 9.5e8],
      ['each at most a hundred and fifty thousand', 1.5e5],
      ['each below 2 to the power 40', 2 ** 40],
      ['each below 2 to the power of 31', 2 ** 31],
      ['each at most 10 to the 9th', 1e9],
      ['each at most 100 000', 1e5],
    ] as const)
      expect(tied(`nums has at most 20 values, ${s}.`), s).toEqual(['length 20', `value ${bound}`]);
    expect(writtenMagnitudes('four hundred and twenty-three')).toBe('423');
    expect(writtenMagnitudes('two thousand and five million')).toBe('2000 and 5000000');
  });

  it('judges the tightest of the bounds one input is given (K2)', () => {
    const bounds = readBounds('nums has at most 20 values, each between 1 and 1000; they fit in 16-bit integers.', [
      'nums',
    ]).bounds;
    expect(bounds.map((b) => `${b.of} ${b.bound}`).sort()).toEqual(['length 20', 'size 32768', 'value 1000']);
    expect(
      tightest(bounds)
        .map((b) => `${b.of} ${b.bound}`)
        .sort(),
    ).toEqual(['length 20', 'value 1000']);
    // A size bound with no tighter length bound, or a looser bound of another argument, still binds.
    const alone = readBounds('each value of nums is at most 1000; they fit in 16-bit integers.', ['nums']).bounds;
    expect(tightest(alone).map((b) => `${b.of} ${b.bound}`)).toContain('size 32768');
  });

  it('reads a type named as advice for the program as no bound of an input (K3)', () => {
    for (const hint of [
      'Hint: a 32-bit signed integer is enough for the running total.',
      'Note: a 64-bit value is needed for the running sum.',
      'A 32-bit integer holds every partial sum.',
      'Use 64-bit integers for the sum.',
    ])
      expect(tied(`nums has at most 20 values, each between 1 and 1000. ${hint}`), hint).toEqual([
        'length 20',
        'value 1000',
      ]);
    expect(tied('nums has at most 20 values, each a signed 32-bit integer.')).toEqual([
      'length 20',
      'value 2147483648',
    ]);
  });
});

describe('a bound stands for another only where it implies it (redteam-s23c C1, C2)', () => {
  /** The bounds judged of a statement, given the hidden tests' inputs (one argument, nums). */
  const judged = (s: string, nums: number[][]) =>
    tightest(
      readBounds(s, ['nums']).bounds,
      nums.map((n) => [n]),
    )
      .map((b) => `${b.of} ${b.bound}${b.param === undefined ? ' *' : ''}`)
      .sort();
  const small = [
    [500, 501, 499, 500],
    [498, 497, 500],
  ];

  it('keeps the values bound beside a bound of another quantity (C1)', () => {
    const s = 'nums has at most 20 values, each between 1 and 10^9, and adjacent values differ by at most 1000.';
    expect(judged(s, small)).toContain('value 1000000000');
    expect(judged(s, small)).toContain('length 20');
  });

  it('lets no bound the tests break stand for another (C1 variants)', () => {
    for (const rest of ['no value appears more than 3 times', 'at most 5 of them are odd'])
      expect(judged(`nums has at most 20 values, each between 1 and 10^9; ${rest}.`, small), rest).toContain(
        'value 1000000000',
      );
  });

  it('drops an untied restatement every argument bounds tighter (C2)', () => {
    for (const rest of ['Every value has at most 4 digits.', 'Every value is a 16-bit integer.'])
      expect(judged(`nums has at most 20 values, each between 1 and 1000. ${rest}`, small), rest).toEqual([
        'length 20',
        'value 1000',
      ]);
    // An argument with no tighter bound of its own keeps the untied bound for it.
    const two = readBounds('nums has at most 20 values, each between 1 and 1000. Every value has at most 4 digits.', [
      'nums',
      'k',
    ]).bounds;
    expect(tightest(two, [[[5, 6], 7]]).map((b) => `${b.of} ${b.bound}${b.param === undefined ? ' *' : ''}`)).toContain(
      'value 10000 *',
    );
  });
});

describe('every notation of a number read whole or counted unread (redteam-s23c, K1 rest)', () => {
  it('reads scales as abbreviations, chained, and digits grouped by marks', () => {
    for (const [s, bound] of [
      ['each under 2 bn', 2e9],
      ['each under 2B', 2e9],
      ['each under 2M', 2e6],
      ['each at most 200k', 2e5],
      ['each under 2 millions', 2e6],
      ['each under 10 crore', 1e8],
      ['each under 2 thousand million', 2e9],
      ['each under two thousand million', 2e9],
      ['each under 1_000_000_000', 1e9],
      ['each under 1.000.000.000', 1e9],
      ["each under 2'000'000'000", 2e9],
      ['each between 1 and 10 to the ninth', 1e9],
    ] as const)
      expect(tied(`nums has at most 20 values, ${s}.`), s).toEqual(['length 20', `value ${bound}`]);
  });

  it('counts a numeral a letter continues as unread, and leaves units and decimals alone', () => {
    const r = readBounds('nums has at most 20 values, each under 2G.', ['nums']);
    expect(r.bounds.map((b) => `${b.of} ${b.bound}`)).toEqual(['length 20']);
    expect(r.unread).toBe(1);
    expect(tied('nums has at most 20 values, each at most 1.5.')).toEqual(['length 20', 'value 1.5']);
    expect(tied('nums has at most 20 values, each at most 3 m.')).toEqual(['length 20', 'value 3']);
  });
});
