// The upper bounds a code statement states for its inputs ("0 <= n <= 2000", "values below 10^9", "up to 10^5
// items", "year 2000 to 2400", "[0, 2000]"), each a value or a length, tied to a parameter where the statement names
// one, and what the hidden tests reach of each: the largest value, the longest list or string. Data for
// checks/code-bounds.ts.

/** One stated upper bound: on the values or on the lengths of a parameter (undefined: any parameter). */
export interface StatedBound {
  of: 'value' | 'length';
  bound: number;
  param?: number;
}

const NUM = String.raw`(\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][+-]?\d+)?(?:\s*(?:\^|\*\*)\s*\d+)?)`;
/** What a number after a bound counts: a length, not a magnitude. */
const COUNTED_WORDS = [
  'items?',
  'elements?',
  'entries',
  'entry',
  'numbers',
  'integers',
  'values',
  'strings',
  'words',
  'characters',
  'chars',
  'letters',
  'nodes',
  'edges',
  'pairs',
  'rows',
  'points',
  'readings',
  'digits',
  'symbols',
  'moments',
  'songs',
  'tasks',
];
const COUNTED = `(?:${COUNTED_WORDS.join('|')})\\b`;
const LENGTH_WORD = /\b(?:length|len|size|number of|count of|how many)\b[^.;,]{0,20}$/i;
const UPPER_WORDS =
  '(?:at most|up to|no more than|not more than|below|less than|under|not exceeding|smaller than|lower than)';

/** A stated number as a value ("10^5", "1,000", "2e9"); NaN when it is none. */
export function statedNumber(text: string): number {
  const power = /^(\d+(?:\.\d+)?)\s*(?:\^|\*\*)\s*(\d+)$/.exec(text.trim());
  if (power) return Number(power[1]) ** Number(power[2]);
  return Number(text.replace(/,/g, '').trim());
}

/** The parameter a word names: itself, or its plural or singular ("n" for ns, "nums" for num). */
function paramOf(word: string | undefined, params: readonly string[]): number | undefined {
  if (!word) return undefined;
  const at = params.findIndex((p) => p === word || p === `${word}s` || `${p}s` === word);
  return at < 0 ? undefined : at;
}

/** The last parameter named in the text before a bound (a short window), if any. */
function namedBefore(before: string, params: readonly string[]): number | undefined {
  const words = before.slice(-40).match(/[A-Za-z_$][\w$]*/g) ?? [];
  for (let i = words.length - 1; i >= 0; i--) {
    const at = paramOf(words[i], params);
    if (at !== undefined) return at;
  }
  return undefined;
}

/** Every upper bound the statement states (duplicates kept out). */
export function statedBounds(statement: string, params: readonly string[]): StatedBound[] {
  const text = statement.replace(/≤/g, '<=').replace(/≥/g, '>=').replace(/[−–]/g, '-');
  const found: StatedBound[] = [];
  const add = (of: StatedBound['of'], raw: string, param: number | undefined) => {
    const bound = statedNumber(raw);
    if (!Number.isFinite(bound) || bound <= 0) return;
    if (!found.some((b) => b.of === of && b.bound === bound && b.param === param))
      found.push(param === undefined ? { of, bound } : { of, bound, param });
  };
  // "n <= 2000", "x < 10^9": the word before the sign is the subject.
  for (const m of text.matchAll(new RegExp(String.raw`([A-Za-z_$][\w$]*)\s*\)?\s*<=?\s*${NUM}`, 'g'))) {
    const before = text.slice(0, m.index);
    add(LENGTH_WORD.test(`${before}${m[1]}`) ? 'length' : 'value', m[2] as string, paramOf(m[1], params));
  }
  // "at most 2000", "values below 10^9", "up to 10^5 items".
  for (const m of text.matchAll(new RegExp(String.raw`\b${UPPER_WORDS}\s+${NUM}(\s+${COUNTED})?`, 'gi'))) {
    const before = text.slice(0, m.index);
    const length = m[2] !== undefined || LENGTH_WORD.test(before);
    add(length ? 'length' : 'value', m[1] as string, namedBefore(before, params));
  }
  // "1 to 12", "from 2000 to 2400", "between 0 and 99".
  for (const m of text.matchAll(
    new RegExp(String.raw`(?:\bbetween\s+)?-?${NUM}\s+(?:to|and)\s+${NUM}(\s+${COUNTED})?`, 'gi'),
  )) {
    if (/\band\b/i.test(m[0]) && !/^between/i.test(m[0])) continue;
    const before = text.slice(0, m.index);
    const length = m[3] !== undefined || LENGTH_WORD.test(before);
    add(length ? 'length' : 'value', m[2] as string, namedBefore(before, params));
  }
  // "[0, 2000]", "0..2000": an interval's right end.
  for (const m of text.matchAll(
    new RegExp(String.raw`(?:\[\s*-?${NUM}\s*,\s*${NUM}\s*\]|\b${NUM}\s*\.\.\s*${NUM})`, 'g'),
  )) {
    const before = text.slice(0, m.index);
    add(LENGTH_WORD.test(before) ? 'length' : 'value', (m[2] ?? m[4]) as string, namedBefore(before, params));
  }
  return found;
}

/** The largest number, and the longest list or string, anywhere inside some values (each an argument). */
export function reach(values: readonly unknown[]): { value: number; length: number; numbers: boolean; lists: boolean } {
  const out = { value: Number.NEGATIVE_INFINITY, length: 0, numbers: false, lists: false };
  const walk = (v: unknown) => {
    if (typeof v === 'number' && Number.isFinite(v)) {
      out.numbers = true;
      out.value = Math.max(out.value, v);
    } else if (typeof v === 'string') {
      out.lists = true;
      out.length = Math.max(out.length, v.length);
    } else if (Array.isArray(v)) {
      out.lists = true;
      out.length = Math.max(out.length, v.length);
      v.forEach(walk);
    } else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
  };
  values.forEach(walk);
  return out;
}
