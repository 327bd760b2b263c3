// A sentence may name a tool by what it does, not by its name (redteam-trust21 R10): by the content words of what its
// description says it does (the description's first clause, before a colon or a list of what it shows), those no
// other tool's name or description holds, lemmatised (a shared stem), two of them within a few words of each other.
// `namedTools` writes the tool's identifier before the first of them, so every rule reader's mention
// (stated-rules.ts mentionAt) reads both.
import type { Tool } from '../../contract/episodic.js';
import { mentionAt } from './stated-rules.js';

export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or but nor of to in on at by for with without from into onto against about over under per as is ' +
    'are be been was were it its this that these those one two each every all any some no not only also then than ' +
    'when where which who whose what if unless until before after up down out off there their them they you your we ' +
    'our can may must should will would shall do does done has have had show shows list lists get gets return ' +
    'returns give gives call calls tool ends end task whole new'
  ).split(' '),
);
/** A text's words, lower-cased, with where each starts. */
const wordsAt = (text: string): [string, number][] =>
  [...text.matchAll(/[\p{L}][\p{L}'-]*/gu)].map((m) => [m[0].toLowerCase(), m.index]);
const content = (text: string) =>
  wordsAt(text)
    .map(([w]) => w)
    .filter((w) => w.length >= 3 && !FUNCTION_WORDS.has(w));
/** A word's lemma: its plural, past, gerund or possessive ending off (a doubled consonant and a final e too). */
export function lemma(word: string): string {
  const w = word.toLowerCase().replace(/'s?$/, '');
  const cut =
    w.length <= 4
      ? w
      : /ies$/.test(w)
        ? `${w.slice(0, -3)}y`
        : /(?:ing|ed)$/.test(w)
          ? w.replace(/(?:ing|ed)$/, '').replace(/([^aeiou])\1$/, '$1')
          : /(?:ss|us|is)$/.test(w)
            ? w
            : /(?:sses|ches|shes|xes)$/.test(w)
              ? w.slice(0, -2)
              : w.replace(/s$/, '');
  return cut.replace(/e$/, '');
}
const akin = (a: string, b: string) => lemma(a) === lemma(b);
/** A description that opens on a read ("Show ...", "List ...") tells what the tool shows, not what it does. */
const READS = /^\s*(?:show|list|display|get|return|view|read|find|look|search|fetch)(?:e?s)?\b/i;

/** What a description says its tool does: its first clause (a colon, a semicolon, a bracket or a stop ends it). */
export const deedOf = (description: string) => description.split(/[.:;(\u2014]/)[0] ?? '';

/** Each tool's words of what it does that no other tool's name or description has. */
export function deedWords(tools: readonly Tool[]): Map<string, string[]> {
  return new Map(
    tools.map((t) => {
      const others = tools
        .filter((o) => o.name !== t.name)
        .flatMap((o) => [...o.name.toLowerCase().split(/[_\W]+/), ...content(o.description)]);
      const own = READS.test(t.description) ? [] : [...new Set(content(deedOf(t.description)))];
      return [t.name, own.filter((w) => !others.some((o) => o.length > 0 && akin(w, o)))] as const;
    }),
  );
}

/** Where a sentence names a tool by two of its deed words at most three words apart, or -1. */
export function deedAt(sentence: string, words: readonly string[]): number {
  const found = wordsAt(sentence).flatMap(([w], k) => {
    const i = words.findIndex((d) => akin(w, d));
    return i >= 0 ? [{ i, k }] : [];
  });
  const pair = found.find((a) => found.some((b) => b.i !== a.i && Math.abs(b.k - a.k) <= 3));
  return pair ? (wordsAt(sentence)[pair.k]?.[1] ?? -1) : -1;
}

/**
 * `text` with each tool that a sentence names by what it does (and not by its name) written by its identifier before
 * the first of those words, once a sentence.
 */
export function namedTools(text: string, tools: readonly Tool[]): string {
  const words = [...deedWords(tools)].filter(([, w]) => w.length >= 2);
  if (words.length === 0) return text;
  return text.replace(/[^.!?;\n]+/g, (sentence) => {
    const at = words.flatMap(([tool, w]) => {
      const i = mentionAt(sentence, tool) >= 0 ? -1 : deedAt(sentence, w);
      return i >= 0 ? [[i, tool] as const] : [];
    });
    return at.sort(([a], [b]) => b - a).reduce((s, [i, tool]) => `${s.slice(0, i)}${tool} ${s.slice(i)}`, sentence);
  });
}
