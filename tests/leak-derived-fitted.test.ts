// The arithmetic reader's fitted one-number relations and sums (redteam-st21 U1, U4), on plain samples: one printed
// number times a factor the prompt states in words or plus a fitted constant, and the sum of a run of printed numbers
// or of one line's numbers, are leaks in prompts with more numbers than they read; a lone "x with 8% tax" is the task.
import { describe, expect, it } from 'vitest';
import { ARITHMETIC } from '../validators/leak-derived.js';
import type { ReaderSample } from '../validators/readers.js';
import { pooled } from './helpers/readers.js';

const cents = (i: number, k = 1) => 500 + ((i * 7919 * k) % 9000);
const money = (c: number) => (c / 100).toFixed(2);
/** Sixty samples over three levels, each an answer and its prompt. */
const samples = (make: (i: number) => [answer: string, prompt: string]): ReaderSample[] =>
  Array.from({ length: 60 }, (_, i) => {
    const [answer, prompt] = make(i);
    return { seed: i, level: 1 + (i % 3), reference: `<answer>${answer}</answer>`, instance: { prompt } };
  });
/** A receipt of 3-6 lines (quantity x price), varying in length so no two-number relation holds. */
const receipt = (i: number) =>
  Array.from(
    { length: 3 + (i % 4) },
    (_, k) => `item ${String.fromCharCode(97 + k)}: ${((k + i) % 3) + 2} x ${money(cents(i + k, 3))}`,
  );
const wins = (r: ReturnType<typeof pooled>) => (r?.rate ?? 0) - (r?.chance ?? 0);

describe('fitted one-number relations', () => {
  it('finds one printed number times a factor stated in words, and plus a constant stated in words', () => {
    const tax = pooled(
      samples((i) => [
        money(Math.round(cents(i) * 1.08)),
        [...receipt(i), `Receipt ${1000 + i * 37}, subtotal: ${money(cents(i))}`, 'Tax is eight percent.'].join('\n'),
      ]),
      ARITHMETIC,
    );
    expect(tax?.rule).toMatch(/1\.08 × the 1\. number from the end/);
    expect(wins(tax)).toBeGreaterThan(0.9);
    // Written another way: the subtotal first, a flat fee added.
    const fee = pooled(
      samples((i) => [
        money(cents(i) + 450),
        [`Subtotal ${money(cents(i))} on ticket ${i * 41 + 7}.`, ...receipt(i), 'Delivery: four fifty flat.'].join(
          '\n',
        ),
      ]),
      ARITHMETIC,
    );
    expect(fee?.rule).toMatch(/the 1\. number.* \+ 4\.5/);
    expect(wins(fee)).toBeGreaterThan(0.9);
  });

  it('leaves a lone "x with 8% tax" alone: the prompt holds no number the relation does not read', () => {
    const task = pooled(
      samples((i) => [money(Math.round(cents(i) * 1.08)), `An item costs $${money(cents(i))}. With 8% tax?`]),
      ARITHMETIC,
    );
    expect(task?.rule ?? '').not.toMatch(/1\.08 ×/);
    expect(wins(task)).toBeLessThan(0.3);
  });
});

describe('sums of a run of printed numbers and of one line', () => {
  it('finds the sum of the last three printed numbers and of a line of varying length', () => {
    const run = pooled(
      samples((i) => [
        money(cents(i) + cents(i, 2) + cents(i, 5)),
        [
          ...receipt(i),
          `Subtotals: food ${money(cents(i))}, drinks ${money(cents(i, 2))}, home ${money(cents(i, 5))}`,
        ].join('\n'),
      ]),
      ARITHMETIC,
    );
    expect(run?.rule).toMatch(/the (sum of 3 numbers from the 3\. number from the end|numbers of the 1\. line)/);
    expect(wins(run)).toBeGreaterThan(0.9);
    const parts = (i: number) => Array.from({ length: 2 + (i % 4) }, (_, k) => cents(i, k + 2));
    const line = pooled(
      samples((i) => [
        money(parts(i).reduce((a, b) => a + b, 0)),
        [...receipt(i), `By department: ${parts(i).map(money).join(', ')}`, 'The total?'].join('\n'),
      ]),
      ARITHMETIC,
    );
    expect(line?.rule).toMatch(/the sum of the numbers of the 1\. line of two numbers or more from the end/);
    expect(wins(line)).toBeGreaterThan(0.9);
  });

  it('finds nothing where no run or line adds to the answer', () => {
    const honest = pooled(
      samples((i) => [
        money(cents(i) + cents(i, 2) + cents(i, 5)),
        [...receipt(i), `Lines per department: food ${i % 4}, drinks ${(i * 3) % 5}, home ${(i * 7) % 3}`].join('\n'),
      ]),
      ARITHMETIC,
    );
    expect(wins(honest)).toBeLessThan(0.3);
  });
});
