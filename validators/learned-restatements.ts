// The question restated by a learned policy: the prompt's numbers in order, each given the sign (or dropped, or
// multiplied by its neighbour) that a word beside it predicts, the word-to-sign map fitted on one half of each level's
// sample against the references and applied to the other half's instances. Whatever words carry the operators
// (deposits, loses, a column heading, "each"), an answer that is a fixed composition of the prompt's numbers is
// restated, so a verifier that evaluates what it is given pays it with nothing solved. Guest text: linear scans.
import { answerContent } from '../sandbox/answer.js';
import type { Episode } from '../sandbox/episodes.js';
import { fitSigns } from './sign-fit.js';

/** How a number's context is keyed: the word(s) beside it on its line, or the heading above it (its table column's,
 * or its section's with the word before). */
const KEYS = [
  'the word before',
  'the word after',
  'the two words before',
  'the two words after',
  'the words around',
  'the heading above',
] as const;
/** Mentions beyond this are not restated (a prompt of many numbers is restated by its first ones only). */
const MAX_NUMBERS = 80;
/** The least share of its own half a fitted map must reproduce exactly before its restatements are sent. */
const MIN_FIT = 0.25;

/** A number of the prompt: its value, how it is printed (unsigned), its line and its context keys (one per KEYS). */
export interface Mention {
  value: number;
  text: string;
  line: number;
  keys: string[];
}

/** A term of a restatement: one number, or the product of two neighbours on a line, under one key. */
interface Term {
  key: string;
  value: number;
  parts: number[];
}

/** A fitted policy: which key function, whether neighbours' products are terms, and each key's coefficient. */
export interface RestatementFit {
  keyed: number;
  products: boolean;
  coefficients: Map<string, number>;
  /** The share of its training instances the map reproduces exactly. */
  fit: number;
}

const words = (s: string) => s.toLowerCase().match(/[a-z]+/g) ?? [];
const isRule = (line: string) => /^\s*\|?\s*:?-{3,}/.test(line);

/** The prompt's numbers in order, each with its context keys, or null where it prints none or too many. */
export function mentionsOf(prompt: string): Mention[] | null {
  const out: Mention[] = [];
  const lines = prompt.slice(0, 20_000).split('\n');
  let heading: string[] | null = null;
  // A section: the lines after a heading line ("Withdrawals:", no number), up to a blank line.
  let section = '';
  for (let l = 0; l < lines.length; l++) {
    const line = lines[l] as string;
    if (!/\S/.test(line)) section = '';
    else if (!/\d/.test(line) && /:\s*$/.test(line)) section = words(line).slice(-3).join(' ');
    if (!line.includes('|')) heading = null;
    else if (isRule(lines[l + 1] ?? '')) heading = line.split('|');
    const tokens = [...line.matchAll(/(?<![\w.])-?\d+(?:\.\d+)?|\d+(?:\.\d+)?|[A-Za-z]+/g)].slice(0, 400);
    tokens.forEach((m, i) => {
      if (!/\d/.test(m[0])) return;
      const before = tokens
        .slice(Math.max(0, i - 8), i)
        .filter((t) => !/\d/.test(t[0]))
        .map((t) => t[0].toLowerCase());
      const after = tokens
        .slice(i + 1, i + 9)
        .filter((t) => !/\d/.test(t[0]))
        .map((t) => t[0].toLowerCase());
      const prev = before.at(-1) ?? '^';
      const next = after[0] ?? '$';
      const column =
        heading && !isRule(line) && line.includes('|')
          ? words(heading[line.slice(0, m.index).split('|').length - 1] ?? '').join(' ')
          : null;
      out.push({
        value: Number(m[0]),
        text: m[0].replace(/^-/, ''),
        line: l,
        keys: [
          prev,
          next,
          before.slice(-2).join(' ') || '^',
          after.slice(0, 2).join(' ') || '$',
          `${prev} _ ${next}`,
          column === null ? `${section}: ${prev}` : `| ${column}`,
        ],
      });
    });
    if (out.length > MAX_NUMBERS) return null;
  }
  return out.length >= 2 && out.every((m) => Number.isFinite(m.value)) ? out : null;
}

/** The terms of a prompt under one key function: each number, and each product of neighbours on a line. */
function termsOf(mentions: Mention[], keyed: number, products: boolean): Term[] {
  const terms: Term[] = mentions.map((m, i) => ({ key: `n ${m.keys[keyed]}`, value: m.value, parts: [i] }));
  if (products)
    mentions.forEach((m, i) => {
      const next = mentions[i + 1];
      if (next && next.line === m.line)
        terms.push({ key: `x ${next.keys[keyed]}`, value: m.value * next.value, parts: [i, i + 1] });
    });
  return terms;
}

/** Each key's summed term values. */
function sumsOf(terms: readonly Term[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const t of terms) sums.set(t.key, (sums.get(t.key) ?? 0) + t.value);
  return sums;
}

/** The reference as a number, where it is one plainly written. */
export function referenceValue(reference: string): number | null {
  const content = answerContent(reference).trim();
  return /^-?\d+(?:\.\d+)?$/.test(content) ? Number(content) : null;
}

/**
 * The best policy for a set of prompts and their numeric answers: each key function fitted on numbers alone, then
 * with neighbours' products where no sum fits them all; the one that reproduces most of them.
 */
export function fitRestatement(train: Array<{ mentions: Mention[]; target: number }>): RestatementFit | null {
  let best: RestatementFit | null = null;
  for (const products of [false, true]) {
    if (products && best && best.fit >= 0.9) break;
    for (let keyed = 0; keyed < KEYS.length; keyed++) {
      const { coefficients, fit } = fitSigns(
        train.map((x) => ({ sums: sumsOf(termsOf(x.mentions, keyed, products)), target: x.target })),
      );
      if (!best || fit > best.fit) best = { keyed, products, coefficients, fit };
      if (fit === 1) return best;
    }
  }
  return best;
}

/** A prompt restated by a fitted policy ("120 + 35 - 7", "3 * 12 + 5"), or null where it keeps fewer than two terms. */
export function restate(mentions: Mention[], policy: RestatementFit): string | null {
  const kept = termsOf(mentions, policy.keyed, policy.products).flatMap((t) => {
    const c = policy.coefficients.get(t.key) ?? 0;
    return c === 0
      ? []
      : [
          {
            negative: c * Math.sign(t.value) < 0,
            text: t.parts.map((i) => mentions[i]?.text).join(' * '),
            at: t.parts[0] as number,
          },
        ];
  });
  if (kept.length < 2) return null;
  kept.sort((a, b) => a.at - b.at);
  return kept
    .map((t, i) => (i === 0 ? `${t.negative ? '-' : ''}${t.text}` : `${t.negative ? '-' : '+'} ${t.text}`))
    .join(' ');
}

/** How a fitted policy is named (the probes' form is one, whichever key each half's policy reads). */
export const policyName = (policy: RestatementFit) =>
  `the prompt's numbers signed by ${KEYS[policy.keyed]}${policy.products ? ', with products' : ''}`;

/**
 * The restatement of each probed instance by the policy fitted on the other half of the sample (each level's
 * instances alternate between the halves), with the policy's name; none where no policy reproduces enough of its half.
 */
export function learnedRestatements(
  byLevel: ReadonlyMap<number, readonly Episode[]>,
  probed: readonly Episode[],
): Map<Episode, { policy: string; text: string }> {
  const halves: Array<Array<{ mentions: Mention[]; target: number }>> = [[], []];
  const halfOf = new Map<Episode, number>();
  for (const peers of byLevel.values())
    peers.forEach((e, i) => {
      halfOf.set(e, i % 2);
      const target = referenceValue(e.reference);
      const mentions = target === null ? null : mentionsOf(e.instance.prompt);
      if (mentions && target !== null) halves[i % 2]?.push({ mentions, target });
    });
  // The second half is fitted only where the first yields a policy (most tasks' answers are no such composition).
  const fitted = (train: Array<{ mentions: Mention[]; target: number }> = []) =>
    train.length >= 4 ? fitRestatement(train) : null;
  const first = fitted(halves[0]);
  const policies = [first, first && first.fit >= MIN_FIT ? fitted(halves[1]) : null];
  const out = new Map<Episode, { policy: string; text: string }>();
  for (const e of probed) {
    const half = halfOf.get(e);
    const policy = half === undefined ? null : policies[1 - half];
    const mentions = policy && policy.fit >= MIN_FIT ? mentionsOf(e.instance.prompt) : null;
    const text = mentions && policy ? restate(mentions, policy) : null;
    if (text && policy) out.set(e, { policy: policyName(policy), text });
  }
  return out;
}
