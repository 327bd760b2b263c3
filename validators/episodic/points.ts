// Where a call holds a point on a line (a date, a date-time, a time, a number) and a length from one (redteam-trust7
// I5): a whole argument, or written inside a string ("2026-03-01/2026-03-12", "from 09:00 until 17:30",
// "2026-03-01/P11D", "11 nights from 2026-03-01"), each with how to write a new value back in the call's own notation.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { propsOf, type Action } from './adversaries.js';
import { INNER_WRITTEN, writtenDate } from './dates.js';

/** A point of an interval: its value on a line (days, minutes, the number), its unit, and how to write one back. */
export interface Point {
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
const round2 = (v: number) => Math.round(v * 100) / 100;

/**
 * `v` as a point: a number, an ISO date, date-time or time, or a date in another notation a reference writes
 * (validators/episodic/dates.ts; `dayFirst`: the log's own slash dates put the day first), each written back alike.
 */
export function pointOf(v: unknown, integer: boolean, dayFirst = false): Point | null {
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
  const w = writtenDate(v.trim() === v ? v : '', dayFirst);
  return w ? { ...w, unit: 1 } : null;
}

/** The coarsest step both ends sit on: a day for dates; in minutes a whole day, then an hour, then a quarter. */
export const stepOf = (lo: Point, hi: Point) =>
  lo.form === 'number' || lo.form === 'date'
    ? lo.unit
    : ([1440, 60, 30, 15, 5].find((g) => lo.at % g === 0 && hi.at % g === 0) ?? 1);

/** Where a value sits: a whole argument (`from` -1), or the characters [from, to) of a string argument. */
export interface Place {
  arg: string;
  from: number;
  to: number;
}
/** A point of a call: where it sits, and a key naming that place alike in every call ("stay", "stay[2]"). */
export interface Slot extends Place {
  key: string;
  p: Point;
}

/** A date, a date-time or a time written inside a string, standing alone (not part of a longer number or code). */
const ISO_INNER = /\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?Z?)?|\d{1,2}:\d{2}(?::\d{2})?/.source;
const INNER = new RegExp(`(?<![\\w.:])(?:${ISO_INNER}|${INNER_WRITTEN.source})(?![\\w.:])`, 'g');
/** The points a string holds inside it, in order. */
export function innerPoints(arg: string, v: string, dayFirst = false): Slot[] {
  return [...v.slice(0, 400).matchAll(INNER)].flatMap((m, i) => {
    const p = pointOf(m[0], false, dayFirst);
    return p ? [{ arg, from: m.index, to: m.index + m[0].length, key: `${arg}[${i + 1}]`, p }] : [];
  });
}

/** Every point of a call: whole arguments in the schema's order, then those written inside a string argument. */
export function slotsOf(meta: EpisodicMeta, a: Action, dayFirst = false): Slot[] {
  const props = propsOf(meta, a.tool);
  const names = [...new Set([...Object.keys(props), ...Object.keys(a.args)])].filter((n) => n in a.args);
  const whole = names.flatMap((n): Slot[] => {
    const s = props[n] ?? {};
    const p = s.enum ? null : pointOf(a.args[n], s.type === 'integer', dayFirst);
    const typed = p && (p.form !== 'number' || s.type === 'number' || s.type === 'integer');
    return typed ? [{ arg: n, from: -1, to: -1, key: n, p }] : [];
  });
  const inner = names.flatMap((n) => {
    const v = a.args[n];
    return typeof v === 'string' && !props[n]?.enum && !whole.some((s) => s.arg === n)
      ? innerPoints(n, v, dayFirst)
      : [];
  });
  return [...whole, ...inner];
}

/** `a` with each place given a new value: a whole argument set, a point in a string rewritten where it stands. */
export function written(a: Action, puts: ReadonlyArray<readonly [Place, string | number]>): Action {
  const args = { ...a.args };
  for (const [s, v] of [...puts].sort(([x], [y]) => y.from - x.from)) {
    const text = String(args[s.arg]);
    args[s.arg] = s.from < 0 ? v : `${text.slice(0, s.from)}${v}${text.slice(s.to)}`;
  }
  return { tool: a.tool, args };
}

/** A length written in a string (ISO 8601 "P11D", "PT90M"; "11 nights", "2 hours"): its size in a point's unit. */
export interface Length extends Place {
  /** The length in the unit of a point of `form` (days for a date, minutes for a time), and its smallest step. */
  len: number;
  step: number;
  write(len: number): string;
}
const ISO_LEN = /(?<![\w.])P(?:(\d+)W|(\d+)D|T(?:(\d+)H)?(?:(\d+)M)?)(?![\w.])/g;
const WORD_LEN = /(?<![\w.:/-])(\d+)\s?(nights?|days?|weeks?|hours?|hrs?|h|minutes?|mins?)\b/gi;
const MINUTES: Record<string, number> = { n: 1440, d: 1440, w: 10_080, h: 60, m: 1 };

/** The lengths a string holds, in the unit of a point of `form` (a date counts days, a time or date-time minutes). */
export function lengthsIn(arg: string, v: string, form: string): Length[] {
  if (form === 'number') return [];
  const inUnit = (minutes: number) => (form === 'date' ? minutes / 1440 : minutes);
  const out: Length[] = [];
  for (const m of v.slice(0, 400).matchAll(ISO_LEN)) {
    const [, w, d, h, mi] = m;
    const minutes = w ? +w * 10_080 : d ? +d * 1440 : (h ? +h * 60 : 0) + (mi ? +mi : 0);
    const step = inUnit(w ? 10_080 : d ? 1440 : mi ? 1 : 60);
    if (!minutes || !Number.isInteger(step)) continue;
    const iso8601 = (n: number) => {
      const mins = form === 'date' ? n * 1440 : n;
      if (w) return `P${mins / 10_080}W`;
      if (d) return `P${mins / 1440}D`;
      return `PT${mins >= 60 ? `${Math.floor(mins / 60)}H` : ''}${mins % 60 ? `${mins % 60}M` : ''}`;
    };
    out.push({ arg, from: m.index, to: m.index + m[0].length, len: inUnit(minutes), step, write: iso8601 });
  }
  for (const m of v.slice(0, 400).matchAll(WORD_LEN)) {
    const [, n, word] = m as unknown as [string, string, string];
    const step = inUnit(MINUTES[word[0]?.toLowerCase() ?? ''] ?? 0);
    if (!step || !Number.isInteger(step)) continue;
    const write = (len: number) => `${len / step}${m[0].slice(n.length)}`;
    out.push({ arg, from: m.index, to: m.index + m[0].length, len: +n * step, step, write });
  }
  return out;
}
