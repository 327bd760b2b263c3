// The words a code statement names its quantities with (the output, an aggregate, the inputs' elements, a length, a
// selection of one value) and the noun phrases a bound's subject is read from: a word no list knows after an article
// ("the count is below": rt25 B2), a condition's parameter ("for n up to 40"), what "there are" counts.
import { NUMBER } from './bound-numbers.js';

/** Words that make what follows the output: the answer, a verb of the task, a conclusion. */
export const OUTPUT =
  /^(?:answers?|results?|outputs?|ans|res|returns?|returned|returning|prints?|computes?|therefore|so|hence|thus)$/i;
/** Head nouns of a quantity combined from several: bounding it bounds no one argument. */
export const AGGREGATE = /^(?:sum|sums|total|totals|product|products|average|mean|difference)$/i;
/** Words for the inputs' elements, and determiners that make them a clause's subject. */
export const INPUTISH = new RegExp(
  '^(?:values?|numbers?|integers?|elements?|items?|entry|entries|inputs?|arguments?|parameters?|lists?|arrays?|' +
    'strings?|each|every)$',
  'i',
);
export const DETERMINER = /^(?:each|every|all|any|the|a|an|its|their|whose|no)$/i;
/** Words for what of an input a clause's subject measures ("whose length is", "(length up to"). */
export const LENGTH_WORD = /^(?:length|lengths|len|size|sizes)$/i;

/** The parameter a word names: itself, or its plural or singular ("n" for ns, "nums" for num). */
export function paramOf(word: string | undefined, params: readonly string[]): number | undefined {
  if (!word) return undefined;
  const at = params.findIndex((p) => p === word || p === `${word}s` || `${p}s` === word);
  return at < 0 ? undefined : at;
}

/** A word of a statement and where it starts. */
export interface Word {
  word: string;
  at: number;
}

/** The words of a stretch, with their places (a hyphenated compound is one word: "n-th" names no parameter). */
export function words(text: string, from: number, to: number): Word[] {
  return [...text.slice(from, to).matchAll(/[A-Za-z_$][\w$]*(?:-[A-Za-z]+)*/g)].map((m) => ({
    word: m[0],
    at: from + (m.index ?? 0),
  }));
}

/** A comparative that puts a number above what it compares ("larger than", "above", "exceeding"). */
const COMPARATIVE = String.raw`(?:(?:larger|greater|bigger|higher|more)\s+than|above|over|beyond|exceed(?:s|ing)?)`;

/**
 * The phrases of an upper bound in words ("at most", "up to", "never exceeds"), and any comparative a negation
 * governs ("none larger than", "no value is greater than", "none of them above": redteam-s21c C1), the phrase starting
 * at the comparative so that the words before it ("no value") are its subject's.
 */
export const UPPER_WORDS =
  '(?:at most|up to|no more than|not more than|no greater than|not greater than|no larger than|below|less than|' +
  "under|not exceeding|smaller than|lower than|(?:never|not|cannot|n't)\\s+(?:be\\s+)?exceeds?|" +
  String.raw`(?<=\b(?:none|no|not|never|nothing)(?:\s+of\s+(?:them|these|those|its|their|the)(?:\s+[\w-]+)?)?` +
  String.raw`(?:\s+[\w-]+){0,2}?\s+)${COMPARATIVE})`;

/** Functions that select one of their arguments' values (an order statistic, a magnitude): no computed quantity. */
export const SELECTING = 'max|min|maximum|minimum|abs';
export const SELECTION = new RegExp(`^(?:${SELECTING})$`, 'i');

/** Articles and demonstratives: an unknown word right after one heads a noun phrase ("the count", "a subarray"). */
const ARTICLE = /^(?:the|a|an|this|these|that|those|its|their|such)$/i;
/** Prepositions that make a parameter after them a condition of a later bound ("for n up to 40", "at n = 40"). */
export const CONDITION = /^(?:for|at|to|when|if|until|from|under|over|given)$/i;
/** Prepositions: a noun phrase after one is an owner or a place ("the values in each row"), no subject. */
const PREPOSITION = /^(?:of|in|on|for|at|to|with|from|over|among|within|into|by|under|per|than|across|through)$/i;
/** Words that select or describe a value of the inputs ("the largest", "the maximum value"), heading no quantity. */
const DESCRIBING = /^(?:max|min|maximum|minimum|largest|smallest|biggest|greatest|highest|lowest|first|last|same)$/i;

/** Whether two words of a stretch stand side by side (nothing but spaces between). */
export const beside = (text: string, a: Word | undefined, b: Word) =>
  a !== undefined && /^\s+$/.test(text.slice(a.at + a.word.length, b.at));

/**
 * Whether a word no reader knows heads a noun phrase that is the subject of what follows (rt25 B2): an article right
 * before it, or an article and one modifier ("a subarray count"), the phrase owned by no preposition before it.
 */
export function namedNoun(text: string, ws: readonly Word[], i: number): boolean {
  const w = ws[i] as Word;
  const known = (v: string) =>
    INPUTISH.test(v) || OUTPUT.test(v) || AGGREGATE.test(v) || LENGTH_WORD.test(v) || DETERMINER.test(v);
  // A modifier of a known noun ("a positive integer") heads nothing.
  if (known(w.word) || DESCRIBING.test(w.word) || !/^[A-Za-z]{2,}$/.test(w.word) || known(ws[i + 1]?.word ?? ''))
    return false;
  const prev = ws[i - 1];
  const article = ARTICLE.test(prev?.word ?? '') && beside(text, prev, w) ? prev : undefined;
  const modifier = ws[i - 2];
  const far =
    article === undefined && prev !== undefined && !known(prev.word) && ARTICLE.test(modifier?.word ?? '')
      ? modifier
      : undefined;
  const head =
    article ?? (far !== undefined && beside(text, far, prev as Word) && beside(text, prev, w) ? far : undefined);
  // The phrase is a subject: a verb follows it ("the count is below", not "a count of at most 20 stairs") and no
  // preposition owns it.
  const next = ws[i + 1];
  if (
    head === undefined ||
    next === undefined ||
    PREPOSITION.test(next.word) ||
    /^(?:holding|containing)$/i.test(next.word)
  )
    return false;
  const before = /([A-Za-z]+)\s+$/.exec(text.slice(Math.max(0, head.at - 16), head.at))?.[1];
  return before === undefined || !PREPOSITION.test(before);
}

/** The noun after a bound's number ("at most 5050 subarrays"). */
const NOUN_AFTER = new RegExp(String.raw`^\D{0,30}?${NUMBER}\s+([A-Za-z]+)`);
/** Words that count an input's elements, no quantity of their own. */
const ELEMENT_COUNT = /^(?:characters|chars|letters|digits|symbols|bits|bytes)$/i;

/**
 * Whether a bound after "there are" counts a noun of its own, named after it ("there are at most 5050 subarrays":
 * rt25 B2), no parameter, input word or count of an input's elements.
 */
export function existential(text: string, clause: number, pos: number, params: readonly string[]): boolean {
  if (!/\bthere\s+(?:(?:will|can|may|must)\s+)?(?:is|are|was|were|be)\s*$/i.test(text.slice(clause, pos))) return false;
  const noun = NOUN_AFTER.exec(text.slice(pos, pos + 80))?.[1];
  if (noun === undefined) return false;
  return paramOf(noun, params) === undefined && !INPUTISH.test(noun) && !ELEMENT_COUNT.test(noun);
}
