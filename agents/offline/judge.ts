// Design-time judgement for the offline author: the validator's own guessing and leak checks, run in this
// process on samples of the author's emitted module (its own templates only), with a margin so a design
// that passes here passes the validator's larger, independently seeded samples too.
import { mostCommon, normalizeAnswer } from '../../validators/answers.js';
import { informedGuessing, type ChoiceCase } from '../../validators/choice-rules.js';
import { detectLeak, type LeakSample } from '../../validators/leak.js';
import { chosenOption, parseChoices } from '../../validators/prompt-lists.js';
import { answerContent } from '../../sandbox/answer.js';

/** Seeds per level sampled for these checks (multiple-choice designs get more: an informed rule's edge is small). */
export const JUDGE_SEEDS = 60;
export const JUDGE_CHOICE_SEEDS = 120;
/** A first screen on fewer seeds drops the clearly exploitable designs cheaply (and checks leaks). */
export const JUDGE_SCREEN_SEEDS = 20;

/** Stricter than the validator's limits (constant 0.2 above chance, leaks 0.5 / 0.8, informed rules 0.03 above 1/K plus noise); the screen only drops the blatant. */
const LIMITS = {
  screen: { topShare: 0.35, choiceEdge: 0.2 },
  full: { topShare: 0.12, choiceEdge: 0.05 },
};
const MAX_LEAK = 0.3;
const MAX_LEVEL_LEAK = 0.5;

export interface JudgedSample {
  seed: number;
  level: number;
  prompt: string;
  reference: string;
  /** The module's verify on this instance. */
  score(response: string): number;
}

/** What the most common answer of one half of a level wins on the other half, scored by verify (as the validator does). */
function constantWins(at: JudgedSample[]): number {
  let won = 0;
  for (const h of [0, 1]) {
    const half = at.filter((_, i) => i % 2 === h);
    const top = mostCommon(half.map((s) => normalizeAnswer(answerContent(s.reference)))).value;
    const constant = half.find((s) => normalizeAnswer(answerContent(s.reference)) === top)?.reference;
    if (constant !== undefined) for (const s of at.filter((_, i) => i % 2 !== h)) won += s.score(constant);
  }
  return won / Math.max(1, at.length);
}

/** Why the samples would fail the validator's guessing (and, on the screen, leak) judgement; empty when they pass. */
export function judgeSamples(samples: JudgedSample[], pass: keyof typeof LIMITS): string[] {
  const limits = LIMITS[pass];
  const reasons: string[] = [];
  const levels = [...new Set(samples.map((s) => s.level))].sort((a, b) => a - b);
  for (const level of levels) {
    const at = samples.filter((s) => s.level === level);
    const cases: ChoiceCase[] = at.flatMap((s) => {
      const choices = parseChoices(s.prompt);
      const truth = choices ? chosenOption(s.reference, choices) : -1;
      return choices && truth >= 0 ? [{ choices, truth }] : [];
    });
    if (cases.length >= 0.8 * at.length) {
      const guess = informedGuessing(cases);
      const wins = guess.outcomes.reduce((a, b) => a + b, 0) / guess.outcomes.length;
      if (wins > guess.nominal + limits.choiceEdge) reasons.push(`level ${level}: "${guess.rules[0]}" guesses ${(100 * wins).toFixed(0)}% right (chance ${(100 * guess.nominal).toFixed(0)}%)`);
      continue;
    }
    const wins = constantWins(at);
    if (wins > limits.topShare) reasons.push(`level ${level}: one fixed answer wins ${(100 * wins).toFixed(0)}% of instances`);
  }
  if (pass === 'full') return reasons;
  const leak = detectLeak(
    samples.map((s): LeakSample => ({ seed: s.seed, level: s.level, reference: s.reference, instance: { prompt: s.prompt } })),
    MAX_LEAK,
    20,
  );
  if (leak.overall && leak.overall.rate - leak.overall.chance >= MAX_LEAK) reasons.push(`${leak.overall.rule} in ${(100 * leak.overall.rate).toFixed(0)}% of instances`);
  if (leak.level && leak.level.rate - leak.level.chance >= MAX_LEVEL_LEAK) reasons.push(`at level ${leak.level.level}, ${leak.level.rule}`);
  return reasons;
}
