// The upper bounds a code statement states for its inputs ("0 <= n <= 2000", "1 <= nums[i] <= 10^9", "values below
// 10^9", "up to 10^5 items", "year 2000 to 2400", "[0, 2000]"), each a value or a length, tied to what it bounds
// (code/bound-subject.ts: a parameter, the inputs, or no input at all), and what the hidden tests reach of each: the
// largest value, the longest list or string. Data for checks/code-bounds.ts.
import { ATOM, continuesNumber, NUMBER, normalizeNotation, statedNumber } from './bound-numbers.js';
import { paramOf, placeOf, SELECTION, type Subject, subjectAt } from './bound-subject.js';
import { UPPER_WORDS } from './bound-words.js';
import { unreadNumbers } from './bound-unread.js';

export { statedNumber } from './bound-numbers.js';

/**
 * One stated upper bound: on the values, the lengths or either ("size") of a parameter (undefined: any). A length's
 * `depth` says which lists of the argument it bounds where the statement tells (redteam-s24c K1): 0 the argument's own
 * length ("rows holds at most 2000 rows"), 1 each of its elements' ("each row has at most 20 values"); undefined where
 * the statement does not tell.
 */
export interface StatedBound {
  of: 'value' | 'length' | 'size';
  bound: number;
  param?: number;
  depth?: 0 | 1;
}

/** A bound the statement states of no input: the output, an aggregate, or nothing found. */
export interface UntiedBound {
  bound: number;
  subject: 'output' | 'aggregate' | 'none';
}

/** What the reader reads of a statement: the input bounds, the others, and how many bounds it could not read. */
export interface BoundReading {
  bounds: StatedBound[];
  untied: UntiedBound[];
  unread: number;
}

/** Counts with a plural of their own; any other plural noun after a bound counts too, unless it is a unit. */
const COUNTED_WORDS = /^(?:items?|elements?|entry|entries|characters|chars|letters|digits|symbols)$/i;
/** Units: a plural after a bound that measures, not counts. */
const UNITS = new RegExp(
  '^(?:(?:milli|micro|nano|kilo|centi)?(?:seconds|metres|meters|grams)|minutes|hours|days|weeks|months|years|' +
    'cents|dollars|euros|pounds|miles|feet|inches|yards|bytes|bits|degrees|percent|units|times|steps)$',
  'i',
);
/** Words ending in s that are no plural noun. */
const NOT_PLURAL = /^(?:is|as|was|has|its|this|thus|less|plus|unless|always|across|does|whereas|sometimes|yes|us)$/i;

/** Words that end a bound's noun phrase: a preposition, a conjunction, a verb, a determiner. */
const PHRASE_END =
  /^(?:in|on|of|for|at|to|by|with|from|per|and|or|but|is|are|be|each|every|all|any|the|a|an|its|their)$/i;

/**
 * Whether the words after a bound make it a count: a counting word, a parameter's name, a plural not a unit, right
 * after it or after one modifier ("at most 20 positive integers", "up to 50 lowercase letters").
 */
function counts(after: string, params: readonly string[]): boolean {
  const [first, second] = [...after.matchAll(/^\s+([A-Za-z][\w-]*)(?:\s+([A-Za-z][\w-]*))?/g)][0]?.slice(1) ?? [];
  const noun = (word: string | undefined) =>
    word !== undefined &&
    !UNITS.test(word) &&
    !NOT_PLURAL.test(word) &&
    (COUNTED_WORDS.test(word) || paramOf(word, params) !== undefined || /[a-z]{2}s$/.test(word));
  if (first === undefined || UNITS.test(first) || NOT_PLURAL.test(first)) return false;
  return noun(first) || (!PHRASE_END.test(first) && noun(second));
}

/** A subject atom ending right before a comparison sign: "n", "nums[i]", "nums.length", "len(nums)", "|v|", "a_i". */
const ATOM_END = new RegExp(
  String.raw`(?:(len|size|abs)\s*\(\s*([A-Za-z_$][\w$]*)\s*\)|\|\s*([A-Za-z_$][\w$]*)((?:\s*\[[^\]|]{0,20}\])*)\s*\||` +
    String.raw`([A-Za-z_$][\w$]*)((?:\s*\[[^\]]{0,20}\]|\s*\.\s*[A-Za-z_$][\w$]*)*))(?:\s*\))*\s*$`,
);
/** Calls that measure a list's or string's length. */
const LENGTH_CALL = /^(?:len|size|length|strlen)$/i;
/** A call open right before an atom ("max(", "F("). */
const OPEN_CALL = /(?<![\w$])([A-Za-z_$][\w$]*)\(\s*$/;
/** A subject atom starting right after a sign ("10^9 >= x"). */
const ATOM_START = /^\s*([A-Za-z_$][\w$]*)((?:\s*\[[^\]]{0,20}\]|\s*\.\s*[A-Za-z_$][\w$]*)*)/;

/** A number at the start of a text, as an expression. */
const NUMBER_START = new RegExp(`^\\s*${NUMBER}`);
/** How far either side of a comparison sign its subject and number are read. */
const WINDOW = 60;

/** A name, or a subscripted name ("a_i", "a_{i}"), as a parameter. */
function nameParam(name: string, params: readonly string[]): number | undefined {
  return paramOf(name, params) ?? paramOf(/^(.+?)_(?:\w{1,2}|\{\w+\})$/.exec(name)?.[1], params);
}

/** The subject of a comparison whose atom is given: a parameter expression, else what the text around it says. */
function atomSubject(
  text: string,
  at: number,
  atom: { name: string; of?: 'value' | 'length' | 'size'; indexed?: boolean },
  params: readonly string[],
): Subject {
  // The calls around the atom: a selection of one value ("max(nums)", "max(abs(nums[i]))", "min(|a_i|)") is one of
  // the parameter's values (rt25 B1); any other function ("F(n) < 2^63") computes a quantity of its own (rt24 C2).
  let before = text.slice(Math.max(0, at - 40), at);
  let selected = false;
  for (let m = OPEN_CALL.exec(before); m !== null; m = OPEN_CALL.exec(before)) {
    // A length call of an element ("len(words[i]) <= 12") measures the element: the parameter's lists one level in.
    const param = nameParam(atom.name, params);
    if (LENGTH_CALL.test(m[1] as string) && atom.indexed === true && param !== undefined && !selected)
      return { tie: 'param', param, of: 'length', elements: true };
    if (!SELECTION.test(m[1] as string)) return { tie: 'output' };
    selected = true;
    before = before.slice(0, m.index);
  }
  if (/[\w)\]]\s*[*+/-]\s*$/.test(before.slice(-12))) return { tie: 'aggregate' };
  const param = nameParam(atom.name, params);
  if (param !== undefined) {
    const of = selected ? 'value' : (atom.of ?? 'value');
    return of === 'length' && atom.indexed === true
      ? { tie: 'param', param, of, elements: true }
      : { tie: 'param', param, of };
  }
  // A symbol of its own ("n <= 10^5") is compared, not governed by a verb of the task (rt24 C1).
  const s = subjectAt(text, at, params, true);
  return atom.of !== undefined && (s.tie === 'param' || s.tie === 'any') ? { ...s, of: atom.of } : s;
}

/**
 * The atoms listed before a chain's last subject ("1 <= a[i], b[i] <= 10^9", "0 < x, y and z <= 9": redteam-s18 C4),
 * each a parameter expression joined by a comma or "and", the list opened by the chain's lower bound.
 */
function listedAtoms(before: string, params: readonly string[]): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  let rest = before;
  for (let k = 0; k < 6; k++) {
    const sep = /(?:,|\band)\s*$/.exec(rest);
    const atom = sep && ATOM_END.exec(rest.slice(0, sep.index));
    if (!atom || nameParam(atomOf(atom).name, params) === undefined) return [];
    out.push(atom);
    rest = rest.slice(0, atom.index);
    if (/<=?\s*$/.test(rest)) return out;
  }
  return [];
}

/**
 * What an atom's syntax says it bounds: a length (".length", "len()"), a value (indexed), either (|x|); `indexed`: it
 * names an element ("words[i]", "words[i].length").
 */
function atomOf(m: RegExpExecArray): { name: string; of?: 'value' | 'length' | 'size'; indexed?: boolean } {
  if (m[2] !== undefined) return { name: m[2], of: m[1] === 'abs' ? 'value' : 'length' };
  if (m[3] !== undefined) return { name: m[3], of: m[4] || /_(?:\w{1,2}|\{\w+\})$/.test(m[3]) ? 'value' : 'size' };
  const name = m[5] as string;
  const tail = m[6] ?? '';
  const indexed = /^\s*\[/.test(tail);
  if (/\.\s*(?:length|size)\s*$/.test(tail)) return { name, of: 'length', indexed };
  return tail || /_(?:\w{1,2}|\{\w+\})$/.test(name) ? { name, of: 'value', indexed } : { name };
}

/** Every bound the statement states, tied to what it bounds, and the bounds it states that it could not read. */
export function readBounds(statement: string, params: readonly string[]): BoundReading {
  const text = normalizeNotation(statement);
  const out: BoundReading = { bounds: [], untied: [], unread: 0 };
  const add = (raw: string, subject: Subject, count: boolean, at: number) => {
    const bound = statedNumber(raw);
    if (!Number.isFinite(bound)) return;
    // A bound of zero or less is no size a test must reach: an unread promise, counted (redteam-s18 C5).
    if (bound <= 0) {
      out.unread++;
      return;
    }
    if (subject.tie === 'param' || subject.tie === 'any') {
      // A list of subjects shares the bound ("n and m are at most 16": rt24 C4).
      const of = count ? 'length' : subject.of;
      const tied = subject.tie === 'param' ? [...(subject.also ?? []), subject.param] : [undefined];
      const depth =
        subject.tie === 'param' && of === 'length' && (subject.elements === true || ofElements(text, at))
          ? { depth: 1 as const }
          : {};
      for (const param of tied) {
        const b: StatedBound = param === undefined ? { of, bound } : { of, bound, param, ...depth };
        const same = (o: StatedBound) => o.of === b.of && o.bound === bound && o.param === b.param;
        if (!out.bounds.some((o) => same(o) && o.depth === b.depth)) out.bounds.push(b);
      }
    } else if (!out.untied.some((o) => o.bound === bound && o.subject === subject.tie))
      out.untied.push({ bound, subject: subject.tie });
  };
  // The spans of the numbers read (or counted unread), which no later reading counts again.
  const taken: [number, number][] = [];
  /** The number at a place of the text, if it is whole (an unread one is counted). */
  const numberAt = (base: number): { raw: string; end: number } | null => {
    const after = text.slice(base, base + WINDOW);
    const m = NUMBER_START.exec(after);
    if (m === null) return null;
    taken.push([base + m[0].length - (m[1] as string).length, base + m[0].length]);
    if (continuesNumber(after.slice(m[0].length))) {
      out.unread++;
      return null;
    }
    return { raw: m[1] as string, end: m[0].length };
  };
  // Comparisons: "SUBJECT <= N" (a chain's right half included), "N >= SUBJECT"; each side read in a short window.
  const numberEnd = new RegExp(`(?<![\\d,.])${NUMBER}\\s*$`);
  for (const m of text.matchAll(/(?<![<>=-])(<=?|>=?)(?![=>])/g)) {
    const at = m.index ?? 0;
    const from = Math.max(0, at - WINDOW);
    const before = text.slice(from, at);
    const after = text.slice(at + m[0].length, at + m[0].length + WINDOW);
    const left = numberEnd.exec(before);
    const leftNumber = left?.[1];
    if (m[0].startsWith('<') && leftNumber === undefined && /^\s*\d/.test(after)) {
      const n = numberAt(at + m[0].length);
      const atom = ATOM_END.exec(before);
      if (n === null || atom === null) continue;
      add(n.raw, atomSubject(text, from + atom.index, atomOf(atom), params), false, from + atom.index);
      for (const other of listedAtoms(before.slice(0, atom.index), params))
        add(n.raw, atomSubject(text, from + other.index, atomOf(other), params), false, from + other.index);
    } else if (m[0].startsWith('>') && leftNumber !== undefined && !/^\s*\d/.test(after)) {
      const atom = ATOM_START.exec(after);
      if (atom === null || left === null) continue;
      taken.push([from + left.index, from + left.index + (leftNumber as string).length]);
      const of = /\.\s*(?:length|size)\s*$/.test(atom[2] ?? '') ? 'length' : atom[2] ? 'value' : undefined;
      const indexed = /^\s*\[/.test(atom[2] ?? '');
      const subject = atomSubject(text, at + m[0].length, { name: atom[1] as string, of, indexed }, params);
      add(leftNumber, subject, false, at + m[0].length);
    }
  }
  // The scans below start at a word or a single number and read the bound in a window after it: a statement of
  // many numbers costs linear time.
  const read = (start: number, end: number, tail?: RegExp) => {
    const n = numberAt(end);
    if (n === null || (tail !== undefined && !tail.test(text.slice(end + n.end, end + n.end + 8)))) return;
    taken.push([start, end]);
    add(n.raw, subjectAt(text, start, params), counts(text.slice(end + n.end, end + n.end + 40), params), start);
  };
  // Words: "at most 2000", "values below 10^9", "up to 10^5 items", "never exceeds 50,000"; a named limit no table
  // reads ("at most MAX_N": redteam-s24c K2) is counted unread, not skipped.
  for (const m of text.matchAll(new RegExp(String.raw`\b${UPPER_WORDS}\b`, 'gi'))) {
    const end = (m.index ?? 0) + m[0].length;
    if (NAMED_LIMIT.test(text.slice(end, end + WINDOW))) out.unread++;
    else read(m.index ?? 0, end);
  }
  // Ranges: "1 to 12", "from 2000 to 2400", "between 0 and 99".
  for (const m of text.matchAll(
    new RegExp(String.raw`(?:\bbetween\s+)?(?<![\w.^*])-?${ATOM}\s+(?:to|and)\s+(?=\d)`, 'gi'),
  )) {
    if (/\band\s*$/i.test(m[0]) && !/^between/i.test(m[0])) continue;
    read(m.index ?? 0, (m.index ?? 0) + m[0].length);
  }
  // Intervals: "[0, 2000]", "0..2000": the right end.
  for (const m of text.matchAll(new RegExp(String.raw`\[\s*-?${ATOM}\s*,\s*(?=\d)`, 'g')))
    read(m.index ?? 0, (m.index ?? 0) + m[0].length, /^\s*\]/);
  for (const m of text.matchAll(new RegExp(String.raw`(?<![\w.])${ATOM}\s*\.\.\s*(?=\d)`, 'g')))
    read(m.index ?? 0, (m.index ?? 0) + m[0].length);
  // Numbers no phrase reads that their own clause says of an input are judged as that input's bounds (rt25 B3).
  for (const u of unreadNumbers(text, taken, params)) add(u.raw, u.subject, counts(u.after, params), u.at);
  // Where the statement bounds an argument's elements' lengths, its other lengths, said of the argument, are the
  // argument's own (K1: "rows holds at most 2000 rows; each row has at most 20 values").
  const nested = new Set(out.bounds.flatMap((b) => (b.depth === 1 ? [b.param] : [])));
  for (const b of out.bounds) if (b.of === 'length' && b.depth === undefined && nested.has(b.param)) b.depth = 0;
  return out;
}

/** A named limit after an upper bound's words: a constant's name ("MAX_N", "Long.MAX_VALUE", "i32::MAX"). */
const NAMED_LIMIT = /^\s*(?:the\s+)?(?:[A-Za-z_$][\w$]*(?:\.|::))*(?:[A-Z][A-Z0-9]*_[A-Z0-9_]*|MAX\w*|MIN\w*)\b/;

/**
 * Whether a bound at a place is said of an input's elements: its clause speaks of each or every one of them ("each
 * row has at most 20 values", "words ..., each of at most 12 letters"), not of each test or call.
 */
function ofElements(text: string, at: number): boolean {
  const { clause } = placeOf(text, at);
  return /\b(?:each|every)\b(?!\s+(?:tests?|inputs?|cases?|calls?|quer(?:y|ies)|levels?|instances?)\b)/i.test(
    text.slice(clause, at),
  );
}

/** Every upper bound the statement states of its inputs (duplicates kept out). */
export function statedBounds(statement: string, params: readonly string[]): StatedBound[] {
  return readBounds(statement, params).bounds;
}

/** The largest magnitude, and the longest list or string, anywhere inside some values (each an argument). */
export function reach(values: readonly unknown[]): { value: number; length: number; numbers: boolean; lists: boolean } {
  const out = { value: Number.NEGATIVE_INFINITY, length: 0, numbers: false, lists: false };
  const walk = (v: unknown) => {
    if (typeof v === 'number' && Number.isFinite(v)) {
      out.numbers = true;
      out.value = Math.max(out.value, Math.abs(v));
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
