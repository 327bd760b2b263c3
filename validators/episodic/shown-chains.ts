// The chains of a shown-value derivation: up to three steps over the numbers the world showed of the entity, the
// numbers it told every entity (a rate a listing's header prints) and the numbers the texts state, each step a sum,
// difference, product, quotient or percentage, searched backward from a sample's value and confirmed forward.
import { near, ROUNDINGS, rounded, type Rounding } from './derived.js';

/** A number the agent was given, named by where it stands: a reply's (`tool#place from the end`) or a text's words. */
export interface Given {
  id: string;
  value: number;
  /** Other names of the same number (its label in the reply: `read_order@refundable`). */
  aliases?: readonly string[];
}

/**
 * One copied value: its episode and level, the numbers the world showed of its entity, those it told of no entity in
 * particular (a listing's header, a policy tool's reply) and those the texts state, and the words its entity showed.
 */
export interface ShownSample {
  episode: number;
  level: number;
  value: number;
  shown: readonly Given[];
  stated: readonly Given[];
  told?: readonly Given[];
  words?: readonly string[];
}

/** Bounds of the search: shown, stated and told numbers a chain may use (the nearest first), and its steps. */
export const MAX_SHOWN = 8;
export const MAX_STATED = 10;
export const MAX_TOLD = 4;
const MAX_CHAINS = 600;

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
type Op = keyof typeof OPS;
/** Each step as an affine map of the running value (slope, offset): to invert a target window through it. */
const AFFINE: Record<Op, (c: number) => [number, number]> = {
  '-': (c) => [1, -c],
  '+': (c) => [1, c],
  'c-': (c) => [-1, c],
  '*': (c) => [c, 0],
  '/': (c) => [1 / c, 0],
  '%': (c) => [c / 100, 0],
  '%less': (c) => [(100 - c) / 100, 0],
  '%more': (c) => [(100 + c) / 100, 0],
};
/**
 * A number the entity shows joins by sum, difference or product, and as a percentage where it may be a rate (under
 * 100: a rate printed beside the price, rt30e W5); a stated or told one also as a divisor.
 */
const SHOWN_OPS: readonly Op[] = ['-', '+', 'c-', '*'];
const RATE_OPS: readonly Op[] = [...SHOWN_OPS, '%', '%less', '%more'];
const shownOps = (value: number) => (value > 0 && value < 100 ? RATE_OPS : SHOWN_OPS);
const STATED_OPS = Object.keys(OPS) as Op[];
/** A number that makes an operation the identity (add 0, times 1, 100%) or a constant (times 0) relates nothing. */
const trivial = (op: Op, c: number) =>
  c === 0 || ((op === '*' || op === '/') && c === 1) || ((op === '%' || op === '%less' || op === '%more') && c === 100);

/** A leaf of a chain: `s:` a shown number's id, `c:` a stated one's, `t:` a told one's. */
export interface Step {
  op: Op;
  leaf: string;
}
/** A derivation: a shown number, then up to three steps, then a rounding (or none). */
export interface Chain {
  start: string;
  steps: Step[];
  round?: Rounding;
}

/** A given number's names: its place and its labels. */
export const namesOf = (g: Given) => [g.id, ...(g.aliases ?? [])];

/**
 * Whether `judge` holds of each fold against the other: the samples of the even episodes fitted and the odd ones
 * held, then the reverse (each fold of two episodes or more).
 */
export function twoFolds(
  group: readonly ShownSample[],
  judge: (fitted: ShownSample[], held: ShownSample[]) => boolean,
): boolean {
  const folds = [0, 1].map((f) => group.filter((s) => s.episode % 2 === f));
  if (folds.some((fold) => new Set(fold.map((s) => s.episode)).size < 2)) return false;
  return folds.every((held, f) => judge(folds[1 - f] as ShownSample[], held));
}

/** Each sample's numbers by leaf name. */
const leavesMemo = new WeakMap<ShownSample, Map<string, number>>();
function leavesOf(s: ShownSample): Map<string, number> {
  let m = leavesMemo.get(s);
  if (!m) {
    m = new Map<string, number>();
    for (const g of s.stated) if (!m.has(`c:${g.id}`)) m.set(`c:${g.id}`, g.value);
    for (const g of s.told ?? []) for (const name of namesOf(g)) if (!m.has(`t:${name}`)) m.set(`t:${name}`, g.value);
    for (const g of s.shown) for (const name of namesOf(g)) if (!m.has(`s:${name}`)) m.set(`s:${name}`, g.value);
    leavesMemo.set(s, m);
  }
  return m;
}

/** The chain's value on `s` before its rounding (undefined where `s` lacks one of its numbers). */
export function evaluate(chain: Chain, s: ShownSample): number | undefined {
  const leaves = leavesOf(s);
  let x = leaves.get(chain.start);
  for (const step of chain.steps) {
    const c = leaves.get(step.leaf);
    if (x === undefined || c === undefined) return undefined;
    x = OPS[step.op](x, c);
  }
  return x;
}

export const holds = (chain: Chain, s: ShownSample): boolean => {
  const x = evaluate(chain, s);
  return x !== undefined && near(rounded(x, chain.round), s.value);
};

/** The roundings by which `x` gives `v` (none first). */
const roundingsTo = (x: number, v: number): (Rounding | undefined)[] =>
  [undefined, ...ROUNDINGS].filter((r) => near(rounded(x, r), v));

/** The indices of `sorted` (ascending by `values`) whose value lies in [lo, hi]. */
function within(order: readonly number[], values: readonly number[], lo: number, hi: number): number[] {
  let a = 0;
  let b = order.length;
  while (a < b) {
    const mid = (a + b) >> 1;
    if ((values[order[mid] as number] as number) < lo) a = mid + 1;
    else b = mid;
  }
  const out: number[] = [];
  for (let k = a; k < order.length && (values[order[k] as number] as number) <= hi && out.length < 64; k++)
    out.push(order[k] as number);
  return out;
}

/** The window [lo, hi] widened a little and mapped back through the affine step `[slope, offset]`. */
const back = ([lo, hi]: [number, number], [a, b]: [number, number]): [number, number] => {
  const ends = [(lo - b) / a, (hi - b) / a].sort((p, q) => p - q) as [number, number];
  const slack = 1e-9 * Math.max(1, Math.abs(ends[0]), Math.abs(ends[1]));
  return [ends[0] - slack, ends[1] + slack];
};

/**
 * Every chain (up to `MAX_CHAINS`) by which `s`'s value follows from the numbers it was shown, told and stated, one of
 * them stated or told (the entity's own numbers alone restate its figures): the one-step values tabled and sorted,
 * two- and three-step chains found by mapping the value's window back through their last steps (each step is affine
 * in the running value), each confirmed forward with its rounding.
 */
const chainsMemo = new WeakMap<ShownSample, Chain[]>();
export function chainsOf(s: ShownSample): Chain[] {
  const memo = chainsMemo.get(s);
  if (memo) return memo;
  const once = new Set<number>();
  const shown = s.shown.filter((g) => g.value !== 0 && !once.has(g.value) && once.add(g.value)).slice(0, MAX_SHOWN);
  const seen = new Set<number>();
  const stated = s.stated.filter((g) => g.value !== 0 && !seen.has(g.value) && seen.add(g.value)).slice(0, MAX_STATED);
  const told = (s.told ?? [])
    .filter((g) => g.value !== 0 && !once.has(g.value) && once.add(g.value))
    .slice(0, MAX_TOLD);
  const leaves = [
    ...shown.map((g) => ({ name: `s:${g.id}`, value: g.value, ops: shownOps(g.value) })),
    ...stated.map((g) => ({ name: `c:${g.id}`, value: g.value, ops: STATED_OPS })),
    ...told.map((g) => ({ name: `t:${g.id}`, value: g.value, ops: STATED_OPS })),
  ];
  const moves = leaves.flatMap((leaf) =>
    leaf.ops.filter((op) => !trivial(op, leaf.value)).map((op) => ({ op, leaf, affine: AFFINE[op](leaf.value) })),
  );
  // The one-step table: each shown start, then one move.
  const first: { start: (typeof leaves)[number]; move: (typeof moves)[number] }[] = [];
  const values: number[] = [];
  for (const start of leaves.slice(0, shown.length))
    for (const move of moves)
      if (move.leaf !== start) {
        first.push({ start, move });
        values.push(OPS[move.op](start.value, move.leaf.value));
      }
  const order = values.map((_, k) => k).sort((p, q) => (values[p] as number) - (values[q] as number));
  const out: Chain[] = [];
  const keys = new Set<string>();
  const confirm = (k: number, later: (typeof moves)[number][]) => {
    const { start, move } = first[k] as (typeof first)[number];
    const path = [move, ...later];
    if (!path.some((m) => !m.leaf.name.startsWith('s:'))) return;
    const x = path.reduce((acc, m) => OPS[m.op](acc, m.leaf.value), start.value);
    for (const round of roundingsTo(x, s.value)) {
      const chain: Chain = { start: start.name, steps: path.map((m) => ({ op: m.op, leaf: m.leaf.name })) };
      if (round) chain.round = round;
      const key = JSON.stringify(chain);
      if (out.length < MAX_CHAINS && !keys.has(key)) keys.add(key), out.push(chain);
    }
  };
  const window: [number, number] = [s.value - 1, s.value + 1];
  for (const k of within(order, values, ...window)) confirm(k, []);
  for (const last of moves) {
    const w2 = back(window, last.affine);
    for (const k of within(order, values, ...w2)) confirm(k, [last]);
    for (const mid of moves) for (const k of within(order, values, ...back(w2, mid.affine))) confirm(k, [mid, last]);
  }
  chainsMemo.set(s, out);
  return out;
}

/** Variants of a chain found on `s` per name of each number it uses (a place from the end, a label, a text's words). */
const MAX_VARIANTS = 8;
const namesMemo = new WeakMap<ShownSample, Map<string, string[]>>();
export function variantsOf(chain: Chain, s: ShownSample): Chain[] {
  let memo = namesMemo.get(s);
  if (!memo) namesMemo.set(s, (memo = new Map()));
  const names = (leaf: string): string[] => {
    const hit = memo.get(leaf);
    if (hit) return hit;
    const value = leavesOf(s).get(leaf);
    const given = { 's:': s.shown, 't:': s.told ?? [], 'c:': s.stated }[leaf.slice(0, 2)] ?? [];
    const prefix = leaf.slice(0, 2);
    const out =
      given.length === 0 || value === undefined
        ? [leaf]
        : [
            ...new Set([
              leaf,
              ...given.filter((g) => g.value === value).flatMap((g) => namesOf(g).map((n) => prefix + n)),
            ]),
          ];
    memo.set(leaf, out);
    return out;
  };
  let out: Chain[] = [{ ...chain, start: '', steps: [] }];
  for (const [k, leaf] of [chain.start, ...chain.steps.map((step) => step.leaf)].entries())
    out = out
      .flatMap((c) =>
        names(leaf).map((name) =>
          k === 0
            ? { ...c, start: name }
            : { ...c, steps: [...c.steps, { op: (chain.steps[k - 1] as Step).op, leaf: name }] },
        ),
      )
      .slice(0, MAX_VARIANTS);
  return out;
}
