// Informed guessing on multiple-choice instances: simple per-option rules a policy can learn without
// solving (an answer position, the option whose text the prompt already shows or never shows, the longest,
// the least like the others, the text that was right most often before), fitted on half the instances and
// scored on the other half, so what they win is an honest estimate to set against nominal chance 1/K.
import { normalizeAnswer, occurrences, tokenize } from './answers.js';
import type { Choices } from './prompt-lists.js';

export interface ChoiceCase {
  choices: Choices;
  /** Index of the right option. */
  truth: number;
}

interface Featured {
  k: number;
  truth: number;
  texts: string[];
  values: Map<string, number[]>;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const x of a) if (b.has(x)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

function featurise(c: ChoiceCase): Featured {
  const texts = c.choices.texts.map((t) => normalizeAnswer(t).toLowerCase().slice(0, 400));
  const body = c.choices.body.toLowerCase();
  const bodyTokens = new Set(tokenize(body, 20_000));
  const words = texts.map((t) => new Set(tokenize(t, 100)));
  const sorted = [...texts].sort();
  const shared = words.map((w) => [...w].filter((x) => bodyTokens.has(x)).length);
  const numbers = texts.map((t) => Number(tokenize(t, 50).find((x) => !Number.isNaN(Number(x))) ?? Number.NaN));
  const values = new Map<string, number[]>([
    ['times its text appears elsewhere in the prompt', texts.map((t) => occurrences(body, t, 8).length)],
    ['length', texts.map((t) => t.length)],
    ['words shared with the prompt', shared],
    ['share of its words in the prompt', shared.map((s, i) => s / Math.max(1, (words[i] as Set<string>).size))],
    ['likeness to the other options', words.map((w, i) => words.reduce((a, o, j) => a + (j === i ? 0 : jaccard(w, o)), 0))],
    ['first number in it', numbers],
    // Distractors placed around the right value (right ± d) give it away as the middle one.
    ['distance of its number from the options\' mean', numbers.map((v) => Math.abs(v - numbers.reduce((a, b) => a + b, 0) / numbers.length))],
    ['alphabetical rank', texts.map((t) => sorted.indexOf(t))],
  ]);
  return { k: texts.length, truth: c.truth, texts, values };
}

interface Rule {
  name: string;
  /** The options the rule picks (a guesser takes one of them at random). */
  pick(f: Featured): number[];
}

function extreme(values: number[], max: boolean): number[] {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0) return values.map((_, i) => i);
  const best = max ? Math.max(...finite) : Math.min(...finite);
  return values.flatMap((v, i) => (v === best ? [i] : []));
}

/** The rules, with the prior ("how often was this text right") learned from `train`. */
function rules(train: Featured[]): Rule[] {
  const prior = new Map<string, { wins: number; offers: number }>();
  for (const f of train) {
    f.texts.forEach((t, i) => {
      const p = prior.get(t) ?? { wins: 0, offers: 0 };
      p.offers++;
      if (i === f.truth) p.wins++;
      prior.set(t, p);
    });
  }
  const rate = (f: Featured) => f.texts.map((t) => ((prior.get(t)?.wins ?? 0) + 1 / f.k) / ((prior.get(t)?.offers ?? 0) + 1));
  const maxK = Math.max(0, ...train.map((f) => f.k));
  const out: Rule[] = [
    { name: 'the last option', pick: (f) => [f.k - 1] },
    ...Array.from({ length: maxK }, (_, p) => ({ name: `option ${p + 1}`, pick: (f: Featured) => (p < f.k ? [p] : f.texts.map((_, i) => i)) })),
    { name: 'the option most often right before', pick: (f) => extreme(rate(f), true) },
    { name: 'the option least often right before', pick: (f) => extreme(rate(f), false) },
  ];
  for (const feature of train[0]?.values.keys() ?? []) {
    out.push({ name: `the highest ${feature}`, pick: (f) => extreme(f.values.get(feature) as number[], true) });
    out.push({ name: `the lowest ${feature}`, pick: (f) => extreme(f.values.get(feature) as number[], false) });
  }
  return out;
}

const credit = (rule: Rule, f: Featured) => {
  const picks = rule.pick(f);
  return picks.includes(f.truth) ? 1 / picks.length : 0;
};

function fit(train: Featured[]): Rule {
  let best: { rule: Rule; score: number } | null = null;
  for (const rule of rules(train)) {
    const score = train.reduce((a, f) => a + credit(rule, f), 0);
    if (!best || score > best.score) best = { rule, score };
  }
  return (best as { rule: Rule }).rule;
}

export interface ChoiceGuessing {
  /** Per case, what the rule fitted on the other half wins (1/ties when the right option is among its picks). */
  outcomes: number[];
  /** Mean of 1/K over the cases. */
  nominal: number;
  /** The rules fitted on each half. */
  rules: string[];
}

/** Two-fold: rules fitted on the even cases are scored on the odd ones and the other way round. */
export function informedGuessing(cases: ChoiceCase[]): ChoiceGuessing {
  const featured = cases.map(featurise);
  const halves = [featured.filter((_, i) => i % 2 === 0), featured.filter((_, i) => i % 2 === 1)];
  const fitted = halves.map((h) => fit(h));
  const outcomes = featured.map((f, i) => credit(fitted[(i + 1) % 2] as Rule, f));
  return { outcomes, nominal: featured.reduce((a, f) => a + 1 / f.k, 0) / Math.max(1, featured.length), rules: fitted.map((r) => r.name) };
}
