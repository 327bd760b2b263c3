// The candidates of the constant policy at one level: the references of the instances it is fitted on
// (most common first), the variants of them the verifier accepted on their own instance (another valid
// order or rendering) and, where answers are numbers, a few small constants: the search looks for the
// best answer a policy could fix on, not the most common reference.
import { answerContent } from '../sandbox/answer.js';
import { normalizeAnswer, shapeOf } from './answers.js';

/** Small numbers a policy may answer without reading, where the answers are numbers. */
export const SMALL_CONSTANTS = ['0', '1', '-1', '2', '10', '100', '1e6'];

/** At most `max` distinct contents: references by frequency, then accepted variants, then small constants. */
export function constantCandidates(fit: ReadonlyArray<{ reference: string }>, variants: readonly string[], max: number): string[] {
  const contents = fit.map((e) => answerContent(e.reference));
  const counts = new Map<string, { content: string; n: number; first: number }>();
  contents.forEach((c, i) => {
    const key = normalizeAnswer(c);
    const entry = counts.get(key) ?? { content: c.trim(), n: 0, first: i };
    entry.n++;
    counts.set(key, entry);
  });
  const references = [...counts.values()].sort((a, b) => b.n - a.n || a.first - b.first).map((x) => x.content);
  const numeric = contents.filter((c) => {
    const k = shapeOf(c).kind;
    return k === 'integer' || k === 'number';
  }).length >= 0.8 * Math.max(1, contents.length);
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
  if (numeric) for (const c of SMALL_CONSTANTS.slice(0, 4)) add(c);
  for (const c of references) add(c);
  return out;
}
