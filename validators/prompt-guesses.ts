// Responses a policy can write from the prompt alone, without solving anything: for a list answer, the list
// the prompt prints, the answer's items copied in the prompt's order, every token of their kind; for a
// single answer that the prompt usually lists among others (a legal move, a candidate), the first or the last
// listed item, or every listed item at once; and every answer the level's other instances have, at once.
// Each carries the chance a random pick of its kind has (1/K among K listed items), its nominal chance.
import type { Episode } from '../sandbox/episodes.js';
import { answerContent, withContent } from '../sandbox/answer.js';
import { joinItems, normalizeAnswer, shapeOf } from './answers.js';
import type { Probe } from './probe-types.js';
import { printedList, promptLists, tokenGuesses } from './prompt-lists.js';
import { recentMemo } from '../sandbox/recent.js';

/** The prompt's lists, once per prompt for a stage's sample (the plan reads each prompt twice). */
const listsOf = recentMemo((prompt: string) => promptLists(prompt), 512);

const MAX_ITEMS = 60;
const key = (v: string) => normalizeAnswer(v).toLowerCase();

/** Where a list sits among the prompt's lists: the k-th from the start (k ≥ 0) or from the end (k < 0). */
export type ListPlace = number;

/** The items of the prompt's list at `place` (as written, once each, at most 60), or none. */
export function listedItems(prompt: string, place: ListPlace): string[] {
  const lists = listsOf(prompt);
  const list = place >= 0 ? lists[place] : lists[lists.length + place];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const item of list ?? []) {
    if (out.length >= MAX_ITEMS) break;
    if (item && !seen.has(key(item))) {
      seen.add(key(item));
      out.push(item);
    }
  }
  return out;
}

/**
 * The place of the prompt's list that holds the answer on most of the sample (at least half), where the answers
 * are single items: a policy learns which list to take its guesses from. Null where none does.
 */
export function answerList(episodes: Episode[]): ListPlace | null {
  if (episodes.filter((e) => shapeOf(answerContent(e.reference)).kind !== 'list').length < 0.8 * episodes.length)
    return null;
  // A few instances a level tell where the list is: the place is judged on all of them later.
  const sample = episodes.filter((_, i) => i % 4 === 0);
  const counts = new Map<ListPlace, number>();
  for (const e of sample) {
    const lists = listsOf(e.instance.prompt);
    const answer = key(answerContent(e.reference));
    lists.forEach((list, k) => {
      if (!list.some((x) => key(x) === answer)) return;
      for (const place of new Set([k, k - lists.length])) counts.set(place, (counts.get(place) ?? 0) + 1);
    });
  }
  const [place, n] = [...counts].reduce<[ListPlace | null, number]>(
    (best, [p, c]) => (c > best[1] ? [p, c] : best),
    [null, 0],
  );
  return n >= 0.5 * sample.length ? place : null;
}

const guess = (form: string, response: string, chance = 0): Probe => ({
  family: 'guess',
  form,
  response,
  coincident: false,
  ...(chance ? { chance } : {}),
});

/**
 * The prompt strategies for one instance: list answers always, the items of the list at `listed` where given, the
 * level's other answers where `others` is given.
 */
export function promptGuesses(e: Episode, listed: ListPlace | null, others?: string[]): Probe[] {
  const content = answerContent(e.reference);
  const shape = shapeOf(content);
  if (shape.kind === 'list') {
    const list = printedList(e.instance.prompt, shape);
    const tokens = tokenGuesses(e.instance.prompt, shape);
    return [
      ...(list ? [guess('printed list', withContent(e.reference, joinItems(shape, list)))] : []),
      ...(tokens.copied ? [guess('input copied', withContent(e.reference, joinItems(shape, tokens.copied)))] : []),
      ...(tokens.every ? [guess('every prompt token', withContent(e.reference, joinItems(shape, tokens.every)))] : []),
    ];
  }
  const out: Probe[] = [];
  const items = listed !== null ? listedItems(e.instance.prompt, listed) : [];
  if (items.length >= 2) {
    const k = 1 / items.length;
    out.push(
      guess('the first listed item', withContent(e.reference, items[0] as string), k),
      guess('the last listed item', withContent(e.reference, items[items.length - 1] as string), k),
    );
    out.push(guess('every listed item at once', withContent(e.reference, items.join(', ')), k));
  }
  const union = others ?? [];
  if (union.length >= 3)
    out.push(
      guess(
        "every answer of the level's other instances at once",
        withContent(e.reference, union.join(', ')),
        1 / union.length,
      ),
    );
  return out;
}

/**
 * The distinct answers of `peers` other than `e`'s own instance, most common first, at most 40: the level's union a
 * policy could list.
 */
export function otherAnswers(e: Episode, peers: Episode[]): string[] {
  const counts = new Map<string, { text: string; n: number }>();
  for (const p of peers) {
    if (p === e) continue;
    const text = answerContent(p.reference).trim();
    if (!text || text.includes(',') || text.length > 60) continue;
    const c = counts.get(key(text)) ?? { text, n: 0 };
    c.n++;
    counts.set(key(text), c);
  }
  return [...counts.values()]
    .sort((a, b) => b.n - a.n)
    .slice(0, 40)
    .map((c) => c.text);
}
