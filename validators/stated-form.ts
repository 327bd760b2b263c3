// The policy that checks a stated form (rt27s S4): where the prompt asks for the item of a list that breaks the form
// its items must have ("Which entry breaks the format?", "Which date is not in the YYYY-MM-DD form?"), the item whose
// printed form differs from the one most items share is the task's own answer, not a leak; every reader of form (an
// item's layout, its marks, a token split by an odd dash) is judged against what this policy earns there, and against
// the policies that check a stated length, initial or order where the question asks for the item of N letters (rt28s
// N1), the item starting with a letter or the item out of order (the criteria of rt28s N3 and N4's relations).
import { answerContent } from '../sandbox/answer.js';
import { normalizeAnswer } from './answers.js';
import { leavesOrdered } from './item-relations.js';
import { printedValues } from './printed-tokens.js';
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

/** A count of letters (or squares) a sentence asks an item to have: "which word has exactly 7 letters". */
const LENGTH_UNIT = '(?:letters?|characters?|chars|squares?|boxes|cells|spaces)';
const HAS_VERB = '(?:has|have|having|with|of|is|are|contains?|spans?)';
const HAS_COUNT = `\\b${HAS_VERB}\\s+(?:exactly\\s+|just\\s+)?(\\w+)-?\\s*${LENGTH_UNIT}\\b`;
/**
 * The question asks for the item by the count, the predicate of its own clause ("Which word has 7 letters?", not "Which
 * river is longest, the one with 7 letters?"), or a sentence states a slot's count and another asks what fits it.
 */
const CLAUSE = '[^.?!\\n,;:()]{0,40}?';
/** The count closes its clause: no other criterion follows it ("...7 letters and is longest?"). */
const END = '\\s*(?:(?:in|from|on|among)\\s+(?:the|this|that|these)\\s+\\w+\\s*)?(?:[?.!:]|$)';
const ASKS_COUNT = new RegExp(`^\\s*${ASK.source}${CLAUSE}${HAS_COUNT}${END}`, 'i');
const SLOT_COUNT = new RegExp(`\\b(?:slot|gap|blank|space|grid|row|column)\\b${CLAUSE}${HAS_COUNT}${END}`, 'i');
const FITS = /\b(?:which|what)\b[^.?!\n]{0,60}?\b(?:fits?|fill\w*|goes)\b/i;

/** The counts of letters the prompt's question asks the answer item to have (none where it states no such count). */
export function askedLengths(prompt: string): Set<number> {
  const out = new Set<number>();
  const sentences = prompt.slice(0, MAX_TEXT).split(/(?<=[.?!])\s+|\n/);
  const fits = sentences.some((s) => FITS.test(s));
  for (const s of sentences) {
    const m = ASKS_COUNT.exec(s) ?? (fits ? SLOT_COUNT.exec(s) : null);
    for (const v of m ? printedValues(m[1] as string) : []) out.add(v);
  }
  return out;
}

/**
 * What a policy that checks a stated criterion earns on an instance: 1/k where the answer is one of the k items of the
 * prompt's longest list that `fits` (given each item's name: its first words, as many as the answer has), else 0.
 */
function criterionCredit(prompt: string, answer: string, fits: (names: string[][]) => boolean[]): number {
  const words = lower(answer);
  const list = promptItemLists(prompt)
    .filter((l) => l.length >= 3)
    .reduce<ListItem[]>((a, b) => (b.length > a.length ? b : a), []);
  const names = list.map((x) => x.tokens.slice(0, words.length));
  const fit = fits(names);
  const k = fit.filter(Boolean).length;
  return names.some((n, i) => fit[i] && n.join(' ') === words.join(' ')) ? 1 / k : 0;
}

const letters = (tokens: string[]) => tokens.join('').match(/\p{L}/gu)?.length ?? 0;

/** What the policy that checks a stated length earns: the items of a count of letters the question asks for. */
export function statedLengthCredit(prompt: string, answer: string): number {
  const asked = askedLengths(prompt);
  if (asked.size === 0) return 0;
  return criterionCredit(prompt, answer, (names) => names.map((n) => asked.has(letters(n))));
}

/** A question for the item by its opening letters ("Which station's name begins with W?", "starting with 'Gl'"). */
const STARTS = new RegExp(
  '\\b(?:starts?|begins?|starting|beginning|opens?|opening)\\s+with\\s+(?:the\\s+letters?\\s+|an?\\s+)?' +
    '["\'\u2018\u201c]?(\\p{L}{1,3})\\b',
  'iu',
);

/** What the policy that checks a stated initial earns: the items whose name opens with the letters asked for. */
export function statedInitialCredit(prompt: string, answer: string): number {
  const asked = prompt
    .slice(0, MAX_TEXT)
    .split(/(?<=[.?!])\s+|\n/)
    .flatMap((s) => (ASK.test(s) ? [STARTS.exec(s)?.[1]?.toLowerCase()] : []))
    .filter((l): l is string => l !== undefined);
  if (asked.length === 0) return 0;
  return criterionCredit(prompt, answer, (names) => names.map((n) => asked.some((l) => n.join('').startsWith(l))));
}

/** A question for the item out of its list's order ("Which name is out of alphabetical order?"). */
const UNORDERED = new RegExp(
  '\\b(?:out\\s+of\\s+(?:\\w+\\s+){0,2}(?:order|place|sequence)|not\\s+in\\s+(?:\\w+\\s+){0,2}order|' +
    'breaks?\\s+(?:the\\s+)?(?:\\w+\\s+)?(?:order|sequence)|unsorted|misplaced|misordered)\\b',
  'i',
);

/**
 * What the policy that checks a stated order earns: where a sentence asks for the item out of order, the items whose
 * removal leaves the list in order by their names, their lengths or their first numbers (the best of the three).
 */
export function statedOrderCredit(prompt: string, answer: string): number {
  const sentences = prompt.slice(0, MAX_TEXT).split(/(?<=[.?!])\s+|\n/);
  if (!sentences.some((s) => ASK.test(s) && UNORDERED.test(s))) return 0;
  const number = (n: string[]) => Number(n.join(' ').match(/[+-]?\d+(?:\.\d+)?/)?.[0] ?? Number.NaN);
  const keys: Array<(n: string[]) => string | number> = [(n) => n.join(' '), letters, number];
  return Math.max(
    ...keys.map((key) =>
      criterionCredit(prompt, answer, (names) => {
        const ks = names.map(key);
        const out = leavesOrdered(ks);
        return ks.some((v) => Number.isNaN(v)) || out.every(Boolean) ? out.map(() => false) : out;
      }),
    ),
  );
}

/** The criteria a question may state for the item it asks, each with the policy that checks it. */
const POLICIES = {
  form: statedFormCredit,
  length: statedLengthCredit,
  initial: statedInitialCredit,
  order: statedOrderCredit,
} as const;
export type Criterion = keyof typeof POLICIES;
const CRITERIA = Object.keys(POLICIES) as Criterion[];

/** What the policies that check a form, length, initial or order the question states earn on an instance. */
export function statedCredit(prompt: string, answer: string): number {
  return Math.max(...CRITERIA.map((c) => POLICIES[c](prompt, answer)));
}

/**
 * A reader of form judged against checking the stated form, length, initial and order: on an instance whose prompt
 * asks for the item breaking a form, the item of a stated count of letters, the item opening with stated letters or
 * the item out of its list's order, a rule that `reads` that criterion has at least what its policy earns there as its
 * chance (its floor), wherever the family applies. A rule reading anything else (a bold mark, an indent, a place)
 * keeps its own chance: the credit for the stated criterion is no licence for a second mark (rt29s L1).
 */
export function againstStatedForm(
  family: ReaderFamily,
  reads: (criterion: Criterion, rule: string) => boolean,
): ReaderFamily {
  return {
    ...family,
    prepare(samples) {
      const prepared = family.prepare(samples);
      if (!prepared) return null;
      const stated = samples.map((s) => {
        const answer = answerContent(s.reference);
        return CRITERIA.map((c): [Criterion, number] => [c, POLICIES[c](s.instance.prompt, answer)]);
      });
      if (stated.every((cs) => cs.every(([, v]) => v === 0))) return prepared;
      const floor = (rule: string, i: number) =>
        Math.max(0, ...(stated[i] ?? []).flatMap(([c, v]) => (v > 0 && reads(c, rule) ? [v] : [])));
      return { ...prepared, floor: (rule, i) => Math.max(prepared.floor?.(rule, i) ?? 0, floor(rule, i)) };
    },
  };
}
