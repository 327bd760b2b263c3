// A reader family (readers.ts) that reads a prompt list's items as options: where the answer is one item of a list
// (a row, a bullet, a table line), a cheap feature of the items' text proposes the item it singles out (the one whose
// value no other item shares, the one with a value, the most or fewest marks), judged against 1/K like the options
// family whose features it reuses; features that rank items by the value of their numbers are left out, as that
// ranking may be the task itself ("the row with the highest mean").
import { answerContent } from '../sandbox/answer.js';
import { featurePhrase, featurise, type Featured, picks } from './choice-rules.js';
import { relationFeatures } from './item-relations.js';
import { type ListItem, lower, MARKER, MAX_ANSWER_TOKENS, promptItemLists } from './leak-lists.js';
import type { PreparedFamily, ReaderFamily, ReaderSample } from './readers.js';
import { againstStatedForm, type Criterion } from './stated-form.js';

const MAX_LISTS = 3;
const MIN_ITEMS = 3;
const MAX_ITEMS = 40;
/** Ordinary punctuation: every other character that is no letter, digit or space is a mark (markup, a star, a tick). */
const ORDINARY = new Set([...'.,:;\'"()-/%°+!?']);

/** Features of an item's printed text alone, none needing the task's work. */
const TEXT: Array<[string, (raw: string) => number]> = [
  ['count of numbers with a fractional part in it', (raw) => raw.match(/\d\.\d/g)?.length ?? 0],
  ['count of marks in it', (raw) => [...raw].filter((c) => !/[\p{L}\p{N}\s]/u.test(c) && !ORDINARY.has(c)).length],
  ['count of words in capitals in it', (raw) => raw.match(/\b\p{Lu}{2,}\b/gu)?.length ?? 0],
  ['case of its first letter', (raw) => Number(/^[^\p{L}]*\p{Lu}/u.test(raw))],
  ['indentation', (raw) => raw.length - raw.trimStart().length],
  ['length class', (raw) => Math.round(Math.log2(1 + raw.trim().length))],
];
/**
 * An item's printed form with its content masked (a run of letters, a run of digits each one symbol; runs of plain
 * spaces one space, as aligned columns pad them; a sign, other spacing and punctuation kept, unlike reader-gates'
 * lineLayout, which trims and collapses every space): a row printed through another code path ("21; 19" among
 * "21, 19", "21, 19 (Alder)" among "Alder: 21, 19", a trailing or non-breaking space) differs from the others here,
 * whatever the difference is; a sign is layout, not content ("+21" among "21" rows, "ABC-1234" among "ABC1234",
 * rt27s S3). Its value is the place of the first item laid out the same, so only the odd one out is
 * a rule ("the layout equals c" says nothing). The first LAYOUT_CHARS characters are read.
 */
const LAYOUT = 'layout (its text with letters and digits masked)';
const LAYOUT_CHARS = 1000;
function layouts(raws: string[]): number[] {
  const masked = raws.map((r) =>
    r
      .slice(0, LAYOUT_CHARS)
      .replace(/\p{L}+/gu, 'a')
      .replace(/\p{N}+/gu, '9')
      .replace(/ {2,}/g, ' '),
  );
  return masked.map((m) => masked.indexOf(m));
}
/** Features of the options family read here: the look of an item's first number, not its value. */
const LOOK = ['digit count of its number', 'sign of its number', 'trailing zeros of its number'];
/** Formatting counts, where the item with the most (or fewest) is a rule too. */
const RANKED = new Set(TEXT.slice(0, 5).map(([name]) => name));

interface Rule {
  list: number;
  option: string;
}

/** The list at `rank` (from the end when negative) read as options, or null where the answer is in no one item. */
function caseOf(prompt: string, lists: ListItem[][], rank: number, answer: string[]): Featured | null {
  const items = rank >= 0 ? lists[rank] : lists[lists.length + rank];
  if (!items || items.length < MIN_ITEMS || items.length > MAX_ITEMS) return null;
  const want = answer.join(' ');
  // The item that holds the answer is the one item where it occurs, opening or closing it (a row's label, a bullet's
  // value) or after a prefix every item shares word for word or number for number ("Station Alder", "| 3 | Alder |"):
  // a policy copies the name from the row it picks wherever it stands. A line that mentions it among much else (a
  // sentence of the prompt listing every option) has no prefix the other items share, or holds it with other items.
  const names = (t: string[]) =>
    t.slice(0, answer.length).join(' ') === want || t.slice(-answer.length).join(' ') === want;
  const anywhere = items.flatMap((item, i) => (offsetOf(item.tokens, answer) >= 0 ? [i] : []));
  // Every item shares the prefix but one at most (a table's header row).
  const labelled = (t: string[]) => {
    const at = offsetOf(t, answer);
    const shares = (x: ListItem) =>
      x.tokens.length > at && x.tokens.slice(0, at).every((w, j) => shapeOf(w) === shapeOf(t[j]));
    return items.filter(shares).length >= items.length - 1;
  };
  const holds = anywhere.filter((i) => names((items[i] as ListItem).tokens));
  if (holds.length === 0 && anywhere.length === 1 && labelled((items[anywhere[0] as number] as ListItem).tokens))
    holds.push(anywhere[0] as number);
  if (holds.length !== 1) return null;
  const raws = items.map((x) => x.raw);
  // The options family's features read the item without its list marker ("10." is no number of the item's).
  const texts = raws.map((r) => r.replace(MARKER, ''));
  const f = featurise({ choices: { labels: [], texts, body: '' }, truth: holds[0] as number }, new Map());
  const values = new Map([...f.values].filter(([name]) => LOOK.includes(name)));
  for (const [name, of] of TEXT) values.set(name, raws.map(of));
  values.set(LAYOUT, layouts(raws));
  // Another item's name is read where the answer stands in its own: opening it, closing it, or after the prefix.
  const own = (items[holds[0] as number] as ListItem).tokens;
  const at = own.slice(0, answer.length).join(' ') === want ? 0 : offsetOf(own, answer);
  const fromEnd = at > 0 && own.slice(-answer.length).join(' ') === want;
  const name = (t: string[]) => (fromEnd ? t.slice(-answer.length) : t.slice(at, at + answer.length));
  for (const [feature, of] of relationFeatures(prompt, items, name)) values.set(feature, of);
  return { ...f, values };
}

/** Where a token run first occurs in an item's tokens, or -1. */
function offsetOf(tokens: string[], run: string[]): number {
  for (let at = 0; at + run.length <= tokens.length; at++) if (run.every((w, j) => tokens[at + j] === w)) return at;
  return -1;
}

/** A prefix token as compared across a list's items: its digits stand for any digits (an index column, "WX-104"). */
const shapeOf = (token: string | undefined) => token?.replace(/\d+/g, '#');

const RANKS = [
  ...Array.from({ length: MAX_LISTS }, (_, k) => k),
  ...Array.from({ length: MAX_LISTS }, (_, k) => -1 - k),
];

/** The option rules of one case that pick its right item (the options family's rule strings). */
function* optionRules(f: Featured): Generator<string> {
  for (const [feature, values] of f.values) {
    const kinds = RANKED.has(feature) ? ['odd', 'max', 'min'] : ['odd'];
    for (const kind of kinds) yield `${kind}:${feature}`;
    const v = values[f.truth] as number;
    if (Number.isFinite(v) && feature !== LAYOUT) yield `is:${feature}=${v}`;
  }
}

/**
 * The rules that read what a stated criterion reads (rt29s L1): the length of an item's name, its opening letters, the
 * order the others keep, its printed form (its text trimmed, as stated-form's formOf reads it: no indent, no relation).
 */
const READS: Record<Criterion, RegExp> = {
  length: /length/,
  initial: /opening letters|initials/,
  order: /removal leaving the list in order/,
  form: /^(?!.*(?:indentation|outside the list|removal leaving))/,
};

/**
 * The list items reader: applies where at least 80% of the answers are one item of a prompt list; a reader of form,
 * judged against checking a form the prompt states where it asks for the item breaking it (rt27s S4), and its rules
 * that read a stated length, initial or order against checking that criterion.
 */
export const ITEMS: ReaderFamily = againstStatedForm(
  {
    name: "a prompt list's item singled out by a feature of its text",
    code: 'E_ANSWER_LEAK',
    prepare(samples: readonly ReaderSample[]): PreparedFamily | null {
      const answers = samples.map((e) => lower(answerContent(e.reference)));
      const cases = samples.map((e, i) => {
        const a = answers[i] as string[];
        if (a.length === 0 || a.length > MAX_ANSWER_TOKENS) return new Map<number, Featured>();
        const lists = promptItemLists(e.instance.prompt);
        return new Map(
          RANKS.flatMap((r) => {
            const f = caseOf(e.instance.prompt, lists, r, a);
            return f ? [[r, f] as const] : [];
          }),
        );
      });
      if (cases.filter((c) => c.size > 0).length < 0.8 * samples.length) return null;
      const earned = (rule: Rule, i: number) => {
        const f = cases[i]?.get(rule.list);
        if (!f) return 0;
        const p = picks(rule.option, f);
        return p.includes(f.truth) ? 1 / p.length : 0;
      };
      return {
        *fit(i) {
          for (const [list, f] of cases[i] ?? [])
            for (const option of optionRules(f)) {
              const c = earned({ list, option }, i);
              if (c > 0) yield [JSON.stringify({ list, option }), c];
            }
        },
        credit: (rule, i) => earned(JSON.parse(rule) as Rule, i),
        nominal: (i) => 1 / ([...(cases[i]?.values() ?? [])][0]?.k ?? 1),
        describe(rule) {
          const { list, option } = JSON.parse(rule) as Rule;
          const where = list >= 0 ? `list ${list + 1}` : list === -1 ? 'the last list' : `list ${-list} from the end`;
          return `the answer is the item of the prompt's ${where} ${featurePhrase(option, 'item')}`;
        },
      };
    },
  },
  (criterion, rule) => READS[criterion].test(rule),
);
