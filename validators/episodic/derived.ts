// Arguments a policy computes from what the world shows (redteam-trust17 R4): the nights from two dates, a total from
// the nights at a rate. An added call's argument the entity's replies do not spell is read as the relation the
// template's value bears to its own entity's shown values and the template's other arguments (the difference of two
// dates or numbers, a sum, a product; a date plus a number of days), and the same relation is applied to the
// entity's, so a world that checks the computed value refuses the added call for the rule, not for another's nights.
import { tokensOf } from './probes.js';
import { writtenDate } from './dates.js';

/** Tokens of a reply read for values. */
const SHOWN = 48;

/** The values replies show, by where each stands: `n<k>.<i>` the i-th number of reply k, `d<k>.<i>` its i-th date. */
export function shownValues(replies: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  replies.forEach((reply, k) => {
    let n = 0;
    let d = 0;
    // The first values of each reply (a read's own fields), so the pairs tried stay few.
    for (const t of tokensOf(reply).slice(0, SHOWN)) {
      const date = Number.isFinite(Number(t)) ? null : writtenDate(t);
      if (Number.isFinite(Number(t))) out.set(`n${k}.${n++}`, Number(t));
      else if (date?.form === 'date') out.set(`d${k}.${d++}`, date.at);
    }
  });
  return out;
}

/** A relation of two values: which ones (by place, or `a:<name>` for another argument) and how. */
export interface Relation {
  /** `/` a quotient, `%` a percentage (x·y/100): tried only where asked (fillings.ts: each checked on a control). */
  op: '-' | '+' | '*' | '/' | '%';
  a: string;
  b: string;
  /** A rounding of the result: to whole units or cents, half up, down or up (fillings.ts only). */
  round?: Rounding;
}

/** How a computed value is rounded: its decimals and the direction. */
export interface Rounding {
  digits: 0 | 2;
  how: 'round' | 'floor' | 'ceil';
}

/** The roundings a computed argument is tried with, after the exact value (each a candidate a control must confirm). */
export const ROUNDINGS: readonly Rounding[] = (['round', 'floor', 'ceil'] as const).flatMap((how) =>
  ([0, 2] as const).map((digits) => ({ digits, how })),
);
export const rounded = (x: number, r: Rounding | undefined) =>
  r === undefined ? x : Math[r.how](Math.round(x * 10 ** r.digits * 1e6) / 1e6) / 10 ** r.digits;

const apply = (op: Relation['op'], x: number, y: number) =>
  op === '-' ? x - y : op === '+' ? x + y : op === '*' ? x * y : op === '/' ? x / y : (x * y) / 100;
export const near = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));

/**
 * The first relation by which `v` follows from `values`: a number (`date` false) by a difference of two dates, or a
 * difference, sum or product of two numbers or arguments; a date by a date plus or minus a number. Differences first,
 * dates before numbers before arguments; null where none holds.
 */
export const relationOf = (v: number, values: ReadonlyMap<string, number>, date = false): Relation | null =>
  relationsOf(v, values, date, ['-', '+', '*'], 1)[0] ?? null;

/** Every relation (at most `cap`) by which `v` follows from `values` by the operations `ops`, as relationOf orders. */
export function relationsOf(
  v: number,
  values: ReadonlyMap<string, number>,
  date: boolean,
  ops: readonly Relation['op'][],
  cap: number,
  roundings: readonly Rounding[] = [],
): Relation[] {
  const keys = [...values.keys()];
  const rank = (k: string) => (k.startsWith('d') ? 0 : k.startsWith('n') ? 1 : 2);
  const pairs = keys
    .flatMap((a) => keys.filter((b) => b !== a).map((b) => [a, b] as const))
    .sort(([a, b], [c, d]) => rank(a) + rank(b) - rank(c) - rank(d));
  const fits = (op: Relation['op'], a: string, b: string) => {
    const [x, y] = [a.startsWith('d'), b.startsWith('d')];
    if (date) return x && !y && (op === '-' || op === '+');
    // A commutative operation once per pair; a quotient either way.
    return x || y ? x && y && op === '-' : op === '-' || op === '/' || a < b;
  };
  const out: Relation[] = [];
  // The exact value first, then each rounding of a number (never of a date).
  for (const round of [undefined, ...(date ? [] : roundings)])
    for (const op of ops)
      for (const [a, b] of pairs) {
        const x = apply(op, values.get(a) as number, values.get(b) as number);
        const fresh = round === undefined || !near(x, v);
        if (out.length < cap && fits(op, a, b) && fresh && near(rounded(x, round), v))
          out.push(round ? { op, a, b, round } : { op, a, b });
      }
  return out;
}

/** The value `relation` gives on `values`, or undefined where one of its places is missing. */
export function valueOf(relation: Relation, values: ReadonlyMap<string, number>): number | undefined {
  const x = values.get(relation.a);
  const y = values.get(relation.b);
  return x === undefined || y === undefined ? undefined : rounded(apply(relation.op, x, y), relation.round);
}

/**
 * The arguments of `template` (those in `open`: numbers, and dates as strings) derived for an entity: each the relation
 * its value bears to the template entity's shown values (`mine`) and the arguments known so far, applied to the
 * entity's (`theirs`, `args`), as often as one more is found (a total from nights first derived from dates). `integer`
 * says which must be whole.
 */
export function derivedArgs(
  template: Readonly<Record<string, unknown>>,
  args: Record<string, unknown>,
  open: ReadonlySet<string>,
  mine: readonly string[],
  theirs: readonly string[],
  integer: (name: string) => boolean,
): Record<string, unknown> {
  const [shownMine, shownTheirs] = [shownValues(mine), shownValues(theirs)];
  const dateOf = (v: unknown) => {
    const w = typeof v === 'string' ? writtenDate(v.trim()) : null;
    return w?.form === 'date' ? w : null;
  };
  // An argument's value as a source: `a:<name>` a number, `d:<name>` a date.
  const source = (n: string, v: unknown): [string, number] | null =>
    typeof v === 'number' ? [`a:${n}`, v] : dateOf(v) ? [`d:${n}`, dateOf(v)?.at as number] : null;
  const known = new Set(Object.keys(template).filter((n) => !open.has(n)));
  const todo = [...open].filter((n) => typeof template[n] === 'number' || dateOf(template[n]));
  for (let found = true; found; ) {
    found = false;
    for (const name of todo.filter((n) => !known.has(n))) {
      const pairs = [...known].flatMap((n) => {
        const [m, t] = [source(n, template[n]), source(n, args[n])];
        return m && t && m[0] === t[0] ? [[m, t] as const] : [];
      });
      const relation = relationOf(
        dateOf(template[name])?.at ?? (template[name] as number),
        new Map([...shownMine, ...pairs.map(([m]) => m)]),
        dateOf(template[name]) !== null,
      );
      const raw = relation && valueOf(relation, new Map([...shownTheirs, ...pairs.map(([, t]) => t)]));
      const v = typeof raw === 'number' ? Math.round(raw * 1e9) / 1e9 : undefined;
      if (v === undefined || !Number.isFinite(v) || (integer(name) && !Number.isInteger(v))) continue;
      args[name] = dateOf(template[name])?.write(v) ?? v;
      known.add(name);
      found = true;
    }
  }
  return args;
}
