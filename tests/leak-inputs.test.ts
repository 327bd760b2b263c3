// The test that tells a relation's own inputs from a printed intermediate (validators/leak-inputs.ts): a number drawn
// on its own in a prompt of fixed shape is the task's input; a subtotal of the lines, a signed balance of labelled
// entries, a count, or any read while the unread content grows with the level is a shortcut past the task.
import { describe, expect, it } from 'vitest';
import {
  DETERMINED,
  exactOnFew,
  FEW_READS,
  type InputSample,
  isTaskInputs,
  judgeInputs,
  MIN_READS,
  type Read,
} from '../validators/leak-inputs.js';
import { numberLabels, promptNumbers } from '../validators/prompt-numbers.js';

const noise = (i: number, k: number) => ((i + 3) * 7919 * (k + 5)) % 997;
/** Eighty samples over four levels: the prompt's lines from `lines`, then the read number alone on the last line. */
function samples(
  lines: (i: number, level: number) => string[],
  read: (i: number, lines: string[]) => number,
): InputSample[] {
  return Array.from({ length: 80 }, (_, i) => {
    const level = 1 + (i % 4);
    const body = lines(i, level);
    const prompt = [...body, `total ${read(i, body)}`].join('\n');
    const nums = promptNumbers(prompt);
    const lineOf = prompt.split('\n').flatMap((l, k) => promptNumbers(l).map(() => k));
    return { level, nums, lineOf, labels: numberLabels(prompt), prompt };
  });
}
const last =
  (s: InputSample[]) =>
  (i: number): Read => ({
    indices: [(s[i] as InputSample).nums.length - 1],
    value: (s[i] as InputSample).nums.at(-1) as number,
  });
/** 3-7 lines of two numbers each, as many at every level. */
const rows = (i: number) =>
  Array.from({ length: 3 + (i % 5) }, (_, k) => `${1 + (noise(i, k) % 9)} x ${noise(i, k + 20)}`);
const numbersOf = (lines: string[]) => lines.map((l) => promptNumbers(l));

describe('judgeInputs', () => {
  it('reads a number drawn on its own, in a prompt whose shape does not grow, as the task', () => {
    const s = samples(rows, (i) => noise(i, 99) + 1000);
    expect(isTaskInputs(s, last(s))).toBe(true);
  });

  it('judges nothing, and reads nothing, for a relation paid on fewer instances than FEW_READS', () => {
    const count = samples(rows, (_, l) => l.length * 10 + 1);
    expect(isTaskInputs(count, last(count))).toBe(false);
    let read = 0;
    const few = count.slice(0, FEW_READS - 1);
    expect(isTaskInputs(few, (i) => (read++, last(few)(i)))).toBe(true);
    expect(read).toBe(0);
  });

  // rt28s N2: a leak confined to one store in eight pays about 25 instances; exact there, it is as sure as 40 reads.
  it('reads a relation the unread numbers fix exactly as a shortcut on fewer than MIN_READS reads', () => {
    const column = samples(rows, (_, l) => numbersOf(l).reduce((a, [, y]) => a + (y as number), 0));
    const few = column.slice(0, FEW_READS + 4);
    expect(few.length).toBeLessThan(MIN_READS);
    expect(isTaskInputs(few, last(few))).toBe(false);
    const own = samples(rows, (i) => noise(i, 99) + 1000).slice(0, FEW_READS + 4);
    expect(isTaskInputs(own, last(own))).toBe(true);
    // 25 reads over eight levels, three or four a level: the folds alternate across levels, 13 and 12 reads.
    const spread = column.slice(0, FEW_READS + 1).map((s, i) => ({ ...s, level: 1 + (i % 8) }));
    expect(isTaskInputs(spread, last(spread))).toBe(false);
  });

  it('asks a fit on few reads to be exact beyond their noise, and a looser fit for MIN_READS', () => {
    expect(exactOnFew(1, FEW_READS)).toBe(true);
    expect(exactOnFew(0.95, MIN_READS - 1)).toBe(true);
    expect(exactOnFew(DETERMINED + 0.01, MIN_READS - 1)).toBe(false);
    expect(exactOnFew(0.95, FEW_READS)).toBe(false);
  });

  it('reads a subtotal of the lines, a sum of a column and a count as determined by the unread numbers', () => {
    const products = samples(rows, (_, l) => numbersOf(l).reduce((a, [x, y]) => a + (x as number) * (y as number), 0));
    expect(judgeInputs(products, last(products)).determined).toBeGreaterThan(0.9);
    const column = samples(rows, (_, l) => numbersOf(l).reduce((a, [, y]) => a + (y as number), 0));
    expect(judgeInputs(column, last(column)).determined).toBeGreaterThan(0.9);
    const count = samples(rows, (_, l) => l.length * 10 + 1);
    expect(isTaskInputs(count, last(count))).toBe(false);
  });

  it('fits a signed balance of labelled entries, whose rank moves with no plain aggregate (rt24 S1)', () => {
    const ledger = (i: number) => {
      const entries = Array.from({ length: 6 }, (_, k) => [
        `- deposit ${noise(i, k)}`,
        `- withdrawal ${noise(i, k + 9)}`,
      ]);
      return [
        `opening balance: ${2000 + (noise(i, 40) % 50)}`,
        ...entries.flat().sort((a, b) => noise(i, a.length) - noise(i, b.length)),
      ];
    };
    const balance = samples(ledger, (_, l) =>
      l.reduce((a, line) => a + (promptNumbers(line)[0] as number) * (line.includes('withdrawal') ? -1 : 1), 0),
    );
    const j = judgeInputs(balance, last(balance));
    expect(j.determined).toBeGreaterThan(0.9);
    expect(j.growth).toBeLessThan(0.5);
  });

  // Growth alone is no evidence (fixgate, session 20): distractors that grow with the level beside a number drawn on
  // its own leave it the task's input; a number that follows the growing content's size is a shortcut past it.
  it('reads a number drawn on its own as the task where only the unread content grows with the level', () => {
    const growing = samples(
      (i, level) => rows(i).slice(0, 1 + level),
      (i) => noise(i, 99) + 1000,
    );
    const j = judgeInputs(growing, last(growing));
    expect(j.determined).toBeLessThan(0.5);
    expect(j.growth).toBeGreaterThan(0.5);
    expect(j.covaries).toBeLessThan(0.3);
    expect(isTaskInputs(growing, last(growing))).toBe(true);
  });

  it('reads a number that follows the growing content as a shortcut', () => {
    // The count of the unread numbers over 500 (not a fitted aggregate), printed with noise: it moves with the rows.
    const over = (l: string[]) =>
      numbersOf(l)
        .flat()
        .filter((x) => x > 500).length;
    const growing = samples(
      (i, level) => rows(i).slice(0, 1 + level + (i % 3)),
      (i, l) => 7 * over(l) + (noise(i, 99) % 9),
    );
    const j = judgeInputs(growing, last(growing));
    expect(j.growth).toBeGreaterThan(0.5);
    expect(j.covaries).toBeGreaterThan(0.3);
    expect(isTaskInputs(growing, last(growing))).toBe(false);
  });
});
