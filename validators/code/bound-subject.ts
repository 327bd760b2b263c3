// What a stated bound bounds, read from the statement around it: the nearest named quantity it compares, a parameter
// (named, or an expression over one: "nums[i]", "nums.length", "len(nums)", "|v|", "a_i"), the inputs at large
// ("each value", a constraints section), the output or a quantity computed from the inputs ("every answer", "F(n)",
// "the n-th Fibonacci number", "returns"), an aggregate ("the sum", "n * m"), a noun of the task ("lines of at most
// 80 characters"), or nothing. Only a bound tied to an input constrains the hidden tests.
import {
  AGGREGATE,
  beside,
  CONDITION,
  DETERMINER,
  existential,
  INPUTISH,
  LENGTH_WORD,
  namedNoun,
  OUTPUT,
  paramOf,
  SELECTING,
  UPPER_WORDS,
  type Word,
  words,
} from './bound-words.js';

export { paramOf, SELECTION } from './bound-words.js';

/**
 * A bound's subject; `of` says what of an argument it bounds ("size": a list's length or a number's magnitude), `also`
 * the other parameters a list of subjects names ("n and m are at most 16"), `elements` that the syntax names the
 * parameter's elements ("len(words[i])").
 */
export type Subject =
  | { tie: 'param'; param: number; of: 'value' | 'length' | 'size'; also?: number[]; elements?: boolean }
  | { tie: 'any'; of: 'value' | 'length' | 'size' }
  | { tie: 'output' | 'aggregate' | 'none' };

/** Words that tell a length: "the length of nums", "the number of items in nums", "nums.length". */
const LENGTH_BEFORE = /\b(?:length|len|size|number\s+of|count\s+of|how\s+many)\b[^.;,()]{0,25}$/i;
const AGGREGATE_BEFORE = /\b(?:sum|total|product|average|mean)\s+of\b[^.;,()]{0,20}$/i;
const LENGTH_AFTER = /^\s*\.\s*(?:length|size)\b/;
/**
 * Where a clause starts: a bracket (not a call's: "F(n)"), a comma, a colon or semicolon, a relative word, a
 * subordinating word ("since values are", "because every value is", "as each value may be": rt25 B4; not the "as"
 * of a comparison, "as large as").
 */
const CLAUSE_START = new RegExp(
  String.raw`(?<![\w$])\(|[,;:]|\b(?:where|which|and|while|with|since|because|although|though|whereas|unless)\b|` +
    String.raw`\bas(?=\s+(?:(?:each|every|all|no|any|the|its|their)\s+)?[\w$]+\s+(?:is|are|may|can|must|will|never)\b)`,
  'gi',
);
/** Pronouns and quantifiers that stand for a subject named before ("all", "none", "they", "each of them"). */
const ANAPHOR = /^(?:all|none|each|every|both|they|these|those)$/i;
/** Verbs of the task: what follows them is what the task reads or returns. */
const TASK_VERB = /^(?:returns?|returning|returned|computes?|prints?|outputs?)$/i;
/** How far back a sentence is read (a longer one is read from there). */
const SENTENCE_REACH = 240;
/** Where a sentence starts: a full stop before a space, a line break. */
const SENTENCE_START = /[.!?](?=\s)|\n/g;
/** A section of input constraints starts with its heading; one of output ends it. */
const INPUT_HEADING = /\b(?:constraints?|input)\s*(?::|\n)/gi;
const OUTPUT_HEADING = /\b(?:output|returns?)\s*(?::|\n)/gi;

/** The ends of a pattern's matches in the text last read, found once per text and pattern. */
let found: { text: string; ends: Map<RegExp, number[]> } | null = null;

/** The end of the last match of a pattern that ends at or before a position (0 when none). */
function lastEnd(text: string, pattern: RegExp, pos: number): number {
  if (found?.text !== text) found = { text, ends: new Map() };
  let ends = found.ends.get(pattern);
  if (ends === undefined) {
    ends = [...text.matchAll(pattern)].map((m) => (m.index ?? 0) + m[0].length);
    found.ends.set(pattern, ends);
  }
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ends[mid] as number) <= pos) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? 0 : (ends[lo - 1] as number);
}

/** Whether a position lies in a constraints section (after its heading, before an output heading). */
export function inInputSection(text: string, pos: number): boolean {
  const input = lastEnd(text, INPUT_HEADING, pos);
  return input > 0 && input > lastEnd(text, OUTPUT_HEADING, pos);
}

/** What of a parameter a mention of it bounds, from the words around it. */
function paramReading(text: string, w: Word): 'value' | 'length' | 'aggregate' {
  const before = text.slice(Math.max(0, w.at - 40), w.at);
  if (LENGTH_AFTER.test(text.slice(w.at + w.word.length, w.at + w.word.length + 12))) return 'length';
  if (AGGREGATE_BEFORE.test(before)) return 'aggregate';
  return LENGTH_BEFORE.test(before) ? 'length' : 'value';
}

/** The words a verb of the task governs in the text last read, found once per text (rt24 C2). */
let governed: { text: string; words: Set<string> } | null = null;

/** Whether the task returns a word: it stands after a verb of the task in its clause ("return the number of ways"). */
function returned(text: string, word: string): boolean {
  if (governed?.text !== text) {
    const found = new Set<string>();
    for (const m of text.matchAll(/\b(?:returns?|computes?|prints?|outputs?)\b([^.;:\n]{0,200})/gi))
      for (const w of (m[1] as string).matchAll(/[A-Za-z]+/g)) found.add(w[0].toLowerCase());
    governed = { text, words: found };
  }
  return governed.words.has(word.toLowerCase());
}

/**
 * A call of a function the statement names ("F(n)", "fib(90)"), open before a word; not an input's measure nor a
 * selection of one of its values ("max(nums)": rt25 B1).
 */
const IN_CALL = new RegExp(`(?<![\\w$])(?!(?:len|size|length|count|${SELECTING})\\()[A-Za-z_$][\\w$]*\\([^()]*$`, 'i');

/**
 * Whether a word names a quantity the statement computes from the inputs, no input itself (rt24 C2): a call
 * ("F(90)"), a parameter inside one ("F(n)"), a term of an expression ("nums[i] * k"), an ordinal ("the n-th
 * Fibonacci number"), an input noun qualified by a name ("every Fibonacci number"), or a count of what the task
 * returns ("the number of ways", where the task returns "the number of ways to climb").
 */
function computed(text: string, ws: readonly Word[], i: number, params: readonly string[]): boolean {
  const w = ws[i] as Word;
  if (IN_CALL.test(`${w.word}${text.slice(w.at + w.word.length, w.at + w.word.length + 1)}`)) return true;
  if (IN_CALL.test(text.slice(Math.max(0, w.at - 20), w.at))) return true;
  if (/^[a-z](?:-th|th)$/i.test(w.word)) return true;
  const next = ws[i + 1]?.word ?? '';
  if (i > 0 && /^[A-Z][a-z]+$/.test(w.word) && !INPUTISH.test(w.word) && INPUTISH.test(next)) return true;
  if (paramOf(w.word, params) !== undefined) {
    // A parameter as a term of an expression ("nums[i] * k") names what the expression computes, not itself.
    const after = text.slice(w.at + w.word.length, w.at + w.word.length + 24).replace(/^\s*\[[^\]]{0,20}\]/, '');
    return /[\w)\]]\s*[*+/-]\s*$/.test(text.slice(Math.max(0, w.at - 12), w.at)) || /^\s*[*+/-]\s*[\w(]/.test(after);
  }
  if (INPUTISH.test(w.word)) return false;
  return /\b(?:number|count)\s+of\s+$/i.test(text.slice(Math.max(0, w.at - 20), w.at)) && returned(text, w.word);
}

/**
 * A noun of the task the bound measures, the one it follows, that the task makes the inputs into ("wrap them into
 * lines of at most 80 characters", "pack them into boxes holding up to 1000 grams": rt24 C3): no parameter, input word
 * or measure, in a clause that gives nothing of the inputs.
 */
function taskNoun(text: string, from: number, pos: number, params: readonly string[]): boolean {
  const stretch = text.slice(from, pos);
  const into = /\binto\s+(?:[\w-]+\s+){0,3}?([A-Za-z]{2,})\s+(?:of|holding|with|containing)\s*$/i;
  const noun = into.exec(stretch)?.[1];
  if (noun === undefined || /\bgiven\b/i.test(stretch)) return false;
  return paramOf(noun, params) === undefined && !INPUTISH.test(noun) && !LENGTH_WORD.test(noun);
}

/** What a clause's own words tell: a subject, the inputs at large (their values or lengths), or nothing. */
type Cue = { subject: Subject; at?: number } | { input: 'value' | 'length' } | null;

/** The cue a clause gives, its words read back from the bound: the nearest named quantity, else input wording. */
function clauseCue(text: string, ws: Word[], params: readonly string[]): Cue {
  let inputish = false;
  for (let i = ws.length - 1; i >= 0; i--) {
    const w = ws[i] as Word;
    if (computed(text, ws, i, params)) return { subject: { tie: 'output' } };
    const param = paramOf(w.word, params);
    // A parameter after a condition's preposition, with words between it and the bound, is no subject (rt25 B2).
    if (param !== undefined && i < ws.length - 1 && CONDITION.test(ws[i - 1]?.word ?? '') && beside(text, ws[i - 1], w))
      continue;
    if (param !== undefined) {
      // A parameter after a verb of the task is what the task reads, not a clause's subject.
      if (ws.slice(0, i).some((v) => TASK_VERB.test(v.word))) return { subject: { tie: 'output' } };
      const reading = paramReading(text, w);
      const subject: Subject = reading === 'aggregate' ? { tie: 'aggregate' } : { tie: 'param', param, of: reading };
      return { subject, at: w.at };
    }
    if (OUTPUT.test(w.word)) return { subject: { tie: 'output' } };
    if (AGGREGATE.test(w.word)) return { subject: { tie: 'aggregate' } };
    if (INPUTISH.test(w.word)) inputish = true;
    // A noun no reader knows, named as the subject ("the count is below", "the profit is at most"), is a quantity of
    // its own: untied (rt25 B2).
    else if (namedNoun(text, ws, i)) return { subject: { tie: 'none' } };
  }
  // Input words stand for the inputs only as the clause's subject ("each value", "values below", "whose length"), not
  // an object.
  const first = ws[0]?.word ?? '';
  const subject = DETERMINER.test(first) || INPUTISH.test(first) || LENGTH_WORD.test(first);
  if (subject && ws.some((w) => LENGTH_WORD.test(w.word))) return { input: 'length' };
  return inputish && subject ? { input: 'value' } : null;
}

/**
 * The parameters a list names before its last ("n and m are at most 16", "a, b and c each up to 9": rt24 C4), where
 * the list ends with "and" and its words say it is shared (a plural verb; "both", "each", "all" before or after it).
 */
function listedBefore(text: string, at: number, pos: number, params: readonly string[]): number[] {
  const out: number[] = [];
  let end = at;
  for (let k = 0; k < 6; k++) {
    const m = /(?<![\w$])([A-Za-z_$][\w$]*)(?:\s*\[[^\]]{0,20}\]|_\w{1,2})?\s*(,\s*and\s+|,\s*|\s+and\s+)$/.exec(
      text.slice(Math.max(0, end - 40), end),
    );
    const param = paramOf(m?.[1], params);
    if (m === null || param === undefined || (k === 0 && !/and/.test(m[2] as string))) break;
    out.push(param);
    end -= m[0].length;
  }
  const shared = /\b(?:are|were|have|both|each|all|exceed)\b/i.test(text.slice(at, pos + 16));
  return shared || /\b(?:both|each|all)\s+$/i.test(text.slice(Math.max(0, end - 8), end)) ? out : [];
}

/** Where the sentence and the clause of a position start. */
export function placeOf(text: string, pos: number): { sentence: number; clause: number } {
  const sentence = Math.max(lastEnd(text, SENTENCE_START, pos), pos - SENTENCE_REACH);
  return { sentence, clause: Math.max(sentence, lastEnd(text, CLAUSE_START, pos)) };
}

/**
 * The input a number no phrase reads bounds (rt25 B3): where its own clause names an input as its subject (a
 * parameter, or input words: "no value exceeds", "nums can be as large as"), what `subjectAt` ties it to; null where
 * the clause names none, or where the number is what the task makes the inputs into ("into lines of 80").
 */
export function unreadSubject(text: string, pos: number, params: readonly string[]): Subject | null {
  const { clause } = placeOf(text, pos);
  const own = clauseCue(text, words(text, clause, pos), params);
  if (own === null || ('subject' in own && own.subject.tie !== 'param') || taskNoun(text, clause, pos, params))
    return null;
  const subject = subjectAt(text, pos, params);
  return subject.tie === 'param' || subject.tie === 'any' ? subject : null;
}

/** An upper bound's phrase right before a number ("lines of at most 80"). */
const UPPER_BEFORE = new RegExp(String.raw`\b${UPPER_WORDS}\s*$`, 'i');

/** Whether a number at a position is what the task makes the inputs into ("wrap them into lines of 80 characters"). */
export function taskThreshold(text: string, pos: number, params: readonly string[]): boolean {
  const phrase = UPPER_BEFORE.exec(text.slice(Math.max(0, pos - 30), pos));
  const at = phrase === null ? pos : pos - phrase[0].length;
  return taskNoun(text, placeOf(text, at).clause, at, params);
}

/**
 * The subject of a bound whose comparison starts at `pos`: the nearest named quantity of its clause, else of its
 * sentence before it; a clause of input words alone is tied to the parameter its sentence names, else to any
 * argument. `symbol`: the bound compares a symbol of its own ("n <= 10^5"), which no verb of the task governs.
 */
export function subjectAt(text: string, pos: number, params: readonly string[], symbol = false): Subject {
  const { sentence, clause } = placeOf(text, pos);
  const ws = words(text, clause, pos);
  if (existential(text, clause, pos, params)) return { tie: 'none' };
  const own = clauseCue(text, ws, params);
  if (own !== null && 'subject' in own) {
    const { subject, at } = own;
    if (subject.tie !== 'param' || at === undefined) return subject;
    const also = listedBefore(text, at, pos, params);
    return also.length > 0 ? { ...subject, also } : subject;
  }
  if (own === null && !symbol && taskNoun(text, clause, pos, params)) return { tie: 'none' };
  // A bound that opens its clause right after a parameter, says input words or compares a symbol is attached to what
  // it follows: the nearest parameter before it, even one a verb of the task governs ("Return the sum of ... of nums
  // (up to 20 values, each at most 10^9)": rt24 C1). Otherwise a parameter that is its clause's subject ("where nums
  // has") ties the bound, and one that a verb of the task governs ("return F(n), which is below"), the verb itself or
  // an output word before it ("The result fits in 64 bits: it is below 2^63") makes it the output's.
  const rest = words(text, sentence, clause);
  const follows = rest.at(-1);
  const opens = ws.length === 0 && follows !== undefined && paramOf(follows.word, params) !== undefined;
  const attached = own !== null || opens || symbol;
  let verb = false;
  for (let i = rest.length - 1; i >= 0; i--) {
    const w = rest[i] as Word;
    if (TASK_VERB.test(w.word)) {
      if (!attached) return { tie: 'output' };
      verb = true;
      continue;
    }
    if (computed(text, rest, i, params)) return { tie: 'output' };
    if (!attached && OUTPUT.test(w.word)) return { tie: 'output' };
    const param = paramOf(w.word, params);
    if (param === undefined) continue;
    const head = words(text, Math.max(sentence, lastEnd(text, CLAUSE_START, w.at)), w.at);
    if (
      !attached &&
      !head.every((v) => DETERMINER.test(v.word)) &&
      rest.slice(0, i).some((v) => TASK_VERB.test(v.word))
    )
      return { tie: 'output' };
    const reading = paramReading(text, w);
    if (reading === 'aggregate' && own === null && !symbol) return { tie: 'aggregate' };
    const of = own !== null ? own.input : reading === 'length' ? 'length' : 'size';
    const also = listedBefore(text, w.at, pos, params);
    return also.length > 0 ? { tie: 'param', param, of, also } : { tie: 'param', param, of };
  }
  // A clause opened by a pronoun or quantifier ("All are below", "They are each at most") speaks of the subject of
  // the sentence before: its last parameter (redteam-s21c C1).
  const head = (ws[0] ?? rest[0])?.word ?? '';
  if (own === null && ANAPHOR.test(head) && sentence > 0) {
    // What a bound at the end of the sentence before would be said of: a parameter only (not "return their sum").
    const before = subjectAt(text, text.slice(0, sentence).search(/[.!?\s]*$/), params);
    if (before.tie === 'param') return { ...before, of: 'size' };
  }
  const given = /^\s*given\b/i.test(text.slice(sentence));
  if (own !== null || inInputSection(text, pos) || given || (symbol && verb)) {
    const of = LENGTH_BEFORE.test(text.slice(clause, pos)) ? 'length' : own !== null ? own.input : 'size';
    return { tie: 'any', of };
  }
  return { tie: verb ? 'output' : 'none' };
}
