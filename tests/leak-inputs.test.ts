// The test that tells a relation's own inputs from a printed intermediate (validators/leak-inputs.ts): a number that
// moves with nothing else the prompt holds reads near 0, a subtotal of the prompt's lines or a count near 1.
import { describe, expect, it } from 'vitest';
import { type InputSample, readDependence } from '../validators/leak-inputs.js';

const noise = (i: number, k: number) => ((i + 3) * 7919 * (k + 5)) % 997;
/** Eighty samples over four levels: `lines` lines of two numbers each, then the read number alone on the last line. */
function samples(read: (i: number, rows: number[][]) => number): InputSample[] {
  return Array.from({ length: 80 }, (_, i) => {
    const rows = Array.from({ length: 3 + (i % 5) }, (_, k) => [1 + (noise(i, k) % 9), noise(i, k + 20)]);
    const x = read(i, rows);
    const nums = [...rows.flat(), x];
    const lineOf = [...rows.flatMap((_, k) => [k, k]), rows.length];
    const prompt = [...rows.map((r) => `${r[0]} x ${r[1]}`), `total ${x}`].join('\n');
    return { level: 1 + (i % 4), nums, lineOf, prompt };
  });
}
const last = (s: InputSample[]) => (i: number) => ({
  indices: [(s[i] as InputSample).nums.length - 1],
  value: (s[i] as InputSample).nums.at(-1) as number,
});

describe('readDependence', () => {
  it('reads a number drawn on its own as an input (near 0)', () => {
    const s = samples((i) => noise(i, 99) + 1000);
    expect(readDependence(s, last(s))).toBeLessThan(0.4);
  });

  it('reads a printed subtotal of the lines, a sum of a column and a count as intermediates (near 1)', () => {
    const products = samples((_, rows) => rows.reduce((a, r) => a + (r[0] as number) * (r[1] as number), 0));
    expect(readDependence(products, last(products))).toBeGreaterThan(0.9);
    const column = samples((_, rows) => rows.reduce((a, r) => a + (r[1] as number), 0));
    expect(readDependence(column, last(column))).toBeGreaterThan(0.9);
    const count = samples((_, rows) => rows.length * 10 + 1);
    expect(readDependence(count, last(count))).toBeGreaterThan(0.9);
  });
});
