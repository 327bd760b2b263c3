// The numbers of a code statement no phrase of the bound reader reads that their own clause says of an input ("no
// value exceeds 10^9", "each 10^9 or less", "values can be as large as 10^9": rt25 B3), judged as that input's bounds
// so that a wording the phrase lists lack fails toward a judgement, not silence. Not counted: a number of an example,
// a formula, a date or time, a modulus, a place or time ("in 2024"), a lower bound, the task's own threshold.
import { NUMBER, statedNumber } from './bound-numbers.js';
import { placeOf, type Subject, taskThreshold, unreadSubject } from './bound-subject.js';

/** A number standing alone: not part of a word, an exponent, a formula or a comparison the reader reads. */
const LONE_NUMBER = new RegExp(String.raw`(?<![\w.$'"])${NUMBER}`, 'g');
/**
 * What before a number makes it no upper bound: a place, a time, a part or a modulus ("in 2024", "of 5"), an amount of
 * a change ("rotate by 90"; not "bounded by"), a lower bound ("at least 1"), an operator or a sign ("10 ^ 9", ">= 1").
 */
const NOT_MAGNITUDE = new RegExp(
  String.raw`(?:\b(?:in|on|at|since|during|after|before|until|till|from|of|for|with|per|to|into|within|around|modulo|` +
    String.raw`mod|at\s+least|no\s+(?:less|fewer)\s+than|not\s+(?:less|fewer)\s+than|` +
    String.raw`(?<!\b(?:bounded|limited|capped)\s+)by)|[\^*/+=<>%-])\s*$`,
  'i',
);
/** What after a number makes it a lower bound ("1 or more", "5 and up"). */
const LOWER_AFTER = /^\s*(?:or|and)\s+(?:more|greater|larger|higher|above|up|over)\b/i;
/** What after a number makes it part of something else: a word, a decimal, a formula, a date or time, "64-bit". */
const PART_OF = /^(?:[\w$(]|\.\d|\s*[*/^=%<>]|[-:/]\s*[\dA-Za-z]|\s*(?:st|nd|rd|th)\b)/;
/** Words that open an example: the numbers after them in their sentence are instances, not promises. */
const EXAMPLE = /\b(?:for example|for instance|e\.g|such as|example)\b/i;

/** A number the reader found no phrase for, tied to the input its own clause names. */
export interface UnreadNumber {
  raw: string;
  /** Where it stands in the text. */
  at: number;
  subject: Subject;
  /** The text right after it (a count's noun: "20 values or fewer"). */
  after: string;
}

/** Whether a position lies in a bracketed list ("[1, 2, 3]") or quotes of its sentence: an example's value. */
function quoted(text: string, from: number, pos: number): boolean {
  const before = text.slice(from, pos);
  return before.lastIndexOf('[') > before.lastIndexOf(']') || (before.match(/["`]/g)?.length ?? 0) % 2 === 1;
}

/**
 * The numbers of a statement no phrase read (`taken`: the spans the reader read), each said of an input by its own
 * clause; values the same sentence gives the task's own noun ("lines of 80 characters ...; no word is longer than 80
 * characters") are that threshold.
 */
export function unreadNumbers(
  text: string,
  taken: ReadonlyArray<readonly [number, number]>,
  params: readonly string[],
): UnreadNumber[] {
  const out: UnreadNumber[] = [];
  const numbers = [...text.matchAll(LONE_NUMBER)].map((m) => ({
    raw: m[1] as string,
    at: m.index ?? 0,
    end: (m.index ?? 0) + m[0].length,
    value: statedNumber(m[1] as string),
  }));
  const thresholds = numbers.filter((n) => taskThreshold(text, n.at, params));
  for (const n of numbers) {
    if (!(n.value > 0) || taken.some(([a, b]) => n.at < b && a < n.end)) continue;
    const { sentence } = placeOf(text, n.at);
    const after = text.slice(n.end, n.end + 40);
    if (PART_OF.test(after) || LOWER_AFTER.test(after) || NOT_MAGNITUDE.test(text.slice(Math.max(0, n.at - 16), n.at)))
      continue;
    if (quoted(text, sentence, n.at) || EXAMPLE.test(text.slice(sentence, n.at))) continue;
    if (thresholds.some((t) => t.value === n.value && placeOf(text, t.at).sentence === sentence)) continue;
    const subject = unreadSubject(text, n.at, params);
    if (subject !== null) out.push({ raw: n.raw, at: n.at, subject, after });
  }
  return out;
}
