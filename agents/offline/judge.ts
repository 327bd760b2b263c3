// Design-time judgement for the offline author: the validator's own readers (validators/screen.ts) and a
// constant guess, run in this process on samples of the author's emitted module (its own templates only),
// with a margin so a design that passes here passes the validator's larger, independently seeded samples too.
import { choiceRates, constantCandidates, leakRates, type ScreenSample } from '../../validators/screen.js';
import { withContent } from '../../sandbox/answer.js';

/** Seeds per level sampled for these checks (multiple-choice designs get more: an informed rule's edge is small). */
export const JUDGE_SEEDS = 60;
export const JUDGE_CHOICE_SEEDS = 120;
/** A first screen on fewer seeds drops the clearly exploitable designs cheaply (and checks leaks). */
export const JUDGE_SCREEN_SEEDS = 20;

/**
 * Stricter than the validator's limits (constant 0.2 above chance, leaks 0.5 / 0.8, informed rules 0.03 above 1/K plus
 * noise); the screen only drops the blatant.
 */
const LIMITS = {
  screen: { topShare: 0.35, choiceEdge: 0.2 },
  full: { topShare: 0.12, choiceEdge: 0.05 },
};
const MAX_LEAK = 0.3;
/** Constants tried per half level (as the validator's search). */
const CANDIDATES = 16;
const MAX_LEVEL_LEAK = 0.5;

export interface JudgedSample {
  seed: number;
  level: number;
  prompt: string;
  reference: string;
  /** The module's verify on this instance. */
  score(response: string): number;
}

/**
 * What the best constant of one half of a level (the validator's candidates: its answers, small constants) wins on the
 * other half, scored by verify.
 */
function constantWins(at: JudgedSample[]): number {
  let won = 0;
  for (const h of [0, 1]) {
    const half = at.filter((_, i) => i % 2 === h);
    const candidates = constantCandidates(half, [], CANDIDATES);
    const on = (c: string, s: JudgedSample) => s.score(withContent(s.reference, c));
    const wins = candidates.map((c) => half.reduce((a, s) => a + on(c, s), 0));
    const best = candidates[wins.indexOf(Math.max(...wins))];
    if (best !== undefined) for (const s of at.filter((_, i) => i % 2 !== h)) won += on(best, s);
  }
  return won / Math.max(1, at.length);
}

/** Why the samples would fail the validator's guessing (and, on the screen, leak) judgement; empty when they pass. */
export function judgeSamples(samples: JudgedSample[], pass: keyof typeof LIMITS): string[] {
  const limits = LIMITS[pass];
  const reasons: string[] = [];
  const levels = [...new Set(samples.map((s) => s.level))].sort((a, b) => a - b);
  const screened = samples.map(
    (s): ScreenSample => ({ seed: s.seed, level: s.level, reference: s.reference, instance: { prompt: s.prompt } }),
  );
  for (const level of levels) {
    const at = samples.filter((s) => s.level === level);
    const choice = choiceRates(screened.filter((s) => s.level === level)).find((r) => r.level === null);
    if (choice) {
      if (choice.rate > choice.chance + limits.choiceEdge)
        reasons.push(
          `level ${level}: "${choice.rules[0]}" guesses ${(100 * choice.rate).toFixed(0)}% right (chance ` +
            `${(100 * choice.chance).toFixed(0)}%)`,
        );
      continue;
    }
    const wins = constantWins(at);
    if (wins > limits.topShare)
      reasons.push(`level ${level}: one fixed answer wins ${(100 * wins).toFixed(0)}% of instances`);
  }
  if (pass === 'full') return reasons;
  for (const leak of leakRates(screened)) {
    const over = leak.rate - leak.chance;
    if (leak.level === null && over >= MAX_LEAK)
      reasons.push(`${leak.rules[0]} in ${(100 * leak.rate).toFixed(0)}% of instances`);
    if (leak.level !== null && leak.n >= 20 && over >= MAX_LEVEL_LEAK)
      reasons.push(`at level ${leak.level}, ${leak.rules[0]}`);
  }
  return reasons;
}
