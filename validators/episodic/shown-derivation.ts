// Whether a value a reply shows is the agent's work done for it: a chain of up to three steps over the numbers the
// world showed of the entity (every earlier reply naming it) and the numbers the task's texts state (a $15 fee, a 15%
// rate, an allowance), with at least one stated number, reproduces the shown value, fitted on half the episodes and
// judged on the other half. A value no such chain reproduces is a lookup (an amount due, an issued ticket number),
// whatever words the texts use and wherever the world keeps it.
import { near, ROUNDINGS, rounded, type Rounding } from './derived.js';
import { tokensOf } from './probes.js';

/** A number the agent was given, named by where it stands: a reply's (`tool#place from the end`) or a text's words. */
export interface Given {
  id: string;
  value: number;
  /** Other names of the same number (its label in the reply: `read_order@refundable`). */
  aliases?: readonly string[];
}

/** One copied value: its episode and level, the numbers the world showed of its entity, and those the texts state. */
export interface ShownSample {
  episode: number;
  level: number;
  value: number;
  shown: readonly Given[];
  stated: readonly Given[];
}

/** Bounds of the search: shown and stated numbers a chain may use (the nearest first), and its steps. */
export const MAX_SHOWN = 8;
export const MAX_STATED = 10;
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
/** A shown number joins by sum, difference or product; a stated one also as a divisor or a percentage. */
const SHOWN_OPS: readonly Op[] = ['-', '+', 'c-', '*'];
const STATED_OPS = Object.keys(OPS) as Op[];
/** A number that makes an operation the identity (add 0, times 1, 100%) or a constant (times 0) relates nothing. */
const trivial = (op: Op, c: number) =>
  c === 0 || ((op === '*' || op === '/') && c === 1) || ((op === '%' || op === '%less' || op === '%more') && c === 100);

/** A leaf of a chain: `s:` a shown number's id, `c:` a stated one's. */
interface Step {
  op: Op;
  leaf: string;
}
/** A derivation: a shown number, then up to three steps, then a rounding (or none). */
interface Chain {
  start: string;
  steps: Step[];
  round?: Rounding;
}

/**
 * The numbers the texts state, each named by the two words before it ('allowance of', 'keeps a'): the same rule's
 * number across episodes whatever its value there (a drawn rate), up to `MAX_STATED` distinct values.
 */
export function statedOf(texts: readonly string[]): Given[] {
  const out: Given[] = [];
  for (const text of texts) {
    const words: string[] = [];
    for (const token of tokensOf(text)) {
      const value = Number(token);
      if (!Number.isFinite(value)) {
        words.push(token.toLowerCase());
        continue;
      }
      const name = words.slice(-2).join(' ');
      const taken = out.filter((g) => g.id === name || g.id.startsWith(`${name}#`)).length;
      if (out.length < 4 * MAX_STATED) out.push({ id: taken ? `${name}#${taken + 1}` : name, value });
    }
  }
  return out;
}

/** Whether the sample tells anything: its value is not also a number the world showed (a restated figure). */
const informative = (s: ShownSample) => !s.shown.some((g) => near(g.value, s.value));
const namesOf = (g: Given) => [g.id, ...(g.aliases ?? [])];

/**
 * The samples without the value's own copies: a shown number whose name (place or label) equals the sample's value in
 * every sample showing it (two or more) prints the value again ('Refundable: $72; refund $72'), not an input that
 * some samples restate (an unopened item's price): the same value at several places is one number (redteam-s23e V10).
 */
function withoutCopies(samples: readonly ShownSample[]): ShownSample[] {
  const counts = new Map<string, { n: number; equal: number }>();
  for (const s of samples)
    for (const g of s.shown)
      for (const name of namesOf(g)) {
        const c = counts.get(name) ?? { n: 0, equal: 0 };
        counts.set(name, { n: c.n + 1, equal: c.equal + (near(g.value, s.value) ? 1 : 0) });
      }
  const copies = new Set([...counts].filter(([, c]) => c.n >= 2 && c.equal === c.n).map(([name]) => name));
  if (copies.size === 0) return [...samples];
  return samples.map((s) => ({ ...s, shown: s.shown.filter((g) => !namesOf(g).some((name) => copies.has(name))) }));
}

/** Each sample's numbers by leaf name. */
const leavesMemo = new WeakMap<ShownSample, Map<string, number>>();
function leavesOf(s: ShownSample): Map<string, number> {
  let m = leavesMemo.get(s);
  if (!m) {
    m = new Map<string, number>();
    for (const g of s.stated) if (!m.has(`c:${g.id}`)) m.set(`c:${g.id}`, g.value);
    for (const g of s.shown) for (const name of namesOf(g)) if (!m.has(`s:${name}`)) m.set(`s:${name}`, g.value);
    leavesMemo.set(s, m);
  }
  return m;
}

/** The chain's value on `s` before its rounding (undefined where `s` lacks one of its numbers). */
function evaluate(chain: Chain, s: ShownSample): number | undefined {
  const leaves = leavesOf(s);
  let x = leaves.get(chain.start);
  for (const step of chain.steps) {
    const c = leaves.get(step.leaf);
    if (x === undefined || c === undefined) return undefined;
    x = OPS[step.op](x, c);
  }
  return x;
}

const holds = (chain: Chain, s: ShownSample): boolean => {
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
 * Every chain (up to `MAX_CHAINS`) by which `s`'s value follows from the numbers it was shown and stated: the
 * one-step values tabled and sorted, two- and three-step chains found by mapping the value's window back through
 * their last steps (each step is affine in the running value), each confirmed forward with its rounding.
 */
const chainsMemo = new WeakMap<ShownSample, Chain[]>();
function chainsOf(s: ShownSample): Chain[] {
  const memo = chainsMemo.get(s);
  if (memo) return memo;
  const once = new Set<number>();
  const shown = s.shown.filter((g) => g.value !== 0 && !once.has(g.value) && once.add(g.value)).slice(0, MAX_SHOWN);
  const seen = new Set<number>();
  const stated = s.stated.filter((g) => g.value !== 0 && !seen.has(g.value) && seen.add(g.value)).slice(0, MAX_STATED);
  const leaves = [
    ...shown.map((g) => ({ name: `s:${g.id}`, value: g.value, ops: SHOWN_OPS })),
    ...stated.map((g) => ({ name: `c:${g.id}`, value: g.value, ops: STATED_OPS })),
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
    if (!path.some((m) => m.leaf.name.startsWith('c:'))) return;
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

/** Variants of a chain found on `s` per name of each shown number it uses (a place from the end, a label). */
const MAX_VARIANTS = 8;
function variantsOf(chain: Chain, s: ShownSample): Chain[] {
  const names = (leaf: string): string[] => {
    const value = leavesOf(s).get(leaf);
    if (!leaf.startsWith('s:') || value === undefined) return [leaf];
    return [
      ...new Set([leaf, ...s.shown.filter((g) => g.value === value).flatMap((g) => namesOf(g).map((n) => `s:${n}`))]),
    ];
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

/** The episodes of `fold` whose samples `chain` reproduces (each episode's reproduced samples counted). */
function reproduced(chain: Chain, fold: readonly ShownSample[]): { n: number; episodes: number } {
  const hits = fold.filter((s) => holds(chain, s));
  return { n: hits.length, episodes: new Set(hits.map((s) => s.episode)).size };
}

/**
 * The chain that reproduces the most samples of `fold`, among those of a few samples of distinct episodes; null where
 * none reproduces half of the fold's samples, in two episodes or more.
 */
function fit(fold: readonly ShownSample[]): Chain | null {
  const episodes = [...new Set(fold.map((s) => s.episode))];
  const every = Math.max(1, Math.ceil(episodes.length / 4));
  const seeds = episodes.filter((_, k) => k % every === 0).map((e) => fold.find((s) => s.episode === e) as ShownSample);
  const candidates = new Map<string, Chain>();
  for (const s of seeds)
    for (const chain of chainsOf(s)) for (const v of variantsOf(chain, s)) candidates.set(JSON.stringify(v), v);
  let best: { chain: Chain; n: number; episodes: number } | null = null;
  for (const chain of candidates.values()) {
    const r = reproduced(chain, fold);
    if (!best || r.n > best.n || (r.n === best.n && chain.steps.length < best.chain.steps.length))
      best = { chain, ...r };
  }
  return best && best.episodes >= 2 && best.n * 2 >= fold.length ? best.chain : null;
}

/**
 * Whether the chain fitted on the even episodes of `group` reproduces half the odd ones' samples and vice versa (each
 * fold of two episodes or more).
 */
function crossFits(group: readonly ShownSample[]): boolean {
  const folds = [0, 1].map((f) => group.filter((s) => s.episode % 2 === f));
  if (folds.some((fold) => new Set(fold.map((s) => s.episode)).size < 2)) return false;
  return folds.every((held, f) => {
    const chain = fit(folds[1 - f] as ShownSample[]);
    return chain !== null && reproduced(chain, held).n * 2 >= held.length;
  });
}

/**
 * Whether the samples' values are derived from what their entities showed: a chain cross-fits all the informative
 * samples, or those of one level (a level's texts may state a rule the others extend: brackets, credits).
 */
export function derivedFromShown(samples: readonly ShownSample[]): boolean {
  const useful = withoutCopies(samples).filter(informative);
  const levels = [...new Set(useful.map((s) => s.level))];
  return [useful, ...(levels.length > 1 ? levels.map((l) => useful.filter((s) => s.level === l)) : [])].some(crossFits);
}
