// The validator's screening API, for an author that checks its own designs before it writes them (the
// offline author): answers read as the validator reads them, its learned readers measured on a sample, and
// its novelty fingerprints, behind one small surface, so an author never reaches into the validator's
// internals and screens with the very mechanisms the validator judges with.
import { OPTIONS } from './choice-rules.js';
import { ENCODINGS } from './leak.js';
import { judgeReaders, type ReaderSample } from './readers.js';
import type { Trial } from './checks/rules.js';

export { mostCommon, normalizeAnswer, perturbNumbers } from './answers.js';
export { constantCandidates } from './constants.js';
export { fingerprint, type Fingerprint } from './novelty/fingerprint.js';
export { DEFAULT_NOVELTY_OPTIONS, estimateSimilarity } from './novelty/minhash.js';

/** An instance as an author samples it: its prompt and its reference response. */
export type ScreenSample = ReaderSample;

/**
 * What a learned reader wins on a sample, per level (null: every level pooled), as measured: an author screens with its
 * own margins.
 */
export interface ReaderRate {
  level: number | null;
  n: number;
  rate: number;
  chance: number;
  /** The rules fitted on each half. */
  rules: string[];
}

const mean = (v: number[]) => (v.length === 0 ? 0 : v.reduce((a, b) => a + b, 0) / v.length);

function rates(judged: ReturnType<typeof judgeReaders>): ReaderRate[] {
  const out: ReaderRate[] = [];
  for (const j of judged) {
    const byLevel = new Map<number, Trial[]>();
    for (const t of j.level) byLevel.set(t.level, [...(byLevel.get(t.level) ?? []), t]);
    for (const [level, trials] of byLevel)
      out.push({
        level,
        n: trials.length,
        rate: mean(trials.map((t) => t.win)),
        chance: mean(trials.map((t) => t.chance)),
        rules: j.rules.get(level) ?? [],
      });
    out.push({
      level: null,
      n: j.pooled.length,
      rate: mean(j.pooled.map((t) => t.win)),
      chance: mean(j.pooled.map((t) => t.chance)),
      rules: j.rules.get(null) ?? [],
    });
  }
  return out;
}

/**
 * How well the answer can be read off the prompt in some encoding at a fixed place (the validator's encodings reader).
 */
export const leakRates = (samples: readonly ScreenSample[]): ReaderRate[] => rates(judgeReaders(samples, [ENCODINGS]));

/**
 * How well a multiple-choice rule (a position, a feature of the options) finds the right option; empty where the
 * prompts are not multiple choice.
 */
export const choiceRates = (samples: readonly ScreenSample[]): ReaderRate[] => rates(judgeReaders(samples, [OPTIONS]));
