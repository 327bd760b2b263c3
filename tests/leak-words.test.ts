// Numbers in words read as numbers by the leak rules (validators/leak-words.ts, leak-derived.ts): a cheque
// written out beside an invoice leaks its total; a task that asks to convert the words does not.
import { describe, expect, it } from 'vitest';
import type { Episode } from '../sandbox/episodes.js';
import { numberWords } from '../validators/leak.js';
import { ARITHMETIC } from '../validators/leak-derived.js';
import { pooled } from './helpers/readers.js';
import { asksToConvertWords, wordNumbers } from '../validators/leak-words.js';

const episode = (answer: number, prompt: string, seed: number, level: number): Episode =>
  ({
    ok: true,
    seed,
    level,
    instance: { prompt },
    reference: `<answer>${answer}</answer>`,
    referenceVerdict: { ok: true, score: 1 },
    verdicts: [],
    ms: [0, 0, 0],
  }) as Episode;
/** Cheque-style words, with "and" after the hundreds as cheques write them. */
const cheque = (n: number) => numberWords(n).replace(/hundred (?=\w)/, 'hundred and ');

describe('wordNumbers', () => {
  it('reads spans of number words with scales, hyphens and "and", and leaves single words and prose alone', () => {
    expect(wordNumbers('it reads "four thousand two hundred and seven dollars only"')).toEqual([4207]);
    expect(wordNumbers('one hundred and twelve thousand three hundred forty-five, then twenty-one')).toEqual([
      112345, 21,
    ]);
    expect(wordNumbers('one of the two items, and three more')).toEqual([]);
    expect(wordNumbers('two three')).toEqual([]);
  });

  it('reads every number the leak encoder writes, up to millions', () => {
    for (const n of [21, 99, 100, 101, 999, 1_000, 4_207, 65_536, 1_234_567])
      expect(wordNumbers(`pay ${cheque(n)} now`)).toEqual([n]);
  });

  it('tells a task that converts words from one that only carries them', () => {
    expect(asksToConvertWords('Write "four hundred and two" in digits.')).toBe(true);
    expect(asksToConvertWords('Give the number spelled out below as a numeral.')).toBe(true);
    expect(asksToConvertWords('The cheque reads "four hundred and two dollars". Compute the amount due.')).toBe(false);
  });
});

describe('the arithmetic reader over number words', () => {
  const sample = (make: (answer: number, i: number) => string) =>
    Array.from({ length: 60 }, (_, i) => {
      const a = 100 + ((i * 7919) % 9_000);
      return episode(a, make(a, i), i, 1 + (i % 3));
    });

  it('finds an answer written in words beside the inputs', () => {
    const leak = pooled(
      sample(
        (a, i) =>
          `Lines: ${i + 2} x $${a - i - 2}, 1 x $${i + 2}. The cheque reads "${cheque(a)} dollars only". ` +
          `Compute the amount due.`,
      ),
      ARITHMETIC,
    );
    expect(leak?.rule).toMatch(/in words/);
    expect(leak?.rate).toBe(1);
  });

  it('leaves a task that asks for the words as digits', () => {
    const leak = pooled(
      sample((a) => `Write "${cheque(a)}" in digits.`),
      ARITHMETIC,
    );
    expect(leak?.rate).toBe(0);
  });
});
