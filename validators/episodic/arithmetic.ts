// The values a reference sends that the prompt's numbers give by simple arithmetic (a locker code that is the
// case number plus the room number), as samples of the single-turn arithmetic reader (leak-derived.ts): one
// reader mechanism for both kinds, fitted and judged the same way, with no "four numbers" allowance.
import type { Rollout } from '../../sandbox/rollouts.js';
import { arithmeticReader, promptNumbers } from '../leak-derived.js';
import type { ReaderSample } from '../readers.js';
import { actionsOf } from './adversaries.js';
import { tokensOf } from './probes.js';

/** The arithmetic reader of episodic prompts: two-number relations count in a prompt of two numbers. */
export const EPISODIC_ARITHMETIC = arithmeticReader(2);

/**
 * Words and signs by which a sentence asks for arithmetic of its numbers ("3400 - 1200": a minus with spaces, not an
 * id's hyphen).
 */
const ARITHMETIC_WORDS = new RegExp(
  String.raw`\b(sum|total|add(s|ed|ing)?|plus|minus|subtract\w*|difference|product|multipl\w*|times|divide\w*|` +
    String.raw`quotient|average|mean|combined|altogether|remainder|increase\w*|decrease\w*|double|triple|half)\b|` +
    String.raw`\d\s*[+\u2212×÷*/=]\s*\d|\d\s+-\s+\d`,
  'i',
);

/**
 * Whether the prompt asks for arithmetic of its own numbers: one sentence holds an arithmetic word or sign and two
 * numbers or more. Then computing the value is the task being done; a word elsewhere ("Total memos: 5") is not.
 */
export function asksArithmetic(prompt: string): boolean {
  return prompt
    .split(/(?<=[.!?])\s+|\n+/)
    .some((sentence) => ARITHMETIC_WORDS.test(sentence) && promptNumbers(sentence, 2).length >= 2);
}

/**
 * Per argument, the numeric values the reference sends (one an episode, three digits or more) that the
 * prompt neither spells out as a token nor prints as a number, each with its episode's prompt: the arithmetic
 * reader's samples, the value as the reference answer. A prompt that asks for arithmetic ("pay the sum of
 * invoices 120 and 340") gives none: computing the value is then the task being done.
 */
export function arithmeticSamples(refs: readonly Rollout[]): Map<string, ReaderSample[]> {
  const out = new Map<string, ReaderSample[]>();
  for (const r of refs) {
    const prompt = (r.prompt ?? '').slice(0, 20_000);
    if (asksArithmetic(prompt)) continue;
    const spelled = new Set(tokensOf(prompt).map((t) => t.toLowerCase()));
    const numbers = new Set(promptNumbers(prompt, 200));
    const done = new Set<string>();
    for (const a of actionsOf(r)) {
      for (const [arg, v] of Object.entries(a.args)) {
        const value = typeof v === 'number' || typeof v === 'string' ? String(v).trim() : '';
        const slot = `${a.tool}.${arg}`;
        if (
          done.has(slot) ||
          !/^[+-]?\d{3,15}(\.\d+)?$/.test(value) ||
          spelled.has(value.toLowerCase()) ||
          numbers.has(Number(value))
        )
          continue;
        done.add(slot);
        out.set(slot, [
          ...(out.get(slot) ?? []),
          { seed: r.seed, level: r.level, reference: value, instance: { prompt } },
        ]);
      }
    }
  }
  return out;
}
