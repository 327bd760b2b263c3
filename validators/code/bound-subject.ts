// What a stated bound bounds, read from the statement around it: a parameter (named, or an expression over one:
// "nums[i]", "nums.length", "len(nums)", "|v|", "a_i"), the inputs at large ("each value", a constraints section),
// the output ("every answer", "the result", "returns", "therefore"), an aggregate ("the sum", "n * m"), or nothing.
// Only a bound tied to an input constrains the hidden tests.

/** A bound's subject; `of` says what of an argument it bounds ("size": a list's length or a number's magnitude). */
export type Subject =
  | { tie: 'param'; param: number; of: 'value' | 'length' | 'size' }
  | { tie: 'any'; of: 'value' | 'length' | 'size' }
  | { tie: 'output' | 'aggregate' | 'none' };

/** Words that make what follows the output: the answer, a verb of the task, a conclusion. */
const OUTPUT =
  /^(?:answers?|results?|outputs?|ans|res|returns?|returned|returning|prints?|computes?|therefore|so|hence|thus)$/i;
/** Head nouns of a quantity combined from several: bounding it bounds no one argument. */
const AGGREGATE = /^(?:sum|sums|total|totals|product|products|average|mean|difference)$/i;
/** Words for the inputs' elements, and determiners that make them a clause's subject. */
const INPUTISH = new RegExp(
  '^(?:values?|numbers?|integers?|elements?|items?|entry|entries|inputs?|arguments?|parameters?|lists?|arrays?|' +
    'strings?|each|every)$',
  'i',
);
const DETERMINER = /^(?:each|every|all|any|the|a|an|its|their|no)$/i;
/** Words that tell a length: "the length of nums", "the number of items in nums", "nums.length". */
const LENGTH_BEFORE = /\b(?:length|len|size|number\s+of|count\s+of|how\s+many)\b[^.;,()]{0,25}$/i;
const AGGREGATE_BEFORE = /\b(?:sum|total|product|average|mean)\s+of\b[^.;,()]{0,20}$/i;
const LENGTH_AFTER = /^\s*\.\s*(?:length|size)\b/;
/** Where a clause starts: a bracket (not a call's: "F(n)"), a comma, a colon or semicolon, a relative word. */
const CLAUSE_START = /(?<![\w$])\(|[,;:]|\b(?:where|which|and|while|with)\b/gi;
/** Verbs of the task: what follows them is what the task reads or returns. */
const TASK_VERB = /^(?:returns?|returning|returned|computes?|prints?|outputs?)$/i;
/** How far back a sentence is read (a longer one is read from there). */
const SENTENCE_REACH = 240;
/** Where a sentence starts: a full stop before a space, a line break. */
const SENTENCE_START = /[.!?](?=\s)|\n/g;
/** A section of input constraints starts with its heading; one of output ends it. */
const INPUT_HEADING = /\b(?:constraints?|input)\s*(?::|\n)/gi;
const OUTPUT_HEADING = /\b(?:output|returns?)\s*(?::|\n)/gi;

/** The parameter a word names: itself, or its plural or singular ("n" for ns, "nums" for num). */
export function paramOf(word: string | undefined, params: readonly string[]): number | undefined {
  if (!word) return undefined;
  const at = params.findIndex((p) => p === word || p === `${word}s` || `${p}s` === word);
  return at < 0 ? undefined : at;
}

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

interface Word {
  word: string;
  at: number;
}

/** The words of a stretch, with their places (a hyphenated compound is one word: "n-th" names no parameter). */
function words(text: string, from: number, to: number): Word[] {
  return [...text.slice(from, to).matchAll(/[A-Za-z_$][\w$]*(?:-[A-Za-z]+)*/g)].map((m) => ({
    word: m[0],
    at: from + (m.index ?? 0),
  }));
}

/** What of a parameter a mention of it bounds, from the words around it. */
function paramReading(text: string, w: Word): 'value' | 'length' | 'aggregate' {
  const before = text.slice(Math.max(0, w.at - 40), w.at);
  if (LENGTH_AFTER.test(text.slice(w.at + w.word.length, w.at + w.word.length + 12))) return 'length';
  if (AGGREGATE_BEFORE.test(before)) return 'aggregate';
  return LENGTH_BEFORE.test(before) ? 'length' : 'value';
}

/** The cue a clause gives, its words read back from the bound: the nearest decisive one. */
function clauseCue(text: string, ws: Word[], params: readonly string[]): Subject | 'inputish' | null {
  let inputish = false;
  for (let i = ws.length - 1; i >= 0; i--) {
    const w = ws[i] as Word;
    const param = paramOf(w.word, params);
    if (param !== undefined) {
      // A parameter after a verb of the task is what the task reads, not a clause's subject.
      if (ws.slice(0, i).some((v) => TASK_VERB.test(v.word))) return { tie: 'output' };
      const reading = paramReading(text, w);
      return reading === 'aggregate' ? { tie: 'aggregate' } : { tie: 'param', param, of: reading };
    }
    if (OUTPUT.test(w.word)) return { tie: 'output' };
    if (AGGREGATE.test(w.word)) return { tie: 'aggregate' };
    if (INPUTISH.test(w.word)) inputish = true;
  }
  // Input words stand for the inputs only as the clause's subject ("each value", "values below"), not an object.
  const first = ws[0]?.word ?? '';
  return inputish && (DETERMINER.test(first) || INPUTISH.test(first)) ? 'inputish' : null;
}

/**
 * The subject of a bound whose comparison starts at `pos`: the nearest cue of its clause, else of its sentence
 * before it; a clause of input words alone is tied to the parameter its sentence names, else to any argument.
 */
export function subjectAt(text: string, pos: number, params: readonly string[]): Subject {
  const sentence = Math.max(lastEnd(text, SENTENCE_START, pos), pos - SENTENCE_REACH);
  const clause = Math.max(sentence, lastEnd(text, CLAUSE_START, pos));
  const own = clauseCue(text, words(text, clause, pos), params);
  if (own !== null && own !== 'inputish') return own;
  // Back through the sentence: a parameter that is its clause's subject ("where nums has") ties the bound; one that
  // a verb of the task governs ("return F(n), which is below") or the verb itself makes it the output's.
  const rest = words(text, sentence, clause);
  const section = inInputSection(text, pos);
  for (let i = rest.length - 1; i >= 0; i--) {
    const w = rest[i] as Word;
    if (TASK_VERB.test(w.word)) return { tie: 'output' };
    const param = paramOf(w.word, params);
    if (param === undefined) continue;
    const head = words(text, Math.max(sentence, lastEnd(text, CLAUSE_START, w.at)), w.at);
    if (!head.every((v) => DETERMINER.test(v.word)) && rest.slice(0, i).some((v) => TASK_VERB.test(v.word)))
      return { tie: 'output' };
    const reading = paramReading(text, w);
    if (reading === 'aggregate') return { tie: 'aggregate' };
    return { tie: 'param', param, of: own === 'inputish' ? 'value' : reading === 'length' ? 'length' : 'size' };
  }
  if (own === 'inputish' || section || /^\s*given\b/i.test(text.slice(sentence))) {
    const of = LENGTH_BEFORE.test(text.slice(clause, pos)) ? 'length' : own === 'inputish' ? 'value' : 'size';
    return { tie: 'any', of };
  }
  return { tie: 'none' };
}
