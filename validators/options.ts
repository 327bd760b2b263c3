// Every threshold of the validator in one typed options object, with its default and why.
import type { SandboxLimits } from '../sandbox/protocol.js';

export interface ValidatorOptions {
  /** Instances sampled per level; at least `minSamples` overall so rare failures (1 in 50) show. */
  seedsPerLevel: number;
  minSamples: number;
  /**
   * Sandbox limits while validating. Empty by default: the validator runs modules under the same limits
   * as the reward service and exports (the pool's), so a module cannot tell validation from use by them.
   */
  limits: Partial<SandboxLimits>;
  /** Instances per level that get the adversarial probe battery. */
  probedPerLevel: number;
  /** Instances re-run for determinism (in fresh isolates, in another order, and over a whole isolate lifetime). */
  determinismSamples: number;
  /** Zero-tolerance probe families (empty, echo, format-only, enumeration, huge) may score at most this. */
  zeroToleranceMaxScore: number;
  /** Rate families (other instance's answer, ±1, most common answer): mean score beyond chance allowed… */
  rateFamilyMeanExcess: number;
  /** …and share of full passes beyond chance allowed. */
  rateFamilyPassExcess: number;
  /** Perturbed references may keep partial credit (half an answer is still right): a looser mean limit. */
  perturbedMeanExcess: number;
  /** A fixed prompt-reading rule (e.g. "the last number in the prompt") may find the answer this often at most. */
  leakMaxRate: number;
  /** At least this share of sampled prompts must be distinct (overall), and half at every level. */
  minDistinctPromptShare: number;
  /** No single answer may cover more than this share of a level's instances. */
  maxTopAnswerShare: number;
  /** A level may shrink by this much on the size measures and still count as monotone. */
  monotoneTolerance: number;
  /** The top level must exceed level 1 by this factor on at least one size or work measure. */
  minTopLevelGrowth: number;
}

export const DEFAULT_VALIDATOR_OPTIONS = {
  seedsPerLevel: 20,
  minSamples: 200,
  limits: {},
  probedPerLevel: 6,
  determinismSamples: 30,
  zeroToleranceMaxScore: 0.1,
  rateFamilyMeanExcess: 0.25,
  rateFamilyPassExcess: 0.1,
  perturbedMeanExcess: 0.6,
  leakMaxRate: 0.5,
  minDistinctPromptShare: 0.8,
  maxTopAnswerShare: 0.5,
  monotoneTolerance: 0.15,
  minTopLevelGrowth: 1.25,
} satisfies ValidatorOptions;
