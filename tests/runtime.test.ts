// The guest runtime's rng and kit: the rng reproduces xoshiro128** and the documented seed derivation
// bit for bit (trainers regenerate instances from it), and the kit parses answers strictly and linearly.
import { describe, expect, it } from 'vitest';
import { deriveRngState, RNG_SCHEME } from '../sandbox/rng.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';

const rt = loadPlainRuntime();
const { kit } = rt;

describe('rng', () => {
  it('is xoshiro128** (outputs match the reference C implementation from state 1,2,3,4)', () => {
    const rng = rt.makeRng(1, 2, 3, 4);
    // int over the full 2^32 range returns the raw generator output.
    expect(Array.from({ length: 6 }, () => rng.int(0, 2 ** 32 - 1))).toEqual([
      11520, 0, 5927040, 70819200, 2031721883, 1637235492,
    ]);
  });

  it('derives its state from (name, seed, level) as documented; these vectors never change silently', () => {
    expect(RNG_SCHEME).toBe('envforge-rng-v1');
    expect(deriveRngState('interval-merge-count', 0, 1)).toEqual([3627612719, 2789631866, 926472046, 116831744]);
    const rng = rt.makeRng(...deriveRngState('topological-order', 42, 7));
    expect([
      rng.int(1, 100),
      rng.int(1, 100),
      rng.int(-5, 5),
      rng.float(),
      rng.pick(['a', 'b', 'c']),
      rng.shuffle([1, 2, 3, 4, 5]),
      rng.int(0, 2 ** 40),
    ]).toEqual([15, 45, 5, 0.5732390852840475, 'b', [5, 1, 4, 3, 2], 547137351533]);
  });

  it('gives different streams for different names, seeds and levels', () => {
    const states = [
      deriveRngState('a', 0, 1),
      deriveRngState('b', 0, 1),
      deriveRngState('a', 1, 1),
      deriveRngState('a', 0, 2),
    ].map(String);
    expect(new Set(states).size).toBe(4);
  });

  it('draws integers uniformly within inclusive bounds', () => {
    const rng = rt.makeRng(...deriveRngState('uniformity', 1, 1));
    const counts = new Array(6).fill(0);
    for (let i = 0; i < 60_000; i++) counts[rng.int(0, 5)]++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500); // > 5 standard deviations
    for (let i = 0; i < 1000; i++) {
      const f = rng.float();
      expect(f >= 0 && f < 1).toBe(true);
    }
  });

  it('shuffles into a new array and rejects bad arguments with messages that say what is wrong', () => {
    const rng = rt.makeRng(5, 6, 7, 8);
    const input = [1, 2, 3, 4, 5, 6];
    const out = rng.shuffle(input);
    expect(out).not.toBe(input);
    expect([...out].sort()).toEqual(input);
    expect(() => rng.int(1.5, 3)).toThrow(/safe integers/);
    expect(() => rng.int(5, 1)).toThrow(/lo <= hi/);
    expect(() => rng.pick([])).toThrow(/non-empty array/);
    expect(Object.isFrozen(rng)).toBe(true);
  });
});

describe('kit', () => {
  it.each([
    ['<answer>42</answer>', '42'],
    ['reasoning… <answer>  x y </answer> done', 'x y'],
    ['no tag', null],
    ['<answer>1</answer><answer>2</answer>', null],
    ['<answer>unclosed', null],
  ])('answer(%j) is %j', (response, expected) => {
    expect(kit.answer(response)).toBe(expected);
  });

  it('parses integers and numbers strictly', () => {
    expect([
      kit.int(' -12 '),
      kit.int('+7'),
      kit.int('1.0'),
      kit.int('12a'),
      kit.int(''),
      kit.int('9'.repeat(40)),
    ]).toEqual([-12, 7, null, null, null, null]);
    expect([
      kit.number('0.5'),
      kit.number('1/2'),
      kit.number('-3e2'),
      kit.number('1/0'),
      kit.number('abc'),
      kit.number('.5'),
    ]).toEqual([0.5, 0.5, -300, null, null, 0.5]);
  });

  it('splits lists and normalises whitespace', () => {
    expect(kit.list(' a, b ,, c ')).toEqual(['a', 'b', 'c']);
    expect(kit.list('a b', ' ')).toEqual(['a', 'b']);
    expect(kit.normalize('  a \n\t b ')).toBe('a b');
  });

  it.each([
    ['answer: unclosed tags', (n: number) => `<answer>${'<answer>'.repeat(n / 8)}`, (t: string) => kit.answer(t)],
    [
      'answer: closing tags first',
      (n: number) => `${'</answer>'.repeat(n / 9)}<answer>x`,
      (t: string) => kit.answer(t),
    ],
    ['int: a huge number', (n: number) => '1'.repeat(n), (t: string) => kit.int(t)],
    ['list: many separators', (n: number) => 'a,'.repeat(n / 2), (t: string) => kit.list(t)],
    ['normalize: whitespace runs', (n: number) => ' \t a'.repeat(n / 4), (t: string) => kit.normalize(t)],
  ])(
    '%s stays linear: 16 times the input costs less than 96 times the time (quadratic work would cost 256; ' +
      'allocation and GC push linear work past 16)',
    (_name, make, read) => {
      const small = make(30_000);
      const big = make(480_000);
      expect(big.length / small.length).toBeCloseTo(16, 1);
      // The fastest of several rounds of 10 calls: the cost of the work, not of the machine's other load.
      const fastest = (text: string) => {
        let best = Infinity;
        for (let round = 0; round < 7; round++) {
          const started = performance.now();
          for (let i = 0; i < 10; i++) read(text);
          best = Math.min(best, performance.now() - started);
        }
        return Math.max(best, 0.05);
      };
      fastest(big); // warm-up
      expect(fastest(big) / fastest(small)).toBeLessThan(96);
    },
  );
});
