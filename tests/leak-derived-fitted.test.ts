// The arithmetic reader's fitted one-number relations and sums (redteam-st21 U1, U4), on plain samples: one printed
// number times a factor the prompt states in words or plus a fitted constant, and the sum of a run of printed numbers
// or of one line's numbers, are leaks where what they read is a printed intermediate of the prompt's other numbers (a
// subtotal of its lines); a lone "x with 8% tax", or one price among unrelated numbers (redteam-s17 F2), is the task.
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
/** Each line's total in cents of a receipt of 3-6 lines (quantity x price), varying in length. */
const totals = (i: number) => Array.from({ length: 3 + (i % 4) }, (_, k) => (((k + i) % 3) + 2) * cents(i + k, 3));
/** The receipt's lines, so no two-number relation holds. */
const receipt = (i: number) =>
  Array.from(
    { length: 3 + (i % 4) },
    (_, k) => `item ${String.fromCharCode(97 + k)}: ${((k + i) % 3) + 2} x ${money(cents(i + k, 3))}`,
  );
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
/** The receipt's total split over `m` departments (line k in department k mod m). */
const departments = (i: number, m: number) =>
  Array.from({ length: m }, (_, d) => sum(totals(i).filter((_, k) => k % m === d)));
const wins = (r: ReturnType<typeof pooled>) => (r?.rate ?? 0) - (r?.chance ?? 0);

describe('fitted one-number relations', () => {
  it('finds one printed number times a factor stated in words, and plus a constant stated in words', () => {
    const tax = pooled(
      samples((i) => [
        money(Math.round(sum(totals(i)) * 1.08)),
        [...receipt(i), `Receipt ${1000 + i * 37}, subtotal: ${money(sum(totals(i)))}`, 'Tax is eight percent.'].join(
          '\n',
        ),
      ]),
      ARITHMETIC,
    );
    expect(tax?.rule).toMatch(/1\.08 × the 1\. number from the end/);
    expect(wins(tax)).toBeGreaterThan(0.9);
    // Written another way: the subtotal first, a flat fee added.
    const fee = pooled(
      samples((i) => [
        money(sum(totals(i)) + 450),
        [
          `Subtotal ${money(sum(totals(i)))} on ticket ${i * 41 + 7}.`,
          ...receipt(i),
          'Delivery: four fifty flat.',
        ].join('\n'),
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

  it("leaves one price among unrelated printed numbers alone: the relation reads the task's own input (F2)", () => {
    // The same receipt and footer as above, but the subtotal is no sum of the lines: the lines are noise beside it.
    const task = pooled(
      samples((i) => [
        money(Math.round(cents(i) * 1.08)),
        [...receipt(i), `Receipt ${1000 + i * 37}, price: ${money(cents(i))}`, 'Tax is eight percent.'].join('\n'),
      ]),
      ARITHMETIC,
    );
    expect(task?.rule ?? '').not.toMatch(/1\.08 × the 1\. number from the end/);
    expect(wins(task)).toBeLessThan(0.3);
  });
});

describe('sums of a run of printed numbers and of one line', () => {
  it('finds the sum of the last three printed numbers and of a line of varying length', () => {
    const run = pooled(
      samples((i) => [
        money(sum(totals(i))),
        [...receipt(i), `Subtotals: ${departments(i, 3).map(money).join(', ')}`].join('\n'),
      ]),
      ARITHMETIC,
    );
    expect(run?.rule).toMatch(/the (sum of 3 numbers from the 3\. number from the end|numbers of the 1\. line)/);
    expect(wins(run)).toBeGreaterThan(0.9);
    const line = pooled(
      samples((i) => [
        money(sum(totals(i))),
        [
          ...receipt(i),
          `By department: ${departments(i, 2 + (i % 2))
            .map(money)
            .join(', ')}`,
          'The total?',
        ].join('\n'),
      ]),
      ARITHMETIC,
    );
    expect(line?.rule).toMatch(/the sum of the numbers of the 1\. line of two numbers or more from the end/);
    expect(wins(line)).toBeGreaterThan(0.9);
  });

  it('finds nothing where no run or line adds to the answer', () => {
    const honest = pooled(
      samples((i) => [
        money(sum(totals(i))),
        [...receipt(i), `Lines per department: food ${i % 4}, drinks ${(i * 3) % 5}, home ${(i * 7) % 3}`].join('\n'),
      ]),
      ARITHMETIC,
    );
    expect(wins(honest)).toBeLessThan(0.3);
  });
});
