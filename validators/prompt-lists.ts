// What a prompt offers a guesser without solving anything: the lists it prints (so "every option" and "the
// input copied" can be tried) and its multiple-choice options. Prompts are guest text: everything here is a
// linear scan over lines and fixed separators.
import { normalizeAnswer, shapeOf, tokenize, type Shape } from './answers.js';
import { answerContent } from '../sandbox/answer.js';
import { recentMemo } from '../sandbox/recent.js';

/** Items of a printed list, as written. */
export type PromptList = string[];

const MAX_ITEM_CHARS = 40;

function cleanItem(item: string): string {
  const s = item.trim();
  let from = 0;
  let to = s.length;
  while (from < to && '[("\'`'.includes(s[from] as string)) from++;
  while (to > from && '])"\'`.'.includes(s[to - 1] as string)) to--;
  return s.slice(from, to).trim();
}

/** A bullet line: its level (indentation and marker kind) and its text. */
interface Bullet {
  level: string;
  indent: number;
  text: string;
}

function isBullet(line: string): Bullet | null {
  const t = line.trim();
  let i = 0;
  let marker: string;
  if (t[0] === '-' || t[0] === '*' || t[0] === '•') {
    i = 1;
    marker = t[0];
  } else {
    while (i < t.length && i < 3 && t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) i++;
    if (i === 0 || (t[i] !== '.' && t[i] !== ')')) return null;
    marker = `0${t[i]}`;
    i++;
  }
  if (t[i] !== ' ') return null;
  const indent = line.length - line.trimStart().length;
  return { level: `${indent}${marker}`, indent, text: t.slice(i + 1).trim() };
}

/** How far up the open lists a bullet looks for its own level (nested lists deeper than this are not a layout). */
const MAX_DEPTH = 16;

/**
 * The lists of a run of bullet lines, nested lists read as such: the items at one level (the same indentation and
 * marker) under one parent are a list, sub-items never counted among their parents' items. In the order each list
 * starts; a flat run is one list.
 */
function bulletLists(run: Bullet[]): PromptList[] {
  type Open = { level: string; indent: number; items: string[]; at: number };
  const done: Open[] = [];
  const open: Open[] = [];
  run.forEach((b, at) => {
    // The nearest open list of this bullet's level, looking no further up than a shallower list (its parent).
    let k = open.length - 1;
    while (k >= 0 && open.length - k <= MAX_DEPTH && open[k]?.level !== b.level && (open[k]?.indent ?? 0) >= b.indent)
      k--;
    const own = k >= 0 && open[k]?.level === b.level ? k : -1;
    if (own >= 0) {
      done.push(...open.splice(own + 1));
      open[own]?.items.push(b.text);
      return;
    }
    while (open.length > 0 && (open[open.length - 1]?.indent ?? 0) > b.indent) done.push(open.pop() as Open);
    open.push({ level: b.level, indent: b.indent, items: [b.text], at });
  });
  done.push(...open);
  return done
    .filter((l) => l.items.length >= 2)
    .sort((a, b) => a.at - b.at)
    .map((l) => l.items);
}

/** Lists printed in a prompt: separated items on one line (after any colon), runs of numbers, runs of bullet lines. */
export function promptLists(prompt: string): PromptList[] {
  const lists: PromptList[] = [];
  let bullets: Bullet[] = [];
  const flush = () => {
    lists.push(...bulletLists(bullets));
    bullets = [];
  };
  for (const line of prompt.split('\n')) {
    const bullet = isBullet(line);
    if (bullet !== null && bullet.text.length <= MAX_ITEM_CHARS && tokenize(bullet.text, 4).length <= 3)
      bullets.push({ ...bullet, text: cleanItem(bullet.text) });
    else flush();
    for (const part of line.split(':')) {
      const body = part.includes(',') ? part.split(',') : part.includes(';') ? part.split(';') : null;
      if (body) {
        const items = body.map(cleanItem);
        if (items.length >= 2 && items.every((x) => x.length > 0 && x.length <= MAX_ITEM_CHARS)) lists.push(items);
        continue;
      }
      // A run of numbers holds a digit: prose without one is not split into words at all.
      const words = /\d/.test(part) ? part.trim().split(/\s+/) : [];
      if (words.length >= 3) numberRun(words, lists);
    }
  }
  flush();
  return lists;
}

/**
 * A run of three or more numbers on a line is a list: cleaned word by word, given up at the first that is not one
 * (prose fails at once).
 */
function numberRun(words: string[], lists: PromptList[]): void {
  const items: string[] = [];
  for (const w of words) {
    const item = cleanItem(w);
    if (shapeOf(item).kind !== 'integer') return;
    items.push(item);
  }
  lists.push(items);
}

const key = (items: string[]) => items.map((x) => normalizeAnswer(x).toLowerCase());

function counts(items: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const x of items) out.set(x, (out.get(x) ?? 0) + 1);
  return out;
}

/**
 * The guess a printed list allows for a list answer: the smallest list the prompt prints that holds every
 * item of the answer (the input itself when the answer is an arrangement of it, or "every option").
 */
export function printedList(prompt: string, shape: Shape): string[] | undefined {
  if (shape.kind !== 'list') return undefined;
  const want = counts(key(shape.items));
  let best: PrintedList | undefined;
  for (const list of printedLists(prompt)) {
    // A list shorter than the answer cannot hold all its items; one no shorter than the best cannot win.
    if (list.items.length < shape.items.length || (best && list.items.length >= best.items.length)) continue;
    if ([...want].every(([x, c]) => (list.counts.get(x) ?? 0) >= c)) best = list;
  }
  return best ? [...best.items] : undefined;
}

interface PrintedList {
  items: PromptList;
  /** Items as compared: whitespace-collapsed and lowercased, with their counts. */
  counts: Map<string, number>;
}

/**
 * promptLists with each list's counts, for recent prompts: the hack stage asks about one prompt several
 * times (its probes, its guesses) and the lists of a long prompt cost far more than a lookup.
 */
const printedLists = recentMemo(
  (prompt: string): PrintedList[] => promptLists(prompt).map((items) => ({ items, counts: counts(key(items)) })),
  64,
);

/** Whether the answer is an arrangement of a list the prompt prints (so a repeated item can never be right). */
export function isArrangement(prompt: string, shape: Shape): boolean {
  return printedList(prompt, shape)?.length === shape.items.length;
}

export interface Choices {
  /** Option labels in order ("A", "B", … or "1", "2", …). */
  labels: string[];
  texts: string[];
  /** The prompt without its option lines. */
  body: string;
}

/** One option line: "A) text", "(b) text", "3. text", "[C] text". */
function optionLine(line: string): { label: string; text: string } | null {
  const t = line.trim();
  let i = t[0] === '(' || t[0] === '[' ? 1 : 0;
  const start = i;
  const c = t.charCodeAt(i);
  if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) i++;
  else while (i < start + 2 && t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) i++;
  if (i === start || !')].:'.includes(t[i] ?? 'x') || t[i + 1] !== ' ') return null;
  const text = t.slice(i + 2).trim();
  return text ? { label: t.slice(start, i), text } : null;
}

const successor = (label: string) =>
  /^\d+$/.test(label) ? String(Number(label) + 1) : String.fromCharCode(label.charCodeAt(0) + 1);

/** The prompt's multiple-choice options: the last run of consecutive labels starting at A, a or 1. */
export function parseChoices(prompt: string): Choices | null {
  const lines = prompt.split('\n');
  type Run = { from: number; to: number; labels: string[]; texts: string[] };
  let best: Run | null = null;
  let run: Run | null = null;
  for (let n = 0; n <= lines.length; n++) {
    const o = n < lines.length ? optionLine(lines[n] as string) : null;
    if (o && run && o.label === successor(run.labels[run.labels.length - 1] as string)) {
      run.labels.push(o.label);
      run.texts.push(o.text);
      run.to = n;
      continue;
    }
    if (run && run.labels.length >= 2) best = run;
    run = o && ['A', 'a', '1'].includes(o.label) ? { from: n, to: n, labels: [o.label], texts: [o.text] } : null;
  }
  if (!best) return null;
  const { from, to, labels, texts } = best;
  return { labels, texts, body: [...lines.slice(0, from), ...lines.slice(to + 1)].join('\n') };
}

/** The option a reference names, by index, or -1. */
export function chosenOption(reference: string, choices: Choices): number {
  const content = cleanItem(answerContent(reference).replace(/^\(|\)$/g, ''));
  return choices.labels.findIndex((l) => l.toLowerCase() === content.toLowerCase());
}

/** The kind of token a list's items are, so "every option" takes only the prompt's tokens of that kind. */
function itemKind(items: string[]): RegExp | null {
  for (const kind of [/^[a-z]+$/, /^[A-Z]+$/, /^[A-Za-z]+$/, /^[+-]?\d+$/, /^[A-Za-z0-9]+$/])
    if (items.every((x) => kind.test(x))) return kind;
  return null;
}

/**
 * A prompt's tokens, for the last few prompts: one instance's probes and guesses read them in turn (callers never
 * change the array).
 */
const tokensOf = recentMemo((prompt: string) => tokenize(prompt, 20_000), 8);

/**
 * Guesses a prompt allows for a list answer whatever its layout (one per line, space-separated, prose): the
 * answer's items in the order they first occur in the prompt ("the input copied"), and every distinct prompt
 * token of the items' kind and length ("every option"). Either is omitted when it is the answer itself.
 */
export function tokenGuesses(prompt: string, shape: Shape): { copied?: string[]; every?: string[] } {
  if (shape.kind !== 'list' || shape.items.length < 2) return {};
  const kind = itemKind(shape.items);
  if (!kind) return {};
  const first = new Map<string, number>();
  const every: string[] = [];
  const lengths = shape.items.map((x) => x.length);
  const [shortest, longest] = [lengths.reduce((a, b) => Math.min(a, b)), lengths.reduce((a, b) => Math.max(a, b))];
  const raw = tokensOf(prompt);
  const tokens = raw.map((t) => t.toLowerCase());
  raw.forEach((t, i) => {
    const key = t.toLowerCase();
    if (first.has(key)) return;
    first.set(key, i);
    if (kind.test(t) && t.length >= shortest && t.length <= longest && every.length < 400) every.push(t);
  });
  const out: { copied?: string[]; every?: string[] } = {};
  const answer = shape.items.join('\n').toLowerCase();
  const positions = shape.items.map((x) => first.get(x.toLowerCase()));
  // The input copied: the answer's items printed together (nothing else between them), in the prompt's order.
  if (positions.every((p) => p !== undefined) && new Set(positions).size === positions.length) {
    const at = positions as number[];
    const run = tokens.slice(
      at.reduce((a, b) => Math.min(a, b)),
      at.reduce((a, b) => Math.max(a, b)) + 1,
    );
    const items = new Set(shape.items.map((x) => x.toLowerCase()));
    const copied = shape.items
      .map((x, i) => [x, positions[i] as number] as const)
      .sort((a, b) => a[1] - b[1])
      .map(([x]) => x);
    if (
      run.length === shape.items.length &&
      run.every((t) => items.has(t)) &&
      copied.join('\n').toLowerCase() !== answer
    )
      out.copied = copied;
  }
  if (every.length > shape.items.length && every.join('\n').toLowerCase() !== answer) out.every = every;
  return out;
}
