// Value moves that cover every place of an answer's form: an integer moved at each digit place over the sample
// (t ± 10^k, the place rotating with the instance) or rounded to fewer figures, each inner number of a composite
// answer moved on its own, and where the task states that several answers are accepted, the moves that may be
// right answers by its terms.
import type { Episode } from '../sandbox/episodes.js';
import { answerContent } from '../sandbox/answer.js';

/** The forms of the moves that cover an answer's places (checks/perturbed.ts judges each on its own too). */
export const PLACE_MOVE = 'a number moved at one of its higher places';
export const ROUNDED_MOVE = 'an integer rounded to fewer significant figures';
export const INNER_MOVE = 'an inner number ±1';
export const COVERING_MOVES: readonly string[] = [INNER_MOVE, PLACE_MOVE, ROUNDED_MOVE];

/** Places a double still tells apart: a move below them is the host's rounding, which an honest verifier may do. */
const DOUBLE_BITS = 50;

/**
 * An integer answer moved by 10^k at two places k ≥ 1 (k = 0 is the ±1 move), the places rotating with the instance
 * so the sample covers the numeral's whole length: a verifier that reads only some digits pays the others moved.
 */
export function placeMoves(content: string, index: number): Array<[string, string]> {
  const t = content.trim();
  if (!/^[+-]?\d{2,400}$/.test(t)) return [];
  const value = BigInt(t);
  const length = t.replace(/^[+-]/, '').replace(/^0+/, '').length;
  const ulps = Math.max(0, Math.ceil(Math.log10(Math.abs(Number(value)) * 2 ** -DOUBLE_BITS)));
  const places = Array.from({ length: Math.max(0, length - 1) }, (_, i) => i + 1).filter((k) => k >= ulps);
  if (places.length === 0) return [];
  const chosen = [...new Set([places[(2 * index) % places.length], places[(2 * index + 1) % places.length]])];
  return chosen.map((k, j): [string, string] => {
    const step = 10n ** BigInt(k as number);
    return [PLACE_MOVE, String(j % 2 === 0 ? value + step : value - step)];
  });
}

/**
 * An integer answer rounded to one and two significant figures, where that moves it by two units or more: a plain
 * value at the reference's precision, so a value move judged by rate (no notation control tells it apart).
 */
export function roundedMoves(content: string): Array<[string, string]> {
  const t = content.trim();
  if (!/^[+-]?\d{2,15}$/.test(t)) return [];
  const value = Number(t);
  const out = new Set<string>();
  for (const s of [1, 2]) {
    const scale = 10 ** Math.max(0, Math.floor(Math.log10(Math.abs(value) || 1)) - s + 1);
    const rounded = Math.round(value / scale) * scale;
    if (Math.abs(rounded - value) >= 2) out.add(String(rounded));
  }
  return [...out].map((v): [string, string] => [ROUNDED_MOVE, v]);
}

/** Plain numerals of a text, with where they stand (an integer or a decimal, signed). */
function numerals(content: string): RegExpExecArray[] {
  return [...content.matchAll(/-?\d+(?:\.\d+)?/g)].filter((m) => m[0].length <= 400);
}

/**
 * A composite answer's inner numbers (neither the first nor the last, which the ±1 moves edit) moved by one on
 * their own, one per instance, rotating: a decimal by one in its integer part (its last place may be a tolerance).
 */
export function innerMoves(content: string, index: number): Array<[string, string]> {
  const all = numerals(content);
  const inner = all.slice(1, -1);
  const m = inner[index % Math.max(1, inner.length)];
  if (m === undefined || m.index === undefined) return [];
  const [whole, fraction] = m[0].split('.') as [string, string | undefined];
  return [1n, -1n].map((d): [string, string] => {
    const moved = String(BigInt(whole) + d);
    const sign = whole.startsWith('-') && moved === '0' ? '-' : '';
    const text = fraction === undefined ? moved : `${sign}${moved}.${fraction}`;
    return [INNER_MOVE, content.slice(0, m.index) + text + content.slice((m.index as number) + m[0].length)];
  });
}

/** Words that say several answers are right, read in a sentence about acceptance. */
const SEVERAL = new RegExp(
  [
    'any (?:one )?of (?:them|these|those)',
    'any (?:optimal|valid|correct|such|equally good)',
    'either (?:one|answer|of them)',
    String.raw`several (?:\w+ )?(?:answers|solutions|positions|values|optima)`,
    'more than one (?:answer|solution)',
  ]
    .map((w) => String.raw`\b${w}\b`)
    .join('|'),
  'i',
);

/**
 * Whether a task's text states, in a sentence about acceptance, that several answers are right ("any one of them
 * is accepted", "any optimal position scores 1", "either answer counts").
 */
export function statesSeveralAnswers(text: string): boolean {
  return text
    .slice(0, 20_000)
    .split(/(?<=[.!?;])\s+|\n/)
    .some(
      (s) => /\b(accept(?:ed|s|able)?|correct|counts?|scores?|valid|graded|marked right)\b/i.test(s) && SEVERAL.test(s),
    );
}

/**
 * Whether a value lies within the span of the level's references: where the task states that several answers are
 * right, such a move may be one of them, and the verifier that pays it is no evidence of a tolerance; a value beyond
 * every reference is.
 */
export function withinReferences(value: string, peers: readonly Episode[]): boolean {
  const v = Number(value.trim());
  const refs = peers.map((p) => Number(answerContent(p.reference).trim())).filter(Number.isFinite);
  return Number.isFinite(v) && refs.length > 0 && v >= Math.min(...refs) && v <= Math.max(...refs);
}
