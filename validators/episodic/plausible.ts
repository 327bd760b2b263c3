// The values an unconfirmed integer argument is searched at first (redteam-trust21 R1): the numbers the entity's
// texts and records show, the decided entities' own values, and the whole results of two or three of the shown numbers
// combined (a quotient of a difference: (prepaid - deposit) / rate), whatever the schema's range, the simplest first.
import { shownValues } from './derived.js';

/** Plausible values per argument at most: each is a replay of its own (arg-search.ts). */
export const PLAUSIBLE = 24;
/** Shown numbers combined at most (their first ones), so the triples stay few. */
const NUMBERS = 8;

const OPS = [(x: number, y: number) => x - y, (x: number, y: number) => x + y, (x: number, y: number) => x * y];
const apply = (x: number, y: number): number[] => [...OPS.map((f) => f(x, y)), ...(y !== 0 ? [x / y] : [])];

/**
 * The integers in [lo, hi] the texts make plausible, in order: `given` (the decided entities' values), the numbers
 * shown, each of two combined (−, +, ×, ÷), each of three ((x ∘ y) ∘ z); at most PLAUSIBLE, no value twice.
 */
export function plausibleValues(texts: readonly string[], given: readonly number[], lo: number, hi: number): number[] {
  const shown = [...shownValues(texts)].filter(([k]) => k.startsWith('n')).map(([, v]) => v);
  const numbers = shown.filter((v, j) => shown.indexOf(v) === j).slice(0, NUMBERS);
  const pairs = numbers.flatMap((x, i) => numbers.flatMap((y, j) => (i === j ? [] : apply(x, y))));
  const triples = numbers.flatMap((x, i) =>
    numbers.flatMap((y, j) =>
      i === j ? [] : apply(x, y).flatMap((xy) => numbers.flatMap((z, k) => (k === i || k === j ? [] : apply(xy, z)))),
    ),
  );
  const out: number[] = [];
  for (const v of [...given, ...numbers, ...pairs, ...triples]) {
    const x = Math.round(v * 1e9) / 1e9;
    if (Number.isInteger(x) && x >= lo && x <= hi && !out.includes(x)) out.push(x);
    if (out.length >= PLAUSIBLE) break;
  }
  return out;
}
