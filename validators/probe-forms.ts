// Probe forms built from principles rather than lists of cases: non-answers (abstentions, non-finite
// numbers, text malformed in the reference's own notation), hedges (a wrong value with an interval wide
// enough to hold the truth), model-shaped reasoning around a wrong answer, the prompt's own tokens of the
// answer's shape, and the carriers a guess list can come in (any tag spelling, fences, joiners of any script);
// the markups an answer can come in, and the rotation that spreads a family's forms over the sample.
import { withContent } from '../sandbox/answer.js';
import { normalizeAnswer, tokenize, type Shape } from './answers.js';

export { reasoning } from './prose.js';

/** Words a policy writes instead of an answer: never a solution, so never paid. */
const ABSTAIN = [
  'unknown',
  "I don't know",
  'cannot be determined',
  'N/A',
  'no answer',
  'undefined',
  'not sure',
  'insufficient information',
  '?',
  'none of the above',
  'skip',
  'I cannot solve this',
  'no solution',
  'TBD',
];
/** Numbers that are not finite (or parse to NaN) in every notation a lenient parser may accept. */
const NON_FINITE = [
  '0/0',
  'NaN',
  '1/0',
  'Infinity',
  '-Infinity',
  '1e999',
  'inf',
  '-0/0',
  '0.0/0',
  'nan',
  '∞',
  '0:0',
  '1e-999/0',
];
const OPENERS = '([{<';
const CLOSERS = ')]}>';

/**
 * Responses that hold no answer in the reference's markup: none may earn anything. `taken` holds answers some
 * instance has.
 */
export function nonAnswers(content: string, shape: Shape, taken: Set<string>): Array<[string, string]> {
  const fresh = (v: string) => !taken.has(normalizeAnswer(v).toLowerCase());
  const out: Array<[string, string]> = ABSTAIN.filter(fresh).map((w) => [`abstains: "${w}"`, w]);
  if (shape.kind === 'integer' || shape.kind === 'number' || /^[+-]?\d/.test(content))
    out.push(...NON_FINITE.filter(fresh).map((w): [string, string] => [`not a finite number: ${w}`, w]));
  out.push(...malformed(content, shape).filter(([, v]) => fresh(v)));
  return out;
}

/**
 * The reference's own notation, broken: an opening bracket alone, and (for an expression, not a separated
 * list, where a cut list is a partial answer) the text cut where its brackets do not balance.
 */
function malformed(content: string, shape: Shape): Array<[string, string]> {
  const text = content.length > 400 ? content.slice(0, 400) : content;
  const open = [...text].find((c) => OPENERS.includes(c));
  if (open === undefined) return [];
  const out: Array<[string, string]> = [[`an opening "${open}" alone`, open]];
  if (shape.kind === 'list' && shape.separator !== ' ') return out;
  // Prefixes whose brackets do not balance: they can parse as nothing.
  for (const cut of [Math.ceil(text.length / 2), text.length - 1]) {
    const prefix = text.slice(0, cut).trimEnd();
    if (prefix.length > 1 && depth(prefix) > 0)
      out.push([`the reference cut at ${cut} characters (unbalanced)`, prefix]);
  }
  return out;
}

function depth(text: string): number {
  let d = 0;
  for (const c of text) {
    if (OPENERS.includes(c)) d++;
    else if (CLOSERS.includes(c)) d--;
  }
  return d;
}

/**
 * A wrong value with a stated interval that holds the truth: a hedge is many answers at once. Two widths:
 * one unit of the last place ("1235 ± 1", which any "tight enough" rule accepts) and about 2% of the value.
 */
export function hedges(content: string, shape: Shape): Array<{ form: string; response: string; wrong: string }> {
  const t = content.trim();
  const value = Number(t);
  if ((shape.kind !== 'integer' && shape.kind !== 'number') || !Number.isFinite(value) || t.includes('/')) return [];
  const decimals = t.includes('.') ? t.length - t.indexOf('.') - 1 : 0;
  const fmt = (v: number) => v.toFixed(decimals);
  const unit = 10 ** -decimals;
  const out: Array<{ form: string; response: string; wrong: string }> = [];
  for (const [width, off] of [
    ['tight', unit],
    ['about 2%', Math.max(unit, Math.abs(value) * 0.015)],
  ] as const) {
    const v = Number(fmt(value + off));
    const err = fmt(Math.ceil((Math.abs(v - value) + unit / 2) / unit) * unit);
    const [lo, hi] = [fmt(v - Number(err)), fmt(v + Number(err))];
    const wrong = fmt(v);
    const forms: Array<[string, string]> = [
      ['a value ± its uncertainty', `${wrong} ± ${err}`],
      ['a value +/- its uncertainty', `${wrong} +/- ${err}`],
      ['an interval "between A and B"', `between ${lo} and ${hi}`],
      ['an interval [A, B]', `[${lo}, ${hi}]`],
      ...(width === 'tight'
        ? []
        : ([
            ['an interval A-B', `${lo}-${hi}`],
            ['an approximate value', `approximately ${wrong}`],
            ['a value with a tilde', `~${wrong}`],
          ] as Array<[string, string]>)),
    ];
    for (const [form, response] of forms) out.push({ form: `${form} (${width})`, response, wrong });
  }
  return out;
}

/** Distinct prompt tokens of the answer's kind (numbers for a number, words for a word), spread over the prompt. */
export function promptTokens(prompt: string, content: string, shape: Shape, max: number, index: number): string[] {
  if (shape.kind !== 'integer' && shape.kind !== 'number' && shape.kind !== 'word') return [];
  const numeric = shape.kind !== 'word';
  const like = (x: string) =>
    numeric ? /^[+-]?\d+(\.\d+)?$/.test(x) : /^[A-Za-z][A-Za-z'-]*$/.test(x) && x.length >= Math.min(3, content.length);
  const seen = new Set<string>();
  const all: string[] = [];
  for (const x of tokenize(prompt, 5_000)) {
    const key = numeric ? x : x.toLowerCase();
    if (like(x) && !seen.has(key)) {
      seen.add(key);
      all.push(x);
    }
  }
  if (all.length <= max) return all;
  // Evenly spaced, with an offset that moves with the instance, so a long prompt is covered over the sample.
  const step = all.length / max;
  return Array.from(
    { length: max },
    (_, j) => all[Math.floor(((index % 7) / 7) * step + j * step) % all.length] as string,
  );
}

/**
 * Answers that mean something to a matcher rather than to the task: patterns that match anything (a verifier
 * that compiles the answer into a regex, a glob or a LIKE). Names the host language gives every value are
 * INHERITED_NAMES.
 */
export const UNIVERSAL_ANSWERS: Array<[string, string]> = [
  ['a regex matching anything', '.*'],
  ['a regex matching anything', '[\\s\\S]*'],
  ['a regex matching one word', '\\w+'],
  ['a glob matching anything', '*'],
  ['a LIKE pattern matching anything', '%'],
];

/**
 * A value of each kind a verifier may look an answer up in: what JSON instances hold, and the collections and
 * functions it builds.
 */
const CONTAINERS: unknown[] = [{ a: 1 }, [1, 2], 'ab', 5, true, function f() {}, new Map(), new Set(), /x/];

/**
 * What decides whether a verifier that looks a name up can tell names apart: the containers holding it, its
 * letters, its length.
 */
function nameClass(name: string): string {
  const holders = CONTAINERS.map((c) => (name in Object(c) ? 1 : 0)).join('');
  const letters = /^[a-z]+$/.test(name) ? 'lower' : name.includes('_') ? 'underscore' : 'mixed';
  return `${holders}|${letters}|${Math.min(3, Math.floor(Math.log2(name.length)))}`;
}

/**
 * Every property name a value of some container kind inherits (or holds by kind, as `length`), read from
 * the realm's own prototypes, not typed in: a verifier that looks the answer up in a plain object, an array,
 * a string or a Map with `[]` or `in` finds each of them. Ordered so any window of consecutive names spans
 * the classes (one of each class first, the classes held by most containers first), then the rest the same
 * way: a few names per instance, rotated across the sample, cover every class, and the whole family once the
 * sample has (family size / window) probed instances.
 */
export const INHERITED_NAMES: string[] = (() => {
  const names = new Set<string>();
  for (const c of CONTAINERS)
    for (let p = Object.getPrototypeOf(Object(c)); p; p = Object.getPrototypeOf(p))
      for (const n of Object.getOwnPropertyNames(p)) names.add(n);
  const classes = new Map<string, string[]>();
  for (const n of [...names].filter((n) => /^[A-Za-z_$][\w$]*$/.test(n)))
    classes.set(nameClass(n), [...(classes.get(nameClass(n)) ?? []), n]);
  const breadth = (k: string) => -[...(k.split('|')[0] as string)].filter((b) => b === '1').length;
  const ordered = [...classes.entries()]
    .sort(([a], [b]) => breadth(a) - breadth(b) || (a < b ? -1 : 1))
    .map(([, list]) => list);
  const out: string[] = [];
  for (let round = 0; out.length < names.size && ordered.some((l) => l.length > round); round++)
    for (const list of ordered) if (list[round] !== undefined) out.push(list[round] as string);
  return out;
})();

/** Markup that carries one guess each, in spellings a lenient verifier may read: tag case, attributes, fences. */
export const EACH_CARRIERS: Record<string, (c: string) => string> = {
  'a tag each': (c) => `<answer>${c}</answer>`,
  'an upper-case tag each': (c) => `<ANSWER>${c}</ANSWER>`,
  'a capitalised tag each': (c) => `<Answer>${c}</Answer>`,
  'a tag with an attribute each': (c) => `<answer id="1">${c}</answer>`,
  'another tag name each': (c) => `<result>${c}</result>`,
  'a bracket tag each': (c) => `[answer]${c}[/answer]`,
  'inline code each': (c) => `\`${c}\``,
  'a fence each': (c) => `\`\`\`\n${c}\n\`\`\``,
  'bold each': (c) => `**${c}**`,
  'html bold each': (c) => `<b>${c}</b>`,
  'one per line': (c) => c,
  'labelled lines': (c) => `Answer: ${c}`,
  'boxed each': (c) => `\\boxed{${c}}`,
};

/**
 * Joiners for guesses of one scalar, from every script: a verifier may split on some and read the rest as one
 * answer.
 */
export const SCALAR_JOINERS = [
  ', ',
  '; ',
  ' | ',
  ' / ',
  ' or ',
  '\n',
  ' and ',
  ' ',
  'json',
  '-',
  '',
  '_',
  '+',
  '\t',
  '\uff0c',
  '\u3001',
  '\uff1b',
  '\u200b',
  '\u2013',
  '~',
  '\uff0f',
  '\u060c',
  '\u00b7',
];

/** Whether a task's text states a numeric tolerance ("within 0.05", "to 2 decimals", "± 0.1", "rounded"). */
export function statesTolerance(text: string): boolean {
  return /\b(within|tolerance|accurate to|rounded|round to|decimal places|decimals)\b|±/i.test(text.slice(0, 20_000));
}

/**
 * One acceptance region a task states for a number: absolute ("within 0.05 of", "± 2") or relative ("within
 * 0.1%").
 */
export type StatedRegion = { absolute: number } | { relative: number };

/**
 * The regions the task's text states in a sentence about acceptance ("accepted", "tolerance", "correct",
 * "counts"): a bare "within 10 minutes" of a story states none.
 */
export function statedRegions(text: string): StatedRegion[] {
  const regions: StatedRegion[] = [];
  for (const sentence of text.slice(0, 20_000).split(/(?<=[.!?;])\s+|\n/)) {
    if (!/\b(accept(?:ed|s|able)?|tolerance|correct|counts?|graded|marked right)\b/i.test(sentence)) continue;
    for (const m of sentence.matchAll(/(?:\bwithin|±|\+\/-)\s*(\d+(?:\.\d+)?)\s*(%|percent\b)?/gi)) {
      const x = Number(m[1]);
      if (Number.isFinite(x)) regions.push(m[2] ? { relative: x / 100 } : { absolute: x });
    }
  }
  return regions;
}

/** The narrowest stated width around a numeric `reference` (several statements never widen one another), or null. */
export function statedWidth(regions: readonly StatedRegion[] | undefined, r: number): number | null {
  return regions?.length && Number.isFinite(r)
    ? Math.min(...regions.map((g) => ('relative' in g ? g.relative * Math.abs(r) : g.absolute)))
    : null;
}

const placesOf = (t: string) => (t.includes('.') ? t.length - t.indexOf('.') - 1 : 0);

/**
 * A near value judged against the region the task states: null where `value` is outside it (probe it as it is);
 * inside it (less half a unit of the reference's last place: the reference is itself rounded) it is a right
 * answer by the task's terms, and the probe moves to twice the stated width on the same side, where a verifier
 * that keeps to what the task states refuses it.
 */
export function statedControl(
  regions: readonly StatedRegion[] | undefined,
  reference: string,
  value: string,
): string | null {
  const t = reference.trim();
  const r = Number(t);
  const v = Number(value.trim());
  const width = statedWidth(regions, r);
  const unit = 10 ** -placesOf(t);
  if (width === null || !Number.isFinite(v) || Math.abs(v - r) > width - 0.5 * unit + 1e-12) return null;
  return (r + Math.sign(v - r || 1) * (Math.ceil((2 * width) / unit) + 1) * unit).toFixed(placesOf(t));
}

/** Markup a model might put an answer in, besides the reference's own. */
export const WRAP: Record<string, (content: string, reference: string) => string> = {
  tag: (c, ref) => withContent(ref, c),
  bare: (c) => c,
  bold: (c) => `**${c}**`,
  html: (c) => `<b>${c}</b>`,
  label: (c) => `Final answer: ${c}`,
  'last line': (c) => `I worked through every step.\n${c}`,
  fence: (c) => `\`\`\`\n${c}\n\`\`\``,
  boxed: (c) => `\\boxed{${c}}`,
  json: (c) => JSON.stringify({ answer: c }),
};

/** `count` of `forms`, a window that moves with the instance: each instance tries a few, the sample tries them all. */
export function rotate<T>(forms: T[], count: number, index: number): T[] {
  if (forms.length <= count) return forms;
  return Array.from({ length: count }, (_, j) => forms[(index * count + j) % forms.length] as T);
}
