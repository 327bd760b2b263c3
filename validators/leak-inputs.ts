// Whether a relation of printed numbers is the task itself or a shortcut past it, by what the sandbox observes: a
// leak when (a) what it reads is determined by what it leaves unread (held-out least squares over the unread numbers'
// labelled sums, aggregates and the prompt's structure, its groups' sizes too; or held-out rank dependence), or (b) the
// unread content grows with the level AND the reads co-vary with its size within a level. Growth alone is difficulty
// (distractors), no evidence. Otherwise it reads the task's own inputs and is the task, whatever the count of numbers.
// On fewer than MIN_READS reads only (a)'s fit is read, and only a fit exact beyond those reads' noise is a leak.
import { promptStructure } from './prompt-numbers.js';

/** One instance as this test sees it: its level, its numbers, the line and the label of each number, its prompt. */
export interface InputSample {
  level: number;
  nums: readonly number[];
  /** The prompt line of each of `nums` (same length), or empty where it could not be told. */
  lineOf: readonly number[];
  /** The labels of each of `nums` (prompt-numbers.ts: its unit, the word before it, its line's words), or empty. */
  labels: ReadonlyArray<readonly string[]>;
  prompt: string;
}

/** What a relation reads on one instance: the indices of `nums` and the relation's value there. */
export interface Read {
  indices: readonly number[];
  value: number;
}

/** Held-out share of a read quantity's within-level variance the unread content explains: determined at or above. */
export const DETERMINED = 0.9;
/** Held-out within-level rank correlation with the unread content at or above which a read quantity moves with it. */
export const DEPENDENCE = 0.5;
/** Rank correlation of the unread content's size with the level at or above which the content grows (with a margin). */
export const GROWTH = 0.5;
/** Held-out within-level rank correlation of a read quantity with the unread content's size at or above which the
 * reads follow the growing content (b): weaker than DEPENDENCE, as it counts only together with growth. */
export const COVARIES = 0.3;
/** Reads below which a relation is judged by exactness alone (`exactOnFew`), and the z a rank dependence must reach
 * over the noise of that many pairs (a held-out correlation's spread is 1/√n): a few instances show no dependence. */
export const MIN_READS = 40;
const NOISE_Z = 4;
/** Instances with a value and a feature below which a correlation or a fit is not read. */
const MIN_PAIRS = 12;
/** Reads below which nothing is judged (the relation is the task): two folds of MIN_PAIRS, the fewest a fit reads. */
export const FEW_READS = 2 * MIN_PAIRS;
/** The unread numbers at places from the start and the end that are features of their own. */
const PLACES = 4;
/** Labels whose unread numbers' sum is a feature of its own (those most instances print), and the fit's size. */
const LABELS = 24;
const TERMS = 3;

type Column = Array<number | undefined>;
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** Per sample, once (every relation tried reads them): its structure, and the indices of its numbers by label. */
const perSample = new WeakMap<InputSample, { structure: number[]; byLabel: Map<string, number[]> }>();
function known(s: InputSample) {
  let k = perSample.get(s);
  if (!k) {
    const byLabel = new Map<string, number[]>();
    s.labels.forEach((ls, i) => {
      for (const l of ls) byLabel.set(l, [...(byLabel.get(l) ?? []), i]);
    });
    k = { structure: promptStructure(s.prompt), byLabel };
    perSample.set(s, k);
  }
  return k;
}

/** Aggregates of the numbers a relation leaves unread: count, sums (all, by label, by line, by column), places. */
function unreadFeatures(s: InputSample, read: ReadonlySet<number>, labels: readonly string[]): Column {
  const unread = s.nums.filter((_, i) => !read.has(i));
  const byLine = new Map<number, number[]>();
  if (s.lineOf.length === s.nums.length)
    s.nums.forEach((x, i) => {
      if (!read.has(i)) byLine.set(s.lineOf[i] as number, [...(byLine.get(s.lineOf[i] as number) ?? []), x]);
    });
  const rows = [...byLine.values()].filter((r) => r.length >= 2);
  const column = (k: number) => sum(rows.map((r) => (k < 0 ? (r[r.length - 1] as number) : (r[k] ?? 0))));
  const labelled = (label: string) =>
    s.labels.length === s.nums.length
      ? sum((known(s).byLabel.get(label) ?? []).filter((i) => !read.has(i)).map((i) => s.nums[i] as number))
      : undefined;
  return [
    unread.length,
    s.nums.length,
    sum(unread),
    sum(rows.map((r) => r.reduce((a, b) => a * b, 1))),
    sum(rows.map(sum)),
    ...[0, 1, 2, -1].map(column),
    ...labels.map(labelled),
    ...Array.from({ length: PLACES }, (_, k) => unread[k]),
    ...Array.from({ length: PLACES }, (_, k) => unread[unread.length - 1 - k]),
    ...known(s).structure,
  ];
}

/** The labels most instances print (in at least half of them), at most LABELS of them. */
function commonLabels(samples: readonly InputSample[]): string[] {
  const seen = new Map<string, number>();
  for (const s of samples) for (const l of new Set(s.labels.flat())) seen.set(l, (seen.get(l) ?? 0) + 1);
  return [...seen]
    .filter(([, n]) => 2 * n >= samples.length)
    .sort((x, y) => y[1] - x[1])
    .slice(0, LABELS)
    .map(([l]) => l);
}

/** Each value's rank within its level, as a share (ties share their mean rank). */
function levelRanks(values: Column, levels: readonly number[]): Column {
  const out: Column = values.map(() => undefined);
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

/** Pearson correlation of the pairs both lists hold among `at`, and their count; 0 where too few or one is constant. */
function correlation(x: Column, y: Column, at: readonly number[]): number {
  return paired(x, y, at)[0];
}
function paired(x: Column, y: Column, at: readonly number[]): [r: number, pairs: number] {
  const pairs = at.flatMap((i) => (x[i] !== undefined && y[i] !== undefined ? [[x[i], y[i]] as [number, number]] : []));
  if (pairs.length < MIN_PAIRS) return [0, pairs.length];
  const mx = sum(pairs.map((p) => p[0])) / pairs.length;
  const my = sum(pairs.map((p) => p[1])) / pairs.length;
  let [sxy, sxx, syy] = [0, 0, 0];
  for (const [a, b] of pairs) [sxy, sxx, syy] = [sxy + (a - mx) * (b - my), sxx + (a - mx) ** 2, syy + (b - my) ** 2];
  return [sxx > 1e-12 && syy > 1e-12 ? sxy / Math.sqrt(sxx * syy) : 0, pairs.length];
}

/** `values` less their level's mean over `at` (undefined where missing): what varies within a level. */
function withinLevel(values: Column, levels: readonly number[], at: readonly number[]): Column {
  const out: Column = values.map(() => undefined);
  for (const level of new Set(at.map((i) => levels[i]))) {
    const group = at.filter((i) => levels[i] === level && values[i] !== undefined && Number.isFinite(values[i]));
    const mean = sum(group.map((i) => values[i] as number)) / Math.max(1, group.length);
    for (const i of group) out[i] = (values[i] as number) - mean;
  }
  return out;
}

/** Least squares of `y` on the columns `cols` (within-level values, no intercept needed) over `at`: the weights. */
function leastSquares(y: Column, cols: readonly Column[], at: readonly number[]): number[] | undefined {
  const k = cols.length;
  const a = Array.from({ length: k }, (_, r) => [
    ...cols.map((c) => sum(at.map((i) => (cols[r]?.[i] as number) * (c[i] as number)))),
    sum(at.map((i) => (cols[r]?.[i] as number) * (y[i] as number))),
  ]);
  for (let r = 0; r < k; r++) (a[r] as number[])[r] = ((a[r] as number[])[r] as number) * (1 + 1e-9) + 1e-12;
  for (let c = 0; c < k; c++) {
    const p = a
      .slice(c)
      .reduce((best, row, r) => (Math.abs(row[c] as number) > Math.abs(a[best]?.[c] as number) ? c + r : best), c);
    [a[c], a[p]] = [a[p] as number[], a[c] as number[]];
    const pivot = (a[c] as number[])[c] as number;
    if (Math.abs(pivot) < 1e-300) return undefined;
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const f = ((a[r] as number[])[c] as number) / pivot;
      for (let j = c; j <= k; j++)
        (a[r] as number[])[j] = ((a[r] as number[])[j] as number) - f * ((a[c] as number[])[j] as number);
    }
  }
  return a.map((row, r) => (row[k] as number) / (row[r] as number));
}

/**
 * The held-out share of `y`'s within-level variance a fit of up to TERMS features explains: the features chosen
 * forward on one fold and weighted there, judged on the other; the mean over the two folds, 0 where too few.
 */
function heldOutFit(
  y: Column,
  features: readonly Column[],
  levels: readonly number[],
  fold: readonly number[],
): number {
  const scores = [0, 1].map((f) => {
    const [fit, judge] = [f, 1 - f].map((g) =>
      fold.flatMap((h, i) => (h === g && y[i] !== undefined && features.every((c) => c[i] !== undefined) ? [i] : [])),
    ) as [number[], number[]];
    if (fit.length < MIN_PAIRS || judge.length < MIN_PAIRS) return 0;
    const [yf, yj] = [withinLevel(y, levels, fit), withinLevel(y, levels, judge)];
    const total = (v: Column, at: number[]) => sum(at.map((i) => (v[i] as number) ** 2));
    if (total(yf, fit) < 1e-12 || total(yj, judge) < 1e-12) return 0;
    const [cf, cj] = [
      features.map((c) => withinLevel(c, levels, fit)),
      features.map((c) => withinLevel(c, levels, judge)),
    ];
    const residual = (chosen: number[], v: Column, cols: Column[], at: number[], w: number[]) =>
      sum(
        at.map((i) => ((v[i] as number) - sum(chosen.map((c, t) => (w[t] as number) * (cols[c]?.[i] as number)))) ** 2),
      );
    const chosen: number[] = [];
    let weights: number[] = [];
    for (let t = 0; t < TERMS; t++) {
      let best: [number, number[], number] | undefined;
      cf.forEach((col, c) => {
        if (chosen.includes(c) || total(col, fit) < 1e-12) return;
        const w = leastSquares(
          yf,
          [...chosen, c].map((d) => cf[d] as Column),
          fit,
        );
        const r = w && residual([...chosen, c], yf, cf, fit, w);
        if (w && r !== undefined && Number.isFinite(r) && (!best || r < best[2])) best = [c, w, r];
      });
      if (!best) break;
      chosen.push(best[0]);
      weights = best[1];
      if (best[2] <= 1e-12 * total(yf, fit)) break;
    }
    return chosen.length ? Math.max(0, 1 - residual(chosen, yj, cj, judge, weights) / total(yj, judge)) : 0;
  });
  return (scores[0] as number) / 2 + (scores[1] as number) / 2;
}

/**
 * The held-out within-level rank correlation of the quantity-feature pair chosen on the other fold, signed as it was
 * there (a dependence holds its sign on fresh instances; noise keeps none); the mean over the two folds, 0 where it
 * is within NOISE_Z spreads of noise over the pairs judged (1/√n: a feature a few prompts hold shows no dependence).
 */
function heldOutDependence(quantities: Column[], features: Column[], levels: number[], fold: number[]): number {
  const [q, f] = [quantities.map((c) => levelRanks(c, levels)), features.map((c) => levelRanks(c, levels))];
  const folds = [0, 1].map((g) => fold.flatMap((h, i) => (h === g ? [i] : [])));
  const scores = [0, 1].map((g): [number, number] => {
    let best: [Column, Column, number] | undefined;
    for (const a of q)
      for (const b of f) {
        const r = correlation(a, b, folds[g] as number[]);
        if (!best || Math.abs(r) > Math.abs(best[2])) best = [a, b, r];
      }
    if (!best) return [0, 0];
    const [r, n] = paired(best[0], best[1], folds[1 - g] as number[]);
    return [Math.sign(best[2]) * r, n];
  });
  const [[r0, n0], [r1, n1]] = scores as [[number, number], [number, number]];
  const mean = r0 / 2 + r1 / 2;
  return mean >= NOISE_Z / Math.sqrt(Math.max(1, n0 + n1)) ? mean : 0;
}

/** The unread content's size per sample: numbers, lines without a read number, letters, the largest group of lines. */
function sizes(samples: readonly InputSample[], reads: ReadonlyArray<Read | undefined>): Column[] {
  return [
    samples.map((s, i) => (reads[i] ? s.nums.length - new Set(reads[i]?.indices).size : undefined)),
    samples.map((s, i) => {
      const readLines = new Set(reads[i]?.indices.map((k) => s.lineOf[k]));
      return reads[i] && s.lineOf.length ? (known(s).structure[0] as number) - readLines.size : undefined;
    }),
    samples.map((s, i) => (reads[i] ? known(s).structure[3] : undefined)),
    samples.map((s, i) => (reads[i] ? known(s).structure.at(-1) : undefined)),
  ];
}

/** How strongly the unread content's size (`sizes`) grows with the level. */
function growth(samples: readonly InputSample[], reads: ReadonlyArray<Read | undefined>, size: Column[]): number {
  const at = reads.flatMap((r, i) => (r ? [i] : []));
  const levels = samples.map((s) => s.level);
  const flat = levels.map(() => 0);
  const levelRank = levelRanks(levels, flat);
  let top = 0;
  for (const column of size) {
    const mean = (l: number) => {
      const xs = at.filter((i) => levels[i] === l && column[i] !== undefined).map((i) => column[i] as number);
      return sum(xs) / Math.max(1, xs.length);
    };
    const used = at.map((i) => levels[i] as number);
    const [lo, hi] = [mean(Math.min(...used)), mean(Math.max(...used))];
    if (hi - lo >= Math.max(1, 0.1 * lo)) top = Math.max(top, correlation(levelRanks(column, flat), levelRank, at));
  }
  return top;
}

/**
 * What the test measured for a relation: (a) the best held-out fit and rank dependence, (b) the content's growth and
 * the reads' held-out within-level rank dependence on the content's size.
 */
export interface InputsJudgement {
  determined: number;
  dependence: number;
  growth: number;
  covaries: number;
  /** The instances the relation reads. */
  reads: number;
}

/** The measures behind `isTaskInputs`, for a relation that reads `readOf(i)` on sample i (undefined: none). */
export function judgeInputs(samples: readonly InputSample[], readOf: (i: number) => Read | undefined): InputsJudgement {
  const reads = samples.map((_, i) => readOf(i));
  const levels = samples.map((s) => s.level);
  // Reads alternate between the folds within each level; where a level's odd read, always in the first fold, leaves
  // the second under MIN_PAIRS (25 reads over 8 levels, rt28s N2), in level order: the folds one read apart.
  const at = reads.flatMap((r, i) => (r ? [i] : []));
  let fold = samples.map((_, i) => (reads[i] ? at.filter((j) => j < i && levels[j] === levels[i]).length % 2 : -1));
  if (fold.filter((f) => f === 1).length < MIN_PAIRS) {
    const order = [...at].sort((a, b) => (levels[a] as number) - (levels[b] as number));
    fold = samples.map((_, i) => (reads[i] ? order.indexOf(i) % 2 : -1));
  }
  const width = Math.max(0, ...reads.map((r) => r?.indices.length ?? 0));
  const quantities: Column[] = [
    reads.map((r) => r?.value),
    ...Array.from({ length: width }, (_, k) =>
      reads.map((r, i) => (r && k < r.indices.length ? samples[i]?.nums[r.indices[k] as number] : undefined)),
    ),
  ];
  const labels = commonLabels(samples);
  const rows = samples.map((s, i) => (reads[i] ? unreadFeatures(s, new Set(reads[i]?.indices), labels) : []));
  const count = Math.max(0, ...rows.map((r) => r.length));
  const features: Column[] = Array.from({ length: count }, (_, f) => rows.map((r) => r[f]));
  // A feature missing on an instance (a place its prompt lacks) is left out of the fit, not the instance.
  const whole = features.filter((c) => reads.every((r, i) => !r || c[i] !== undefined));
  const size = sizes(samples, reads);
  return {
    determined: Math.max(0, ...quantities.map((q) => heldOutFit(q, whole, levels, fold))),
    dependence: heldOutDependence(quantities, features, levels, fold),
    growth: growth(samples, reads, size),
    covaries: heldOutDependence(quantities, size, levels, fold),
    reads: reads.filter(Boolean).length,
  };
}

/**
 * Whether a relation reads the task's own inputs: nothing unread determines its reads, and the unread content does not
 * grow with the level while the reads follow its size (growth alone is a difficulty matter: distractors).
 */
export function isTaskInputs(samples: readonly InputSample[], readOf: (i: number) => Read | undefined): boolean {
  // Fewer instances than FEW_READS hold fewer reads: nothing is judged (tested first: most relations pay rarely).
  if (samples.length < FEW_READS) return true;
  const j = judgeInputs(samples, readOf);
  if (j.reads < FEW_READS) return true;
  if (j.reads < MIN_READS) return !exactOnFew(j.determined, j.reads);
  return j.determined < DETERMINED && j.dependence < DEPENDENCE && (j.growth < GROWTH || j.covaries < COVARIES);
}

/**
 * Whether a held-out fit on few reads is exact beyond their noise (rt28s N2: a leak in one store of eight, a level, a
 * branch): the unexplained share, raised by NOISE_Z spreads of a variance read on n pairs (√(2/n)), within
 * DETERMINED's. A fit of 1.0 passes on 24 reads; looser fits, rank dependence and growth are read on MIN_READS.
 */
export function exactOnFew(determined: number, reads: number): boolean {
  const unexplained = (1 - determined) * (1 + NOISE_Z * Math.sqrt(2 / Math.max(1, reads)));
  return unexplained <= 1 - DETERMINED;
}
