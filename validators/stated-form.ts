// The policy that checks a stated form (rt27s S4): where the prompt asks for the item of a list that breaks the form
// its items must have ("Which entry breaks the format?", "Which date is not in the YYYY-MM-DD form?"), the item whose
// printed form differs from the one most items share is the task's own answer, not a leak; every reader of form (an
// item's layout, its marks, a token split by an odd dash) is judged against what this policy earns there.
import { answerContent } from '../sandbox/answer.js';
import { normalizeAnswer } from './answers.js';
import { type ListItem, lower, MARKER, promptItemLists } from './leak-lists.js';
import type { ReaderFamily } from './readers.js';

/** A request for an item (which, find, give...), a word of breaking and a word of form, in one sentence. */
const ASK = /\b(?:which|what|find|give|identify|name|spot|pick|return|report)\b/i;
const VERBS = 'follow\\w*|match\\w*|fit\\w*|conform\\w*|obey\\w*|written|in|use\\w*';
const NOT_FOLLOWING = `(?:does|do|did|is|are)\\s*(?:not|n't)\\s+(?:\\w+\\s+){0,2}?(?:${VERBS})`;
const BREAK = new RegExp(
  `\\b(?:breaks?|broken|violat\\w*|malformed|invalid|wrong|incorrect\\w*|irregular|misformatted|non-?conforming|` +
    `deviat\\w*|${NOT_FOLLOWING})\\b`,
  'i',
);
const FORM = /\b(?:format\w*|form|pattern|written|layout|style|convention|spel\w*|syntax|template|notation|shape)\b/i;
const MAX_TEXT = 20_000;

/** Whether one sentence of the prompt asks for the item that breaks a form. */
export function asksForFormBreak(prompt: string): boolean {
  return prompt
    .slice(0, MAX_TEXT)
    .split(/(?<=[.?!])\s+|\n/)
    .some((s) => ASK.test(s) && BREAK.test(s) && FORM.test(s));
}

/**
 * An item's printed form: each letter by its case, each digit one symbol, a run of one symbol one, spacing one space,
 * every other character itself ("ABC-1234" and "XYZ-0042" are one form; "ABC 1234", "ABC–1234", "AbC-1234" others).
 */
export function formOf(raw: string): string {
  return raw
    .replace(MARKER, '')
    .trim()
    .slice(0, 1_000)
    .replace(/\p{Lu}+/gu, 'A')
    .replace(/\p{L}+/gu, (m) => m.replace(/\P{Lu}+/gu, 'a'))
    .replace(/\p{N}+/gu, '9')
    .replace(/\s+/g, ' ');
}

/** The items of the list whose form differs from the one most of its items share, or null where none does. */
function oddForms(items: ListItem[]): ListItem[] | null {
  const forms = items.map((x) => formOf(x.raw));
  const counts = new Map<string, number>();
  for (const f of forms) counts.set(f, (counts.get(f) ?? 0) + 1);
  const [common, most] = [...counts].reduce((a, b) => (b[1] > a[1] ? b : a));
  if (2 * most <= items.length || most === items.length) return null;
  return items.filter((_, i) => forms[i] !== common);
}

/**
 * What the policy that checks the stated form earns on an instance: where the prompt asks for the item that breaks a
 * form, 1/k where the answer is one of the k items of its longest list (with a form most items share) that break it,
 * else 0.
 */
export function statedFormCredit(prompt: string, answer: string): number {
  if (!asksForFormBreak(prompt)) return 0;
  const lists = promptItemLists(prompt).filter((l) => l.length >= 3);
  const want = normalizeAnswer(answer).toLowerCase();
  const words = lower(answer).join(' ');
  let best: { items: ListItem[]; size: number } | null = null;
  for (const l of lists) {
    const o = oddForms(l);
    if (o && (!best || l.length > best.size)) best = { items: o, size: l.length };
  }
  if (!best) return 0;
  const holds = (x: ListItem) =>
    normalizeAnswer(x.raw.replace(MARKER, '')).toLowerCase() === want ||
    (words !== '' && ` ${x.tokens.join(' ')} `.includes(` ${words} `));
  return best.items.some(holds) ? 1 / best.items.length : 0;
}

/**
 * A reader of form judged against checking the stated form: on an instance whose prompt asks for the item breaking a
 * form, a rule's chance is at least what that policy earns there (its floor), wherever the family applies.
 */
export function againstStatedForm(family: ReaderFamily): ReaderFamily {
  return {
    ...family,
    prepare(samples) {
      const prepared = family.prepare(samples);
      if (!prepared) return null;
      const stated = samples.map((s) => statedFormCredit(s.instance.prompt, answerContent(s.reference)));
      if (stated.every((c) => c === 0)) return prepared;
      return { ...prepared, floor: (rule, i) => Math.max(prepared.floor?.(rule, i) ?? 0, stated[i] as number) };
    },
  };
}
