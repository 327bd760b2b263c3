// A reader family (readers.ts) of the prompt's structure: the prompt's lists are parsed (runs of bulleted,
// numbered, table or plain lines; comma-separated lists inside a sentence), and a rule takes the item at a rank
// (from the start or the end) of one list, at a token offset inside the item. A generator that prints its
// items in the order it computed ("sorted by distance, so the farthest is last") leaks the answer at a place
// that word indices miss, as notes of random length move it.
import { answerContent } from '../sandbox/answer.js';
import { tokenize } from './answers.js';
import type { PreparedFamily, ReaderFamily, ReaderSample } from './readers.js';

const RANKS = 12;
const MAX_LISTS = 3;
const OFFSETS = [0, 1, 2, 3, -1, -2]; // from the item's start; negative: the answer ends that many tokens from its end
export const MAX_ANSWER_TOKENS = 6;
export const MARKER = /^\s*(?:[-*\u2022+]|\d{1,3}[.)]|[A-Za-z][.)]|\(\w{1,3}\)|\|)\s*/;
/** Text as the lists readers compare it: its first 200 tokens, lowercased. */
export const lower = (text: string) => tokenize(text.slice(0, 2_000), 200).map((t) => t.toLowerCase());

/**
 * A part without its closing stops, trimmed (a scan from the end: a pattern anchored at the end rescans from every
 * start).
 */
function trimStops(part: string): string {
  let end = part.length;
  while (end > 0 && '.?!'.includes(part[end - 1] as string)) end--;
  return part.slice(0, end).trim();
}

/** An item of a prompt list: its text as printed (a line with its marker and indentation) and its lowercase tokens. */
export interface ListItem {
  raw: string;
  tokens: string[];
}

/**
 * The prompt's lists, in order, each a list of items: runs of two or more lines of one shape, and inline lists of
 * three or more.
 */
export function promptItemLists(prompt: string, max = 40): ListItem[][] {
  const lines = prompt.slice(0, 50_000).split('\n').slice(0, 2_000);
  const lists: Array<{ at: number; items: ListItem[] }> = [];
  let run: string[] = [];
  let kind: string | null = null;
  const flush = (at: number) => {
    // Plain lines make a list from three on (two may be a sentence and a question); marked lines from two.
    if (run.length >= (kind === 'plain' ? 3 : 2))
      lists.push({ at: at - run.length, items: run.map((l) => ({ raw: l, tokens: lower(l.replace(MARKER, '')) })) });
    run = [];
  };
  lines.forEach((line, i) => {
    if (/^[\s|:-]+$/.test(line) && line.trim() !== '') return; // a table's rule line
    const s =
      line.trim() === ''
        ? null
        : (MARKER.exec(line)?.[0]
            .trim()
            .replace(/\d+|[A-Za-z]/g, '#') ?? 'plain');
    if (s !== kind) flush(i);
    kind = s;
    if (s !== null) run.push(line);
    // A list inside a sentence: the part after its last colon, split on commas or semicolons (and a final "and").
    // Whitespace collapsed first: a split on "\s*[,;]" would rescan a long run of spaces from every position.
    for (const sentence of line.replace(/\s+/g, ' ').split(/(?<=[.?!]) /)) {
      const parts = (sentence.split(':').at(-1) ?? '')
        .split(/ ?[,;] ?(?:and |or )?| (?:and|or) /)
        .map(trimStops)
        .filter(Boolean);
      if (parts.length >= 3) lists.push({ at: i, items: parts.map((p) => ({ raw: p, tokens: lower(p) })) });
    }
  });
  flush(lines.length);
  return lists
    .sort((a, b) => a.at - b.at)
    .map((l) => l.items.filter((t) => t.tokens.length > 0))
    .filter((l) => l.length >= 2)
    .slice(0, max);
}

/** The prompt's lists, each a list of items as lowercase tokens (promptItemLists). */
export const promptLists = (prompt: string, max = 40): string[][][] =>
  promptItemLists(prompt, max).map((l) => l.map((x) => x.tokens));

/**
 * A rule: the list (from the start or the end), the item's rank in it (from the start or the end), the token offset in
 * the item.
 */
interface Rule {
  list: number;
  item: number;
  offset: number;
}
const pick = <T>(xs: T[], k: number): T | undefined => (k >= 0 ? xs[k] : xs[xs.length + k]);
const ranks = (n: number, cap: number) => [
  ...Array.from({ length: Math.min(n, cap) }, (_, k) => k),
  ...Array.from({ length: Math.min(n, cap) }, (_, k) => -1 - k),
];
/** The tokens a rule reads for an answer of `m` tokens, or undefined where the prompt lacks the place. */
function read(rule: Rule, lists: string[][][], m: number): string | undefined {
  const item = pick(pick(lists, rule.list) ?? [], rule.item);
  if (!item) return undefined;
  const start = rule.offset >= 0 ? rule.offset : item.length + rule.offset + 1 - m;
  return start < 0 || start + m > item.length ? undefined : item.slice(start, start + m).join(' ');
}
const name = (r: Rule) =>
  `the ${r.item >= 0 ? `item ${r.item + 1}` : r.item === -1 ? 'last item' : `item ${-r.item} from the end`} ` +
  `of the prompt's ` +
  `${r.list >= 0 ? `list ${r.list + 1}` : r.list === -1 ? 'last list' : `list ${-r.list} from the end`}, ` +
  `${r.offset >= 0 ? `from its token ${r.offset + 1}` : `ending ${-r.offset - 1} tokens before its end`}`;

/** Every rule that reads `answer` (its tokens) off these lists. */
function hitsOf(lists: string[][][], answer: string[]): Rule[] {
  const out: Rule[] = [];
  const want = answer.join(' ');
  for (const list of ranks(lists.length, MAX_LISTS)) {
    const items = pick(lists, list) ?? [];
    for (const item of ranks(items.length, RANKS))
      for (const offset of OFFSETS)
        if (read({ list, item, offset }, lists, answer.length) === want) out.push({ list, item, offset });
  }
  return out;
}

/**
 * The lists reader: where most answers are a few tokens, every place in the prompt's lists (the list, the
 * item's rank in it, the token offset in the item) that holds the answer is a rule.
 */
export const LISTS: ReaderFamily = {
  name: "an item at a fixed place in the prompt's lists",
  code: 'E_ANSWER_LEAK',
  prepare(samples: readonly ReaderSample[]): PreparedFamily | null {
    const answers = samples.map((e) => lower(answerContent(e.reference)));
    const usable = answers.map((a) => a.length > 0 && a.length <= MAX_ANSWER_TOKENS);
    if (usable.filter(Boolean).length < 0.8 * samples.length) return null;
    const lists = samples.map((e, i) => (usable[i] ? promptLists(e.instance.prompt) : []));
    const joined = answers.map((a) => a.join(' '));
    return {
      *fit(i) {
        if (!usable[i]) return;
        for (const rule of hitsOf(lists[i] as string[][][], answers[i] as string[])) yield [JSON.stringify(rule), 1];
      },
      credit(rule, i, j) {
        if (!usable[i] || !usable[j]) return 0;
        return read(JSON.parse(rule) as Rule, lists[i] as string[][][], (answers[j] as string[]).length) === joined[j]
          ? 1
          : 0;
      },
      describe: (rule) => `the answer is ${name(JSON.parse(rule) as Rule)}`,
    };
  },
};
