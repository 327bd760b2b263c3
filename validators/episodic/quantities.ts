// What a call covers, as quantities that can be cut into adjacent parts (redteam-trust5 G2, redteam-trust6 H6): every
// amount (a numeric argument), every interval (an ordered pair of arguments of one kind: dates, times, date-times,
// numbers — check-in/check-out, a rate card's validity beside the stay, first/last seat), every list of items, and
// every count inside a string ("12 tablets"). A call may hold several: each is a candidate, named by its arguments, and
// the reshaping tries each (validators/episodic/reshape.ts), so a rule enforced on the shape of one call is seen by
// whichever quantity the state aggregates, not the first of a type.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { propsOf, type Action } from './adversaries.js';

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

/** A point of an interval: its value on a line (days, minutes, the number), its unit, and how to write one back. */
interface Point {
  at: number;
  unit: number;
  form: string;
  write(at: number): string | number;
}
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4})-(\d{2})-(\d{2})([T ])(\d{2}):(\d{2})(:\d{2})?(Z?)$/;
const TIME = /^(\d{1,2}):(\d{2})(:\d{2})?$/;
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

function pointOf(v: unknown, integer: boolean): Point | null {
  if (typeof v === 'number' && Number.isFinite(v))
    return { at: v, unit: integer || Number.isInteger(v) ? 1 : 0.01, form: 'number', write: round2 };
  if (typeof v !== 'string') return null;
  let m = DATE.exec(v);
  if (m) {
    const at = Date.UTC(+(m[1] as string), +(m[2] as string) - 1, +(m[3] as string)) / DAY;
    return Number.isFinite(at) ? { at, unit: 1, form: 'date', write: (d) => iso(d * DAY).slice(0, 10) } : null;
  }
  m = DATETIME.exec(v);
  if (m) {
    const [, y, mo, d, sep, h, mi, sec, z] = m as unknown as string[];
    const at = Date.UTC(+(y as string), +(mo as string) - 1, +(d as string), +(h as string), +(mi as string)) / 60_000;
    const write = (t: number) =>
      `${iso(t * 60_000).slice(0, 10)}${sep}${iso(t * 60_000).slice(11, 16)}${sec ? ':00' : ''}${z}`;
    return Number.isFinite(at) && !sec?.slice(1).match(/[1-9]/) ? { at, unit: 1, form: 'datetime', write } : null;
  }
  m = TIME.exec(v);
  if (m && +(m[1] as string) < 24 && +(m[2] as string) < 60 && !m[3]?.slice(1).match(/[1-9]/)) {
    const wide = (m[1] as string).length === 2;
    const hours = (t: number) => String(Math.floor(t / 60)).padStart(wide ? 2 : 1, '0');
    const write = (t: number) => `${hours(t)}:${String(t % 60).padStart(2, '0')}${m?.[3] ? ':00' : ''}`;
    return { at: +(m[1] as string) * 60 + +(m[2] as string), unit: 1, form: 'time', write };
  }
  return null;
}

/** The coarsest step both ends sit on (a whole hour before a quarter, a day of minutes before an hour). */
const stepOf = (lo: Point, hi: Point) =>
  lo.form === 'number' ? lo.unit : ([1440, 60, 30, 15, 5].find((g) => lo.at % g === 0 && hi.at % g === 0) ?? 1);

/**
 * Every interval of a call: each pair of arguments holding distinct points of one form, ordered; the pairs adjacent in
 * the schema's order first (check_in beside check_out), then the wider ones.
 */
function intervalsOf(meta: EpisodicMeta, a: Action): Quantity[] {
  const props = propsOf(meta, a.tool);
  const names = [...new Set([...Object.keys(props), ...Object.keys(a.args)])].filter((n) => n in a.args);
  const points = names.flatMap((n) => {
    const s = props[n] ?? {};
    const p = s.enum ? null : pointOf(a.args[n], s.type === 'integer');
    return p && (p.form !== 'number' || s.type === 'number' || s.type === 'integer') ? [{ n, p }] : [];
  });
  const pairs = points
    .flatMap((x, i) => points.slice(i + 1).map((y, d) => ({ x, y, gap: d })))
    .filter(({ x, y }) => x.p.form === y.p.form && x.p.at !== y.p.at)
    .sort((u, v) => u.gap - v.gap);
  return pairs.map(({ x, y }) => {
    const [lo, hi] = x.p.at < y.p.at ? [x, y] : [y, x];
    const g = stepOf(lo.p, hi.p);
    const span = (from: number, to: number) => withArgs(a, { [lo.n]: lo.p.write(from), [hi.n]: hi.p.write(to) });
    return {
      kind: 'interval' as const,
      args: [x.n, y.n],
      key: `${x.n}–${y.n}`,
      rest: restOf(a, [lo.n, hi.n]),
      parts(k: number, closed = false) {
        // Half-open [lo, hi) in steps of g, or closed [lo, hi] (each part ends a step before the next begins).
        const units = Math.round((hi.p.at - lo.p.at) / g) + (closed ? 1 : 0);
        const n = Math.min(k, units);
        if (n < 2) return null;
        const at = (i: number) => lo.p.at + Math.floor((i * units) / n) * g;
        return Array.from({ length: n }, (_, i) =>
          span(at(i), i === n - 1 ? hi.p.at : closed ? at(i + 1) - g : at(i + 1)),
        );
      },
      merge(other: Action) {
        const [o1, o2] = [pointOf(other.args[lo.n], false), pointOf(other.args[hi.n], false)];
        if (!o1 || !o2) return null;
        if (o1.at === hi.p.at || o1.at === hi.p.at + g) return span(lo.p.at, o2.at);
        return o2.at === lo.p.at || o2.at + g === lo.p.at ? span(o1.at, hi.p.at) : null;
      },
    };
  });
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
