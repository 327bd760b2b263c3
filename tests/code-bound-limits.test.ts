// Named limits read as their magnitudes (validators/code/bound-limits.ts, redteam-s24c K2): a language's constant
// ("Number.MAX_SAFE_INTEGER", "INT_MAX", "LLONG_MAX", "Long.MAX_VALUE", "i64::MAX", "a safe integer") bounds the
// values like the numeral it names; one named as advice for the program is no bound; a named limit no table knows is
// counted unread.
import { describe, expect, it } from 'vitest';
import { readBounds } from '../validators/code/bounds.js';

/** The value bounds read of nums. */
const values = (s: string) =>
  readBounds(s, ['nums'])
    .bounds.filter((b) => b.of !== 'length')
    .map((b) => b.bound);

describe('named limits', () => {
  it('reads a named limit as the magnitude it names, however a language spells it', () => {
    for (const [name, bound] of [
      ['Number.MAX_SAFE_INTEGER', 2 ** 53 - 1],
      ['MAX_SAFE_INTEGER', 2 ** 53 - 1],
      ['INT_MAX', 2 ** 31 - 1],
      ['Integer.MAX_VALUE', 2 ** 31 - 1],
      ['i32::MAX', 2 ** 31 - 1],
      ['LLONG_MAX', 2 ** 63 - 1],
      ['Long.MAX_VALUE', 2 ** 63 - 1],
      ['math.MaxInt64', 2 ** 63 - 1],
      ['UINT32_MAX', 2 ** 32 - 1],
      ['SHRT_MAX', 2 ** 15 - 1],
    ] as const) {
      expect(values(`nums has at most 20 values, each a positive integer no larger than ${name}.`), name).toEqual([
        bound,
      ]);
      expect(values(`Constraints: 1 <= nums.length <= 20; 0 <= nums[i] <= ${name}.`), name).toEqual([bound]);
    }
    expect(values('nums has at most 20 values, each a positive safe integer.')).toEqual([2 ** 53]);
    expect(values('INT_MIN <= nums[i] <= INT_MAX')).toEqual([2 ** 31 - 1]);
  });
  it('leaves a limit named as advice for the program, and a word that is no limit, unread', () => {
    expect(values('Use a safe integer for the total; nums has at most 20 values, each at most 1000.')).toEqual([1000]);
    expect(values('A 64-bit integer is enough; nums has at most 20 values, each at most 1000.')).toEqual([1000]);
    expect(values('nums has at most 20 values, each at most 1000; INT_MAX is enough for the total.')).toEqual([1000]);
    // A name that merely contains a limit's letters is no limit.
    expect(values('nums has at most 20 values, each at most 1000; call MY_INT_MAXIMUM nothing.')).toEqual([1000]);
  });
  it('counts a named limit no table knows as unread, never skips it', () => {
    const r = readBounds('nums has at most 20 values, each at most MAX_V (a constant of the judge).', ['nums']);
    expect(r.bounds.map((b) => `${b.of} ${b.bound}`)).toEqual(['length 20']);
    expect(r.unread).toBe(1);
    expect(readBounds('nums has at most 20 values, each at most Foo.MAX_VALUE.', ['nums']).unread).toBe(1);
  });
});
