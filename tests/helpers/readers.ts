// Test helpers for the learned readers (validators/readers.ts): a family's pooled judgement as one figure,
// and multiple-choice samples written from option texts.
import type { Choices } from '../../validators/prompt-lists.js';
import { judgeReaders, type ReaderFamily, type ReaderSample } from '../../validators/readers.js';

/**
 * A family judged over every sample pooled: its rate and chance, and the rule fitted on the first half; null where the
 * family does not apply.
 */
export function pooled(
  samples: readonly ReaderSample[],
  family: ReaderFamily,
): { rule: string; rate: number; chance: number } | null {
  const judged = judgeReaders(samples, [family])[0];
  if (!judged) return null;
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
  return {
    rule: judged.rules.get(null)?.[0] ?? 'none',
    rate: mean(judged.pooled.map((t) => t.win)),
    chance: mean(judged.pooled.map((t) => t.chance)),
  };
}

/** A multiple-choice prompt (the body, then one option a line) and its reference naming the right option. */
export function choiceSample(choices: Choices, truth: number, seed: number, level = 1): ReaderSample {
  const prompt =
    `${choices.body}\n${choices.labels.map((l, i) => `${l}) ${choices.texts[i]}`).join('\n')}` +
    `\nAnswer with the letter.`;
  return { seed, level, reference: `<answer>${choices.labels[truth]}</answer>`, instance: { prompt } };
}
