// Whether a value a reply shows is the agent's work done for it: a relation of another number the same reply shows
// and a number the task's texts state (a $15 fee, a 15% rate, 85 cents on the dollar) reproduces the shown value,
// fitted on half the episodes and judged on the other half. A value with no such relation to what else is shown is a
// lookup (an amount due, an issued ticket number), whatever words the texts use and wherever the world keeps it.
import { near, ROUNDINGS, rounded, type Rounding } from './derived.js';

/** One copied value: its episode, the numbers of the reply it was read from, where it stands there, what is stated. */
export interface ShownSample {
  episode: number;
  value: number;
  shown: readonly number[];
  at: number;
  stated: readonly number[];
}

/** A relation of the reply's number at `place` (from the end) and a stated number `c`, rounded or not. */
interface ShownRelation {
  place: number;
  op: keyof typeof OPS;
  c: number;
  round?: Rounding;
}

const OPS = {
  '-': (x: number, c: number) => x - c,
  '+': (x: number, c: number) => x + c,
  'c-': (x: number, c: number) => c - x,
  '*': (x: number, c: number) => x * c,
  '/': (x: number, c: number) => x / c,
  '%': (x: number, c: number) => (x * c) / 100,
  '%less': (x: number, c: number) => (x * (100 - c)) / 100,
  '%more': (x: number, c: number) => (x * (100 + c)) / 100,
};
/** A stated number that makes an operation the identity (add 0, times 1, 100%) relates nothing. */
const trivial = (op: ShownRelation['op'], c: number) =>
  c === 0 ||
  ((op === '*' || op === '/') && c === 1) ||
  (op === '%' && c === 100) ||
  ((op === '%less' || op === '%more') && c === 100);

/** Whether the sample tells anything: its value is not also another number of the reply (a restated figure). */
const informative = (s: ShownSample) => !s.shown.some((x, k) => k !== s.at && near(x, s.value));

const holds = (rel: ShownRelation, s: ShownSample): boolean => {
  const k = s.shown.length - 1 - rel.place;
  const x = s.shown[k];
  if (x === undefined || k === s.at || !s.stated.includes(rel.c)) return false;
  return near(rounded(OPS[rel.op](x, rel.c), rel.round), s.value);
};

/** Every relation by which `s`'s value follows from another of its reply's numbers and one of its stated numbers. */
function relationsOf(s: ShownSample): ShownRelation[] {
  const out: ShownRelation[] = [];
  s.shown.forEach((x, k) => {
    if (k === s.at) return;
    for (const c of new Set(s.stated))
      for (const op of Object.keys(OPS) as ShownRelation['op'][]) {
        if (trivial(op, c)) continue;
        const exact = OPS[op](x, c);
        for (const round of [undefined, ...ROUNDINGS])
          if (near(rounded(exact, round), s.value))
            out.push({ place: s.shown.length - 1 - k, op, c, ...(round ? { round } : {}) });
      }
  });
  return out;
}

/** The relation that reproduces the most samples of `fold` (null where none reproduces two). */
function fit(fold: readonly ShownSample[]): ShownRelation | null {
  const counts = new Map<string, { rel: ShownRelation; n: number }>();
  for (const s of fold)
    for (const rel of relationsOf(s)) {
      const key = JSON.stringify(rel);
      counts.set(key, { rel, n: (counts.get(key)?.n ?? 0) + 1 });
    }
  const best = [...counts.values()].sort((a, b) => b.n - a.n)[0];
  return best && best.n >= 2 ? best.rel : null;
}

/**
 * Whether the samples' values are derived from what their replies show: the relation fitted on the even episodes
 * reproduces at least half of the odd episodes' informative samples, and the one fitted on the odd the even's.
 */
export function derivedFromShown(samples: readonly ShownSample[]): boolean {
  const useful = samples.filter(informative);
  const folds = [0, 1].map((f) => useful.filter((s) => s.episode % 2 === f));
  return folds.every((held, f) => {
    const rel = fit(folds[1 - f] as ShownSample[]);
    return rel !== null && held.length > 0 && held.filter((s) => holds(rel, s)).length * 2 >= held.length;
  });
}
