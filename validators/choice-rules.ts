// A reader family (readers.ts) for multiple-choice prompts: each option gets features (its position, how its
// text relates to the prompt and to the other options, how common its text is among every instance's options,
// and the arithmetic of its number: parity, residues, last digit, digit sum, digit count, magnitude), and a
// rule picks the options with the highest or lowest value of a feature, the one option a feature singles out
// (the odd one out), the options with one value of it (the even one), or one text; it earns 1/picks where the
// right option is among its picks, against nominal chance 1/K.
import { normalizeAnswer, occurrences, tokenize } from './answers.js';
import { chosenOption, parseChoices, type Choices } from './prompt-lists.js';
import type { PreparedFamily, ReaderFamily, ReaderSample } from './readers.js';

export interface ChoiceCase {
  choices: Choices;
  /** Index of the right option. */
  truth: number;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

const mod = (v: number, k: number) => (Number.isInteger(v) ? ((v % k) + k) % k : Number.NaN);
const digitsOf = (v: number) => (Number.isInteger(v) ? String(Math.abs(v)) : '');

/**
 * Features of a number that a policy can read at a glance, each with few values (judged by value and by the odd one
 * out).
 */
const ARITHMETIC: Array<[string, (v: number) => number]> = [
  ['parity of its number', (v) => mod(v, 2)],
  ['residue of its number mod 3', (v) => mod(v, 3)],
  ['residue of its number mod 4', (v) => mod(v, 4)],
  ['residue of its number mod 5', (v) => mod(v, 5)],
  ['residue of its number mod 7', (v) => mod(v, 7)],
  ['residue of its number mod 9', (v) => mod(v, 9)],
  ['last digit of its number', (v) => mod(Math.abs(v), 10)],
  [
    'digit sum of its number',
    (v) => [...digitsOf(v)].reduce((a, d) => a + Number(d), 0) || (Number.isInteger(v) ? 0 : Number.NaN),
  ],
  ['digit count of its number', (v) => digitsOf(v).length || Number.NaN],
  [
    'trailing zeros of its number',
    (v) => (Number.isInteger(v) && v !== 0 ? digitsOf(v).length - digitsOf(v).replace(/0+$/, '').length : Number.NaN),
  ],
  ['sign of its number', (v) => (Number.isFinite(v) ? Math.sign(v) : Number.NaN)],
];
/** Features whose every value is a rule of its own ("the option whose number is even"). */
const CATEGORICAL = new Set(ARITHMETIC.map(([name]) => name).filter((n) => !n.startsWith('digit sum')));

export interface Featured {
  k: number;
  truth: number;
  texts: string[];
  values: Map<string, number[]>;
}

export function featurise(c: ChoiceCase, textCounts: Map<string, number>): Featured {
  const texts = c.choices.texts.map((t) => normalizeAnswer(t).toLowerCase().slice(0, 400));
  const body = c.choices.body.toLowerCase();
  const bodyTokens = new Set(tokenize(body, 20_000));
  const words = texts.map((t) => new Set(tokenize(t, 100)));
  const sorted = [...texts].sort();
  const shared = words.map((w) => [...w].filter((x) => bodyTokens.has(x)).length);
  const numbers = texts.map((t) => Number(tokenize(t, 50).find((x) => !Number.isNaN(Number(x))) ?? Number.NaN));
  const finite = numbers.filter((v) => Number.isFinite(v));
  const values = new Map<string, number[]>([
    ['times its text appears elsewhere in the prompt', texts.map((t) => occurrences(body, t, 8).length)],
    ['length', texts.map((t) => t.length)],
    ['words shared with the prompt', shared],
    ['share of its words in the prompt', shared.map((s, i) => s / Math.max(1, (words[i] as Set<string>).size))],
    [
      'likeness to the other options',
      words.map((w, i) => words.reduce((a, o, j) => a + (j === i ? 0 : jaccard(w, o)), 0)),
    ],
    ['times its text is offered over all instances', texts.map((t) => textCounts.get(t) ?? 0)],
    ['first number in it', numbers],
    // Distractors placed around the right value (right ± d) give it away as the middle one.
    [
      "distance of its number from the options' mean",
      numbers.map((v) => Math.abs(v - numbers.reduce((a, b) => a + b, 0) / numbers.length)),
    ],
    [
      'rank of its number among the options',
      numbers.map((v) => (Number.isFinite(v) ? finite.filter((x) => x < v).length : Number.NaN)),
    ],
    ['alphabetical rank', texts.map((t) => sorted.indexOf(t))],
    ...ARITHMETIC.map(([name, f]): [string, number[]] => [
      name,
      numbers.map((v) => (Number.isFinite(v) ? f(v) : Number.NaN)),
    ]),
  ]);
  return { k: texts.length, truth: c.truth, texts, values };
}

const all = (f: Featured) => f.texts.map((_, i) => i);

function extreme(values: number[], max: boolean): number[] {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return values.map((_, i) => i);
  const best = max ? Math.max(...finite) : Math.min(...finite);
  return values.flatMap((v, i) => (v === best ? [i] : []));
}

/** The options whose value no other option shares (the odd one out), or every option when none or all are. */
function oddOneOut(values: number[]): number[] {
  const counts = new Map<number, number>();
  for (const v of values) if (Number.isFinite(v)) counts.set(v, (counts.get(v) ?? 0) + 1);
  const unique = values.flatMap((v, i) => (Number.isFinite(v) && counts.get(v) === 1 ? [i] : []));
  return unique.length === 0 || unique.length === values.length ? values.map((_, i) => i) : unique;
}

/** What a rule picks on one case. Rules are strings: "pos:p", "last", "text:T", "max:F", "min:F", "odd:F", "is:F=c". */
export function picks(rule: string, f: Featured): number[] {
  const [kind, rest] = [
    rule.slice(0, rule.indexOf(':') < 0 ? rule.length : rule.indexOf(':')),
    rule.slice(rule.indexOf(':') + 1),
  ];
  if (kind === 'last') return [f.k - 1];
  if (kind === 'pos') return Number(rest) < f.k ? [Number(rest)] : all(f);
  if (kind === 'text') return f.texts.includes(rest) ? f.texts.flatMap((t, i) => (t === rest ? [i] : [])) : all(f);
  const eq = rest.lastIndexOf('=');
  const feature = kind === 'is' ? rest.slice(0, eq) : rest;
  const values = f.values.get(feature);
  if (!values) return all(f);
  if (kind === 'max' || kind === 'min') return extreme(values, kind === 'max');
  if (kind === 'odd') return oddOneOut(values);
  const picked = values.flatMap((v, i) => (v === Number(rest.slice(eq + 1)) ? [i] : []));
  return picked.length ? picked : all(f);
}

/** Every rule that earns something on this case, with what it earns (1 / its picks). */
function* rulesOf(f: Featured): Generator<[string, number]> {
  const earn = function* (rule: string): Generator<[string, number]> {
    const p = picks(rule, f);
    if (p.includes(f.truth)) yield [rule, 1 / p.length];
  };
  yield* earn('last');
  for (let p = 0; p < f.k; p++) yield* earn(`pos:${p}`);
  yield* earn(`text:${f.texts[f.truth]}`);
  for (const [feature, values] of f.values) {
    for (const kind of ['max', 'min', 'odd']) yield* earn(`${kind}:${feature}`);
    const v = values[f.truth] as number;
    if (CATEGORICAL.has(feature) && Number.isFinite(v)) yield* earn(`is:${feature}=${v}`);
  }
}

/**
 * What a feature rule ("max:F", "min:F", "odd:F", "is:F=c") says of the one it picks, after its noun ("with the highest
 * F"); `noun` names the others ("no other option shares"). leak-items.ts reads list items with the same rules.
 */
export function featurePhrase(rule: string, noun: string): string {
  const colon = rule.indexOf(':');
  const [kind, rest] = [rule.slice(0, colon), rule.slice(colon + 1)];
  if (kind === 'max') return `with the highest ${rest}`;
  if (kind === 'min') return `with the lowest ${rest}`;
  if (kind === 'odd') return `whose ${rest} no other ${noun} shares`;
  const eq = rest.lastIndexOf('=');
  return `whose ${rest.slice(0, eq)} is ${rest.slice(eq + 1)}`;
}

function describe(rule: string): string {
  const colon = rule.indexOf(':');
  const [kind, rest] = colon < 0 ? [rule, ''] : [rule.slice(0, colon), rule.slice(colon + 1)];
  if (kind === 'last') return 'the last option';
  if (kind === 'pos') return `option ${Number(rest) + 1}`;
  if (kind === 'text') return `the option reading "${rest.slice(0, 40)}"`;
  return `the option ${featurePhrase(rule, 'option')}`;
}

/**
 * The multiple-choice cases of a sample set (null entries where a prompt has no options or the reference names none).
 */
export function choiceCases(samples: readonly ReaderSample[]): Array<ChoiceCase | null> {
  return samples.map((s) => {
    const choices = parseChoices(s.instance.prompt);
    const truth = choices ? chosenOption(s.reference, choices) : -1;
    return choices && truth >= 0 ? { choices, truth } : null;
  });
}

/** The options reader: applies where at least 80% of the prompts are multiple choice with a named right option. */
export const OPTIONS: ReaderFamily = {
  name: 'a multiple-choice option singled out by a feature',
  code: 'E_ACCEPTS_GUESSING',
  prepare(samples): PreparedFamily | null {
    const cases = choiceCases(samples);
    if (cases.filter(Boolean).length < 0.8 * samples.length) return null;
    const textCounts = new Map<string, number>();
    for (const c of cases)
      for (const t of c?.choices.texts ?? [])
        textCounts.set(
          normalizeAnswer(t).toLowerCase().slice(0, 400),
          (textCounts.get(normalizeAnswer(t).toLowerCase().slice(0, 400)) ?? 0) + 1,
        );
    const featured = cases.map((c) => (c ? featurise(c, textCounts) : null));
    return {
      *fit(i) {
        const f = featured[i];
        if (f) yield* rulesOf(f);
      },
      credit(rule, i) {
        const f = featured[i];
        if (!f) return 0;
        const p = picks(rule, f);
        return p.includes(f.truth) ? 1 / p.length : 0;
      },
      nominal: (i) => 1 / (featured[i]?.k ?? 1),
      describe,
    };
  },
};
