// The candidates of the constant policy at one level: the references of the instances it is fitted on
// (most common first), the variants of them the verifier accepted on their own instance (another valid
// order or rendering), where answers are words their short forms crossed with case (surfaceForms), and
// where answers are numbers a few small constants: the search looks for the best answer a policy could fix
// on, not the most common reference.
import { answerContent } from '../sandbox/answer.js';
import { normalizeAnswer, shapeOf } from './answers.js';

/** Small numbers a policy may answer without reading, where the answers are numbers. */
export const SMALL_CONSTANTS = ['0', '1', '-1', '2', '10', '100', '1e6'];

/**
 * Short forms of word answers a policy may fix on: each reference's first one and two letters in upper and lower case.
 */
const SURFACE_FORMS = 4;

/**
 * The case × truncation forms of word references (`contents`), single letters first, each length by how many
 * references it begins: a verifier whose comparison depends on case (capitals read as an abbreviation, as a
 * prefix) pays one of them on more instances than any reference does.
 */
export function surfaceForms(contents: readonly string[]): string[] {
  const words = contents.map((c) => c.trim()).filter((c) => /^\p{L}{2,}$/u.test(c));
  if (words.length < 0.8 * Math.max(1, contents.length)) return [];
  const begins = new Map<string, number>();
  for (const w of words)
    for (const n of [1, 2])
      if (w.length > n)
        for (const f of [w.slice(0, n).toUpperCase(), w.slice(0, n).toLowerCase()])
          begins.set(f, (begins.get(f) ?? 0) + 1);
  return [...begins]
    .sort((a, b) => a[0].length - b[0].length || b[1] - a[1])
    .map(([f]) => f)
    .slice(0, SURFACE_FORMS);
}

/**
 * At most `max` distinct contents: references by frequency, then accepted variants, then short forms of word answers,
 * then small constants.
 */
export function constantCandidates(
  fit: ReadonlyArray<{ reference: string }>,
  variants: readonly string[],
  max: number,
): string[] {
  const contents = fit.map((e) => answerContent(e.reference));
  const counts = new Map<string, { content: string; n: number; first: number }>();
  contents.forEach((c, i) => {
    const key = normalizeAnswer(c);
    const entry = counts.get(key) ?? { content: c.trim(), n: 0, first: i };
    entry.n++;
    counts.set(key, entry);
  });
  const references = [...counts.values()].sort((a, b) => b.n - a.n || a.first - b.first).map((x) => x.content);
  const numeric =
    contents.filter((c) => {
      const k = shapeOf(c).kind;
      return k === 'integer' || k === 'number';
    }).length >=
    0.8 * Math.max(1, contents.length);
  const out: string[] = [];
  const seen = new Set<string>();
  const add = (c: string) => {
    const key = normalizeAnswer(c);
    if (out.length < max && key && !seen.has(key)) {
      seen.add(key);
      out.push(c);
    }
  };
  // Room is kept for variants and constants: a level of all-distinct references fills the rest.
  for (const c of references.slice(0, Math.max(1, max - 8))) add(c);
  for (const c of variants.slice(0, 4)) add(c);
  if (!numeric) for (const c of surfaceForms(contents)) add(c);
  if (numeric) for (const c of SMALL_CONSTANTS.slice(0, 4)) add(c);
  for (const c of references) add(c);
  return out;
}
