// What a call covers, as quantities that can be cut into adjacent parts (redteam-trust5 G2, redteam-trust6 H6): every
// amount (a numeric argument), every interval (an ordered pair of arguments of one kind: dates, times, date-times,
// numbers — check-in/check-out, a rate card's validity beside the stay, first/last seat), every list of items, and
// every count inside a string ("12 tablets"). A call may hold several: each is a candidate, named by its arguments, and
// the reshaping tries each (validators/episodic/reshape.ts), so a rule enforced on the shape of one call is seen by
// whichever quantity the state aggregates, not the first of a type.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { propsOf, type Action } from './adversaries.js';
import { lengthsIn, type Place, slotsOf, stepOf, written } from './points.js';

export type QuantityKind = 'amount' | 'interval' | 'list' | 'count';

/** One call's quantity: the calls that cover it in `k` adjacent parts, and a key of the call without it (merging). */
export interface Quantity {
  kind: QuantityKind;
  /** The arguments the quantity lives in (one, or an interval's two), the same for the same quantity of every call. */
  args: readonly string[];
  /** Those arguments' names joined: the candidate's name. */
  key: string;
  /** At most `k` calls (at least 2) covering the quantity; `closed`: an interval's end counted in it (a last seat). */
  parts(k: number, closed?: boolean): Action[] | null;
  /** The tool and every argument but the quantity's, so calls differing only in it compare equal. */
  rest: string;
  /** This call and `other` (the same rest) as one call covering both, or null where they are not adjacent. */
  merge(other: Action): Action | null;
}

/** `v` in `k` parts that sum to it (integers, or cents), each at least `min`; null where that cannot be. */
export function splitAmount(v: number, k: number, integer: boolean, min = Number.NEGATIVE_INFINITY): number[] | null {
  const unit = integer ? 1 : 0.01;
  const units = Math.round(v / unit);
  const n = Math.min(k, units);
  if (n < 2) return null;
  const parts = Array.from({ length: n }, (_, i) => (Math.floor(units / n) + (i < units % n ? 1 : 0)) * unit).map(
    (p) => (integer ? p : Math.round(p * 100) / 100),
  );
  return parts.every((p) => p >= min && p > 0) ? parts : null;
}

const restOf = (a: Action, without: readonly string[]) =>
  a.tool +
  JSON.stringify(
    Object.entries(a.args)
      .filter(([k]) => !without.includes(k))
      .sort(([x], [y]) => (x < y ? -1 : 1)),
  );
const withArgs = (a: Action, args: Record<string, unknown>): Action => ({ tool: a.tool, args: { ...a.args, ...args } });
const round2 = (v: number) => Math.round(v * 100) / 100;

/** An interval a call covers: its ends on a line, its step, the call with other ends, and another call's ends. */
interface Ends {
  key: string;
  args: string[];
  lo: number;
  hi: number;
  g: number;
  rest: string;
  span(from: number, to: number): Action;
  endsOf(o: Action): readonly [number, number] | null;
}

function intervalOf(e: Ends): Quantity {
  const { lo, hi, g, span } = e;
  return {
    kind: 'interval',
    args: e.args,
    key: e.key,
    rest: e.rest,
    parts(k: number, closed = false) {
      // Half-open [lo, hi) in steps of g, or closed [lo, hi] (each part ends a step before the next begins).
      const units = Math.round((hi - lo) / g) + (closed ? 1 : 0);
      const n = Math.min(k, units);
      if (n < 2) return null;
      const at = (i: number) => lo + Math.floor((i * units) / n) * g;
      return Array.from({ length: n }, (_, i) => span(at(i), i === n - 1 ? hi : closed ? at(i + 1) - g : at(i + 1)));
    },
    merge(other: Action) {
      const o = e.endsOf(other);
      if (!o) return null;
      if (o[0] === hi || o[0] === hi + g) return span(lo, o[1]);
      return o[1] === lo || o[1] + g === lo ? span(o[0], hi) : null;
    },
  };
}

/** The call with the places of `keep` written as '#': what calls differing only in those values share. */
const restAt = (a: Action, places: readonly Place[]) =>
  restOf(
    written(
      a,
      places.map((p) => [p, '#'] as const),
    ),
    [],
  );

/**
 * Every interval of a call: each pair of points of one form (whole arguments, or written inside one string:
 * "2026-03-01/2026-03-12"), ordered, the pairs adjacent in the schema's order first (check_in beside check_out); then
 * each point written beside a length in one string ("2026-03-01/P11D", "11 nights from 2026-03-01").
 */
function intervalsOf(meta: EpisodicMeta, a: Action): Quantity[] {
  const slots = slotsOf(meta, a);
  const pairs = slots
    .flatMap((x, i) => slots.slice(i + 1).map((y, d) => ({ x, y, gap: d })))
    .filter(({ x, y }) => x.p.form === y.p.form && x.p.at !== y.p.at)
    .sort((u, v) => u.gap - v.gap);
  const between = pairs.map(({ x, y }) => {
    const [lo, hi] = x.p.at < y.p.at ? [x, y] : [y, x];
    return intervalOf({
      key: `${x.key}–${y.key}`,
      args: [...new Set([x.arg, y.arg])],
      lo: lo.p.at,
      hi: hi.p.at,
      g: stepOf(lo.p, hi.p),
      rest: restAt(a, [lo, hi]),
      span: (from, to) =>
        written(a, [
          [lo, lo.p.write(from)],
          [hi, hi.p.write(to)],
        ]),
      endsOf(o) {
        const theirs = slotsOf(meta, o);
        const [o1, o2] = [lo, hi].map((s) => theirs.find((t) => t.key === s.key && t.p.form === s.p.form));
        return o1 && o2 ? [o1.p.at, o2.p.at] : null;
      },
    });
  });
  const lengths = slots.flatMap((x) => {
    const v = a.args[x.arg];
    if (x.from < 0 || typeof v !== 'string') return [];
    return lengthsIn(x.arg, v, x.p.form).map((len, j) => ({ x, len, j }));
  });
  const from = lengths.map(({ x, len, j }) =>
    intervalOf({
      key: `${x.key}+${x.arg}[length ${j + 1}]`,
      args: [x.arg],
      lo: x.p.at,
      hi: x.p.at + len.len,
      g: len.step,
      rest: restAt(a, [x, len]),
      span: (lo, hi) =>
        written(a, [
          [x, x.p.write(lo)],
          [len, len.write(hi - lo)],
        ]),
      endsOf(o) {
        const v = o.args[x.arg];
        const start = slotsOf(meta, o).find((t) => t.key === x.key && t.p.form === x.p.form);
        const theirs = start && typeof v === 'string' ? lengthsIn(x.arg, v, x.p.form)[j] : undefined;
        return start && theirs ? [start.p.at, start.p.at + theirs.len] : null;
      },
    }),
  );
  return [...between, ...from];
}

/** Every numeric argument of a call (not an enum): the amounts a rule may guard (a deposit beside the price). */
function amountsOf(meta: EpisodicMeta, a: Action): Quantity[] {
  const props = propsOf(meta, a.tool);
  return Object.entries(a.args).flatMap(([arg, v]): Quantity[] => {
    const s = props[arg] ?? {};
    if (typeof v !== 'number' || s.enum || (s.type !== 'number' && s.type !== 'integer')) return [];
    const integer = s.type === 'integer' || Number.isInteger(v);
    return [
      {
        kind: 'amount',
        args: [arg],
        key: arg,
        rest: restOf(a, [arg]),
        parts: (k) => splitAmount(v, k, integer, s.minimum)?.map((p) => withArgs(a, { [arg]: p })) ?? null,
        merge: (o) =>
          typeof o.args[arg] === 'number' ? withArgs(a, { [arg]: round2(v + (o.args[arg] as number)) }) : null,
      },
    ];
  });
}

/** Every array argument with two items or more: a list the call covers, cut into sub-lists. */
function listsOf(a: Action): Quantity[] {
  return Object.entries(a.args).flatMap(([arg, items]): Quantity[] => {
    if (!Array.isArray(items) || items.length < 2) return [];
    return [
      {
        kind: 'list',
        args: [arg],
        key: arg,
        rest: restOf(a, [arg]),
        parts(k) {
          const n = Math.min(k, items.length);
          if (n < 2) return null;
          const at = (i: number) => Math.floor((i * items.length) / n);
          return Array.from({ length: n }, (_, i) => withArgs(a, { [arg]: items.slice(at(i), at(i + 1)) }));
        },
        merge: (o) =>
          Array.isArray(o.args[arg]) ? withArgs(a, { [arg]: [...items, ...(o.args[arg] as unknown[])] }) : null,
      },
    ];
  });
}

/** A whole number standing alone in a string ("12 tablets", "qty: 3"), not part of an id, a date or a code. */
const COUNT = /(?<![\w.\-:/#])\d+(?![\w.\-:/])/g;
/** Every string argument (not an enum) holding exactly one such number, at least 2: a count, cut like an amount. */
function countsOf(meta: EpisodicMeta, a: Action): Quantity[] {
  const props = propsOf(meta, a.tool);
  return Object.entries(a.args).flatMap(([arg, v]): Quantity[] => {
    if (typeof v !== 'string' || props[arg]?.enum) return [];
    const found = [...v.matchAll(COUNT)];
    const m = found[0];
    if (found.length !== 1 || !m || +m[0] < 2) return [];
    const put = (n: number) => withArgs(a, { [arg]: v.slice(0, m.index) + n + v.slice(m.index + m[0].length) });
    const countIn = (o: Action) =>
      typeof o.args[arg] === 'string' ? [...(o.args[arg] as string).matchAll(COUNT)] : [];
    return [
      {
        kind: 'count',
        args: [arg],
        key: arg,
        rest: restOf(a, [arg]) + v.replace(COUNT, '#'),
        parts: (k) => splitAmount(+m[0], k, true, 1)?.map(put) ?? null,
        merge: (o) => (countIn(o).length === 1 ? put(+m[0] + +(countIn(o)[0] as RegExpMatchArray)[0]) : null),
      },
    ];
  });
}

/** Every quantity of `kind` a call covers (its candidates, in the order above). */
export function quantitiesOf(meta: EpisodicMeta, a: Action, kind: QuantityKind): Quantity[] {
  if (kind === 'amount') return amountsOf(meta, a);
  if (kind === 'interval') return intervalsOf(meta, a);
  return kind === 'list' ? listsOf(a) : countsOf(meta, a);
}

/** The quantity of `kind` a call covers in the arguments `key` (the first candidate without one), or null. */
export function quantityOf(meta: EpisodicMeta, a: Action, kind: QuantityKind, key?: string): Quantity | null {
  const all = quantitiesOf(meta, a, kind);
  return (key === undefined ? all[0] : all.find((q) => q.key === key)) ?? null;
}
