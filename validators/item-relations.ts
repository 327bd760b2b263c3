// One rule kind over a prompt's lists (readers.ts): an item related to a value printed OUTSIDE its list, both ways
// round. Where the answer is an item, the item whose property (its place from either end, its name's length in
// letters) equals a number, a number word or a count of blanks printed outside the list ("<answer>_______</answer>",
// "who finished third?") is a rule of leak-items; where the answer is a small number, the place of the item the
// prompt names outside its list (the asked runner's line, results printed in finishing order) is a rule of PLACES.
// Order and form are content: a list printed in the order the task asks for, or a blank as long as the answer, leaks.
import { answerContent } from '../sandbox/answer.js';
import { tokenize } from './answers.js';
import { type ListItem, MARKER, promptItemLists } from './leak-lists.js';
import { integerAnswer } from './number-words.js';
import { printedLetters, printedValues } from './printed-tokens.js';
import type { PreparedFamily, ReaderFamily, ReaderSample } from './readers.js';

/** The prompt's text as the lists were read from (promptItemLists' bounds). */
const PROMPT_CHARS = 50_000;
const PROMPT_LINES = 2_000;
const MIN_ITEMS = 3;
const MAX_LISTS = 3;
const linesOf = (prompt: string) => prompt.slice(0, PROMPT_CHARS).split('\n').slice(0, PROMPT_LINES);

/**
 * The prompt's text outside a list: a list of lines drops its lines, an inline list (items inside a sentence) the span
 * of its line from its first item to its last (the rest of the sentence, a question after it, stays).
 */
export function outsideOf(prompt: string, items: readonly ListItem[]): string {
  const lines = linesOf(prompt);
  const raws = new Set(items.map((x) => x.raw));
  const all = new Set(lines);
  if (items.every((x) => all.has(x.raw))) return lines.filter((l) => !raws.has(l)).join('\n');
  const [first, last] = [items[0]?.raw ?? '', items.at(-1)?.raw ?? ''];
  return lines
    .map((l) => {
      const from = l.indexOf(first);
      const to = from < 0 ? -1 : l.indexOf(last, from);
      return to < 0 ? l : l.slice(0, from) + l.slice(to + last.length);
    })
    .join('\n');
}

/** An item's place in its list of `k` items, read four ways (from either end, counting it or not). */
const PLACES_OF: Array<[string, (at: number, k: number) => number]> = [
  ['place from the start', (at) => at + 1],
  ['place from the end', (at, k) => k - at],
  ['count of items before it', (at) => at],
  ['count of items after it', (at, k) => k - 1 - at],
];

const letters = (tokens: readonly string[]) => tokens.join('').match(/\p{L}/gu)?.length ?? 0;

/** An item's letters that a code printed outside the list may hold: its opening letters or its words' initials. */
function openingLetters(name: readonly string[]): string[] {
  const text = name.join('').replace(/\P{L}/gu, '');
  const initials = name.map((w) => w.match(/\p{L}/u)?.[0] ?? '').join('');
  return [text.slice(0, 1), text.slice(0, 2), text.slice(0, 3), ...(name.length > 1 ? [initials] : [])];
}

/**
 * For each item, whether the list without it is in order (ascending or descending, ties allowed) by `keys`: the item
 * its neighbours single out, out of the order the others keep (rt28s N3). Every item of a sorted list is one.
 */
export function leavesOrdered(keys: ReadonlyArray<string | number>): boolean[] {
  const sorted = (xs: ReadonlyArray<string | number>, sign: number) =>
    xs.every((x, j) => j === 0 || sign * (x < (xs[j - 1] as typeof x) ? -1 : x > (xs[j - 1] as typeof x) ? 1 : 0) >= 0);
  return keys.map((_, i) => {
    const rest = keys.filter((__, j) => j !== i);
    return sorted(rest, 1) || sorted(rest, -1);
  });
}

/** An item's first number (its list marker set aside), or NaN. */
const firstNumber = (x: ListItem) => Number(x.raw.replace(MARKER, '').match(/[+-]?\d+(?:\.\d+)?/)?.[0] ?? Number.NaN);

/**
 * Features of a list's items (leak-items reads them like its text features), one family of relations between an item
 * and a token printed outside the list or its neighbours, `name` reading an item's tokens where the answer stands in
 * its own: 1 where its place or the length of its name in letters equals a value printed outside the list (a number,
 * a number word, a count of blanks or of a repeated unit of marks); where its opening letters, its words' initials or
 * its last letter are the letters of a code printed there ("W/417", rt28s N4); where the list without it is in order
 * by its names, its first numbers or the lengths of its names (rt28s N3).
 */
export function relationFeatures(
  prompt: string,
  items: readonly ListItem[],
  name: (tokens: string[]) => string[],
): Array<[string, number[]]> {
  const outside = outsideOf(prompt, items);
  const printed = printedValues(outside);
  const codes = printedLetters(outside);
  const k = items.length;
  const names = items.map((x) => name(x.tokens));
  const properties: Array<[string, number[]]> = [
    ...PLACES_OF.map(([p, of]): [string, number[]] => [p, items.map((_, at) => of(at, k))]),
    ['length of its name in letters', names.map(letters)],
  ];
  const out = properties.map(([p, values]): [string, number[]] => [
    `${p} equal to a number or a count of blanks printed outside the list`,
    values.map((v) => Number(printed.has(v))),
  ]);
  const lettered = (of: (n: string[]) => string[]) => names.map((n) => Number(of(n).some((l) => codes.has(l))));
  if (codes.size > 0)
    out.push(
      [
        'opening letters or initials of its name printed as a code outside the list (1 if so)',
        lettered(openingLetters),
      ],
      ['last letter of its name printed as a code outside the list (1 if so)', lettered((n) => [n.join('').slice(-1)])],
    );
  const orders: Array<[string, Array<string | number>]> = [
    ['its name', names.map((n) => n.join(' '))],
    ['the length of its name', names.map(letters)],
    ['its first number', items.map(firstNumber)],
  ];
  for (const [key, keys] of orders) {
    // Items without a key (a header line read into the list, a row with no number) stand outside the order.
    const keyed = keys.flatMap((v, i) => (Number.isNaN(v) ? [] : [i]));
    if (keyed.length < MIN_ITEMS) continue;
    const ordered = leavesOrdered(keyed.map((i) => keys[i] as string | number));
    const of = items.map((_, i) => Number(ordered[keyed.indexOf(i)] ?? false));
    out.push([`removal leaving the list in order of ${key} (1 if so)`, of]);
  }
  return out;
}

/**
 * The items a text names (by a token of it no other item holds: a word, a number, an id; "bib 121", "#121", rt29s P1),
 * each once, in the order it first names them; a number two items share (a time, a count) names neither.
 */
function namedItems(items: readonly ListItem[], outside: string): number[] {
  const owners = new Map<string, number>();
  items.forEach((x, at) => {
    for (const t of new Set(x.tokens))
      if (/[\p{L}\p{N}]/u.test(t)) owners.set(t, owners.has(t) && owners.get(t) !== at ? -1 : at);
  });
  const named: number[] = [];
  for (const t of tokenize(outside, 5_000)) {
    const at = owners.get(t.toLowerCase());
    if (at !== undefined && at >= 0 && !named.includes(at)) named.push(at);
  }
  return named;
}

/**
 * Which of the named items a rule reads: the first, second or third the text names, or the last or the one before it
 * (redteam-s22s N9: the asked runner named before a clubmate or a timekeeper; which mention is asked is the fit's).
 */
const MENTIONS = [0, 1, 2, -1, -2];

/** Per rule (a list from either end, a named item, a way to read a place), the place of that item in one prompt. */
function namedPlaces(prompt: string): Map<string, number> {
  const lists = promptItemLists(prompt);
  const lines = linesOf(prompt);
  const out = new Map<string, number>();
  for (let r = 0; r < MAX_LISTS; r++)
    for (const rank of [r, -1 - r]) {
      const items = rank >= 0 ? lists[rank] : lists[lists.length + rank];
      if (!items || items.length < MIN_ITEMS) continue;
      const named = namedItems(items, outsideOf(prompt, items));
      for (const mention of MENTIONS) {
        const at = mention >= 0 ? named[mention] : named[named.length + mention];
        if (at === undefined) continue;
        for (const [p, of] of PLACES_OF) out.set(JSON.stringify([rank, p, mention]), of(at, items.length));
        const line = lines.indexOf((items[at] as ListItem).raw);
        if (line >= 0) out.set(JSON.stringify([rank, 'line number in the prompt', mention]), line + 1);
      }
    }
  return out;
}

/** A heading that declares the printed order to be a spatial or temporal one ("from the front to the back"). */
const DECLARED_ORDER = new RegExp(
  '\\bfrom\\s+(?:the\\s+)?(front|left|top|head|start|beginning|first|nearest|earliest|bottom|right|back)\\b' +
    '[^.?!\\n]{0,40}?\\bto\\s+(?:the\\s+)?(?:back|right|bottom|end|last|rear|tail|furthest|latest|top|left|front)\\b|' +
    '\\bin\\s+(?:the\\s+)?order\\s+(?:of\\s+(?:arrival|their|the)|in\\s+which|they)\\b',
  'gi',
);
/**
 * A question for the items before or after a named one, in some order: the words before its relation word (their
 * last one is the verb) and the relation word; or for an item's place.
 */
const ASKS_PLACE = new RegExp(
  '\\bhow\\s+many\\b([^.?!\\n]{0,60}?)\\b(ahead\\s+of|in\\s+front\\s+of|before|behind|after|above|below|' +
    'to\\s+the\\s+(?:left|right)\\s+of)\\b|\\b(?:what|which)\\s+(?:place|position|spot)\\b',
  'gi',
);
/** The relation words that read an order declared from each end (an axis: left-right, top-bottom, a sequence). */
const AXIS_OF: Record<string, RegExp> = {
  left: /^to the (?:left|right) of$/,
  right: /^to the (?:left|right) of$/,
  top: /^(?:above|below)$/,
  bottom: /^(?:above|below)$/,
};
const SEQUENCE = /^(?:ahead of|in front of|before|behind|after)$/;
/** A sentence about how one row of a list reads (its columns), not about the order of the list's items (rt30s D1). */
const ROW_LAYOUT = /\b(?:each|every)\s+(?:row|line|entry|record)\b|\b(?:columns?|fields?|cells?)\b/i;
/**
 * The verb of a question that asks a place, not a value (rt30s D2: "published before Dune" compares years): being,
 * standing or being put somewhere, or a location ("on the shelf", "in the queue") just before the relation word.
 */
const PLACE_VERB = new RegExp(
  '(?:\\b(?:is|are|was|were|be|there|stands?|stood|standing|sits?|sat|sitting|waits?|waited|waiting|lies|lay|lying|' +
    'hangs?|hung|hanging|comes?|came|coming|queues?|queued|queuing|parked|placed|shelved|seated|lined|listed|printed|' +
    'appears?|appeared)|\\b(?:on|in|at)\\s+(?:the\\s+|this\\s+|that\\s+)?[\\p{L}-]+)\\s*$',
  'iu',
);

/**
 * Whether the prompt declares its list's printed order and a question asks the place IN that order (rt30s D1, D2): a
 * declaration not about a row's columns, a relation word of the declared axis ("to the right of" for "from left to
 * right"; "ahead of", "before" for a sequence: front to back, first to last, order of arrival) after a verb of place
 * ("stand", "are"), not of another quantity ("published", "finished", "scored": a comparison of values the policy must
 * read from the items).
 */
function asksDeclaredOrder(text: string): boolean {
  const axes = new Set<string>();
  for (const sentence of text.split(/[.?!\n]+/))
    if (!ROW_LAYOUT.test(sentence))
      for (const m of sentence.matchAll(DECLARED_ORDER)) axes.add(m[1]?.toLowerCase() ?? 'sequence');
  if (axes.size === 0) return false;
  for (const m of text.matchAll(ASKS_PLACE)) {
    if (m[2] === undefined) return true;
    const relation = m[2].toLowerCase().replace(/\s+/g, ' ');
    if (!PLACE_VERB.test(m[1] as string)) continue;
    for (const axis of axes) if ((AXIS_OF[axis] ?? SEQUENCE).test(relation)) return true;
  }
  return false;
}

/**
 * What the policy that reads the place the question asks earns (rt29s Q1, the place twin of rt28s N1's stated length):
 * 1 where the prompt declares its list's printed order and a question asks an item's place or the items before or
 * after it in that order (asksDeclaredOrder), and a place of a named item is the answer; else 0. A list only printed in
 * the order the answer follows ("Results of the fun run", N9) declares nothing.
 */
function statedPlace(prompt: string, places: Map<string, number>, answer: number): number {
  if (!asksDeclaredOrder(prompt.slice(0, PROMPT_CHARS))) return 0;
  return [...places].some(([rule, v]) => v === answer && !rule.includes('line number')) ? 1 : 0;
}

/**
 * The named-place reader: applies where at least 80% of the answers are whole numbers (in digits or words, cardinal or
 * ordinal: "8th", rt29s P2), judged against the place the question asks where the prompt declares its order.
 */
export const PLACES: ReaderFamily = {
  name: 'the place in its list of the item the prompt names outside the list',
  code: 'E_ANSWER_LEAK',
  prepare(samples: readonly ReaderSample[]): PreparedFamily | null {
    const answers = samples.map((e) => integerAnswer(answerContent(e.reference)));
    if (answers.filter(Number.isInteger).length < 0.8 * samples.length) return null;
    const places = samples.map((e, i) =>
      Number.isInteger(answers[i]) ? namedPlaces(e.instance.prompt) : new Map<string, number>(),
    );
    const stated = samples.map((e, i) =>
      statedPlace(e.instance.prompt, places[i] as Map<string, number>, answers[i] as number),
    );
    return {
      *fit(i) {
        for (const [rule, v] of places[i] ?? []) if (v === answers[i]) yield [rule, 1];
      },
      floor: (_rule, i) => stated[i] as number,
      credit: (rule, i, j) => (places[i]?.get(rule) === answers[j] ? 1 : 0),
      describe(rule) {
        const [list, p, mention] = JSON.parse(rule) as [number, string, number];
        const where = list >= 0 ? `list ${list + 1}` : list === -1 ? 'the last list' : `list ${-list} from the end`;
        const which = ['first', 'second', 'third'][mention] ?? (mention === -1 ? 'last' : 'next to last');
        return `the answer is the ${p} of the item of the prompt's ${where} that the prompt names ${which} outside it`;
      },
    };
  },
};
