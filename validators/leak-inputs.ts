// Whether a relation of printed numbers is the task itself or a shortcut past it: a relation is a shortcut only where
// what it reads stands for work the task asks for, i.e. the numbers it reads (or its value, the answer) move with the
// prompt's other content (the numbers it leaves unread, their line products and column sums, the prompt's length), as
// a printed subtotal moves with its lines; where they move with nothing else the prompt holds, they are the task's
// own inputs and the relation is the whole task (a difficulty question, not a leak).

/** One instance as this test sees it: its level, its numbers, the line each number sits on and its prompt. */
export interface InputSample {
  level: number;
  nums: readonly number[];
  /** The prompt line of each of `nums` (same length), or empty where it could not be told. */
  lineOf: readonly number[];
  prompt: string;
}

/** What a relation reads on one instance: the indices of `nums` and the relation's value there. */
export interface Read {
  indices: readonly number[];
  value: number;
}

/** Rank correlation at or above which a read number counts as moving with the prompt's other content. */
export const DEPENDENCE = 0.5;
/** Instances with a value and a feature below which a correlation is not read. */
const MIN_PAIRS = 12;
/** The unread numbers at places from the start and the end that are features of their own. */
const PLACES = 4;

/** The prompt's text features (no digits: a read number's own width must not move them). */
function textFeatures(prompt: string): number[] {
  const text = prompt.slice(0, 50_000);
  return [text.split('\n').length, (text.match(/[A-Za-z]+/g) ?? []).length, (text.match(/[A-Za-z]/g) ?? []).length];
}

/** Cheap aggregates of the numbers a relation leaves unread (undefined where a place is missing). */
function unreadFeatures(s: InputSample, read: ReadonlySet<number>): Array<number | undefined> {
  const unread = s.nums.filter((_, i) => !read.has(i));
  const byLine = new Map<number, number[]>();
  if (s.lineOf.length === s.nums.length)
    s.nums.forEach((x, i) => {
      if (read.has(i)) return;
      const line = s.lineOf[i] as number;
      byLine.set(line, [...(byLine.get(line) ?? []), x]);
    });
  const rows = [...byLine.values()].filter((r) => r.length >= 2);
  const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);
  const column = (k: number) => sum(rows.map((r) => (k < 0 ? (r[r.length - 1] as number) : (r[k] ?? 0))));
  return [
    unread.length,
    sum(unread),
    sum(rows.map((r) => r.reduce((a, b) => a * b, 1))),
    sum(rows.map(sum)),
    column(0),
    column(1),
    column(2),
    column(-1),
    ...Array.from({ length: PLACES }, (_, k) => unread[k]),
    ...Array.from({ length: PLACES }, (_, k) => unread[unread.length - 1 - k]),
  ];
}

/** Each value's rank within its level, as a share (ties share their mean rank). */
function levelRanks(values: ReadonlyArray<number | undefined>, levels: readonly number[]): Array<number | undefined> {
  const out: Array<number | undefined> = values.map(() => undefined);
  for (const level of new Set(levels)) {
    const at = values.flatMap((v, i) => (levels[i] === level && v !== undefined && Number.isFinite(v) ? [i] : []));
    at.sort((i, j) => (values[i] as number) - (values[j] as number));
    for (let k = 0; k < at.length; ) {
      let e = k;
      while (e + 1 < at.length && values[at[e + 1] as number] === values[at[k] as number]) e++;
      for (let t = k; t <= e; t++) out[at[t] as number] = (k + e) / 2 / Math.max(1, at.length - 1);
      k = e + 1;
    }
  }
  return out;
}

/** Pearson correlation of the pairs both lists hold; 0 where too few or one side is constant. */
function correlation(x: ReadonlyArray<number | undefined>, y: ReadonlyArray<number | undefined>): number {
  const pairs = x.flatMap((a, i) => (a !== undefined && y[i] !== undefined ? [[a, y[i] as number]] : []));
  if (pairs.length < MIN_PAIRS) return 0;
  const mean = (k: 0 | 1) => pairs.reduce((s, p) => s + (p[k] as number), 0) / pairs.length;
  const [mx, my] = [mean(0), mean(1)];
  let [sxy, sxx, syy] = [0, 0, 0];
  for (const [a, b] of pairs) {
    sxy += ((a as number) - mx) * ((b as number) - my);
    sxx += ((a as number) - mx) ** 2;
    syy += ((b as number) - my) ** 2;
  }
  return sxx > 1e-12 && syy > 1e-12 ? sxy / Math.sqrt(sxx * syy) : 0;
}

/**
 * The strongest within-level rank correlation between what a relation reads (each read number, and its value) and
 * the rest of the prompt (its unread numbers' aggregates, its length): near 0 where the relation reads the task's own
 * inputs, near 1 where it reads a printed intermediate of the prompt's other numbers.
 */
export function readDependence(samples: readonly InputSample[], readOf: (i: number) => Read | undefined): number {
  const reads = samples.map((_, i) => readOf(i));
  const levels = samples.map((s) => s.level);
  const width = Math.max(0, ...reads.map((r) => r?.indices.length ?? 0));
  const quantities = [
    reads.map((r) => r?.value),
    ...Array.from({ length: width }, (_, k) =>
      reads.map((r, i) => (r && k < r.indices.length ? samples[i]?.nums[r.indices[k] as number] : undefined)),
    ),
  ].map((q) => levelRanks(q, levels));
  const rows = samples.map((s, i) => {
    const r = reads[i];
    return r ? [...unreadFeatures(s, new Set(r.indices)), ...textFeatures(s.prompt)] : [];
  });
  const count = Math.max(0, ...rows.map((r) => r.length));
  let top = 0;
  for (let f = 0; f < count; f++) {
    const feature = levelRanks(
      rows.map((r) => r[f]),
      levels,
    );
    for (const q of quantities) top = Math.max(top, Math.abs(correlation(q, feature)));
  }
  return top;
}
