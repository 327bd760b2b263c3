// Dates written as people write them (redteam-trust11 H3): each notation a reference sends ("14 Mar 2026", "March 14,
// 2026", "03/14/2026", "14.03.2026", "2026/03/14", "2026-W11-6", "day 73", epoch seconds) read as a day or a minute on
// one line, and written back in the very form it was read in (its month word, case, padding and separators).

/** A date read from its notation: where it sits (days, or minutes for epoch seconds) and how to write one back. */
export interface Written {
  at: number;
  form: 'date' | 'datetime';
  write(at: number): string;
}

const DAY = 86_400_000;
const MONTHS = 'january february march april may june july august september october november december'.split(' ');
const ymd = (t: number) => {
  const d = new Date(t * DAY);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()] as const;
};
/** The day of (y, m, d), or null where no such date exists (31 Feb). */
const dayOf = (y: number, m: number, d: number) => {
  const t = Date.UTC(y, m - 1, d) / DAY;
  return Number.isFinite(t) && ymd(t).join() === [y, m, d].join() ? t : null;
};
/** A number zero-padded to two places where `wide`. */
const padded = (n: number, wide: boolean) => String(n).padStart(wide ? 2 : 1, '0');

/** A month's word: its number, and how to write another month alike (abbreviated or whole, in the same case). */
function monthWord(word: string): [number, (m: number) => string] | null {
  const w = word.toLowerCase().replace(/\.$/, '');
  const k = MONTHS.findIndex((n) => n === w || (w.length === 3 && n.startsWith(w)));
  if (k < 0) return null;
  const cased = (s: string) =>
    word === word.toUpperCase()
      ? s.toUpperCase()
      : word === word.toLowerCase()
        ? s
        : `${s[0]?.toUpperCase()}${s.slice(1)}`;
  const short = w.length < (MONTHS[k] as string).length;
  const dot = word.endsWith('.') ? '.' : '';
  return [k + 1, (m: number) => cased(short ? (MONTHS[m - 1] ?? '').slice(0, 3) : (MONTHS[m - 1] ?? '')) + dot];
}

/** A date with its month named: "14 Mar 2026", "14-March-2026", "March 14, 2026", "mar 14 2026". */
function named(v: string): Written | null {
  const dmy = /^(\d{1,2})([ -])([A-Za-z]{3,9}\.?)\2(\d{4})$/.exec(v);
  const mdy = dmy ? null : /^([A-Za-z]{3,9}\.?) (\d{1,2})(,? )(\d{4})$/.exec(v);
  const [day, month, year] = dmy ? [dmy[1], dmy[3], dmy[4]] : mdy ? [mdy[2], mdy[1], mdy[4]] : [];
  const word = month ? monthWord(month) : null;
  const at = word ? dayOf(+(year as string), word[0], +(day as string)) : null;
  if (at === null || !word) return null;
  const write = (t: number) => {
    const [y, m, d] = ymd(t);
    const dd = padded(d, (day as string).startsWith('0'));
    return dmy ? `${dd}${dmy[2]}${word[1](m)}${dmy[2]}${y}` : `${word[1](m)} ${dd}${mdy?.[3]}${y}`;
  };
  return { at, form: 'date', write };
}

/**
 * A date of numbers and one separator: "2026/03/14" (year first), "14.03.2026" (day first), "03/14/2026" or
 * "14/03/2026" (month first unless its first number cannot be a month, or `dayFirst`: the log's own dates show it).
 */
function numeric(v: string, dayFirst: boolean): Written | null {
  const m = /^(\d{1,4})([/.-])(\d{1,2})\2(\d{1,4})$/.exec(v);
  if (!m) return null;
  const [, a, sep, b, c] = m as unknown as [string, string, string, string, string];
  if (a.length !== 4 && c.length !== 4) return null;
  const order = a.length === 4 ? 'ymd' : sep === '.' || ((dayFirst || +a > 12) && +b <= 12) ? 'dmy' : 'mdy';
  const [y, mo, d] = order === 'ymd' ? [a, b, c] : order === 'dmy' ? [c, b, a] : [c, a, b];
  const at = dayOf(+y, +mo, +d);
  if (at === null) return null;
  // Padded where a part is ("03/14/2026", "12/14/2026"), not where one is a single digit ("3/14/2026").
  const wide = mo.startsWith('0') || d.startsWith('0') || (mo.length === 2 && d.length === 2);
  const write = (t: number) => {
    const [yy, mm, dd] = ymd(t);
    const [ys, ms, ds] = [String(yy), padded(mm, wide), padded(dd, wide)];
    return (order === 'ymd' ? [ys, ms, ds] : order === 'dmy' ? [ds, ms, ys] : [ms, ds, ys]).join(sep);
  };
  return { at, form: 'date', write };
}

/** An ISO week date, "2026-W11-6" or "2026W116": Monday of week 1 is the Monday on or before 4 January. */
function week(v: string): Written | null {
  const m = /^(\d{4})(-?)W(\d{2})\2([1-7])$/.exec(v);
  if (!m) return null;
  const weekday = (t: number) => ((new Date(t * DAY).getUTCDay() + 6) % 7) + 1;
  const jan4 = Date.UTC(+(m[1] as string), 0, 4) / DAY;
  const at = jan4 - weekday(jan4) + 1 + (+(m[3] as string) - 1) * 7 + +(m[4] as string) - 1;
  if (+(m[3] as string) < 1 || ymd(at + 4 - weekday(at))[0] !== +(m[1] as string)) return null;
  const write = (t: number) => {
    const thursday = t + 4 - weekday(t);
    const year = ymd(thursday)[0];
    const n = Math.floor((thursday - Date.UTC(year, 0, 1) / DAY) / 7) + 1;
    return `${year}${m[2]}W${String(n).padStart(2, '0')}${m[2]}${weekday(t)}`;
  };
  return { at, form: 'date', write };
}

/** A day number ("day 73", "Day-5"), or epoch seconds in a string (whole minutes, this century). */
function counted(v: string): Written | null {
  const day = /^(day|Day|DAY)([ #_-]?)(\d{1,5})$/.exec(v);
  if (day) return { at: +(day[3] as string), form: 'date', write: (t) => `${day[1]}${day[2]}${t}` };
  const s = /^\d{9,10}$/.test(v) ? +v : Number.NaN;
  return s >= 946_684_800 && s < 4_102_444_800 && s % 60 === 0
    ? { at: s / 60, form: 'datetime', write: (t) => String(t * 60) }
    : null;
}

/** `v` read in whichever notation it is written in, or null. */
export const writtenDate = (v: string, dayFirst = false): Written | null =>
  v.length > 20 ? null : (named(v) ?? numeric(v, dayFirst) ?? week(v) ?? counted(v));

/** A date of those notations written inside a longer string (the day-number and epoch forms only stand alone). */
export const INNER_WRITTEN = new RegExp(
  [
    /\d{1,2}[ -][A-Za-z]{3,9}\.?[ -]\d{4}/,
    /[A-Za-z]{3,9}\.? \d{1,2},? \d{4}/,
    /\d{1,4}[/.]\d{1,2}[/.]\d{1,4}/,
    /\d{4}-?W\d{2}-?[1-7]/,
  ]
    .map((r) => r.source)
    .join('|'),
);

/** Whether the slash or dash dates of `values` put the day first: one's first number is over 12, none's second. */
export function dayFirstIn(values: readonly string[]): boolean {
  const found = values.flatMap((v) => [...v.slice(0, 400).matchAll(/(?<![\d/.-])(\d{1,2})[/-](\d{1,2})[/-]\d{4}/g)]);
  return found.some((m) => +(m[1] as string) > 12) && !found.some((m) => +(m[2] as string) > 12);
}
