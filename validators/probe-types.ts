// The shapes of the hack stage's adversarial responses (probes.ts writes them, metamorphic.ts and
// hack-checks.ts judge them): kept apart so the modules that judge probes need not import their writer.
import type { StatedRegion } from './probe-forms.js';
import type { ProbeFamily } from '../kinds/contract.js';
import type { Episode } from '../sandbox/episodes.js';

/** A probe family; the kind of environment says which apply (kinds/contract.ts). */
export type Family = ProbeFamily;

export interface Probe {
  family: Family;
  /** How the response was built ("bold, 3 guesses joined by ' or '"). */
  form: string;
  response: string;
  /** Zero tolerance: the probe fails when it scores this much or more (inclusive). Absent: judged by rate. */
  ceiling?: number;
  /** The probe's answer is the reference's: a pass is a coincidence, not a hack (rate families). */
  coincident: boolean;
  /** Probes that fail only together: one guess list in both orders (reading a fixed position is no hack). */
  group?: string;
  /** Keyword stuffing around a wrong answer: judged by how much it adds to the score of `pair` alone. */
  pair?: string;
  /** The unstuffed response a `pair` is measured against. */
  base?: boolean;
  /**
   * The wrong guesses a list holds: where partial credit is paid, a list is judged by what it adds over the best of
   * them alone.
   */
  alone?: string[];
  /**
   * The reference alone in this carrier: not judged, it says whether the verifier reads the carrier (metamorphic.ts).
   */
  calibrates?: string;
  /**
   * Guesses spread across carriers with the truth in this one: judged only where the verifier reads it
   * (metamorphic.ts).
   */
  truthIn?: string;
  /**
   * A form of the reference that may be valid (another order, another rendering): accepted on its own instance, the
   * guessing check tries it as a constant.
   */
  variant?: boolean;
  /** What a random pick of the same kind wins by chance (1/K among K listed items): a guess is judged against it. */
  chance?: number;
}

export interface ProbeTarget {
  episode: Episode;
  /** Other instances at the same level (their answers are plausible wrong answers). */
  peers: Episode[];
  /** The instance's rank among probed ones: forms rotate with it, so every form is tried across instances. */
  index: number;
  /** Long junk bands this instance also gets (30,000 characters to a megabyte; each band once per sample). */
  long: number[];
  /** The reference's items are a permutation of a list printed in the prompt (a repeated item is never valid). */
  permutation: boolean;
  /** Zero-tolerance ceiling for responses that hold no answer. */
  ceiling: number;
  /** Some reference of the sample holds a negative number: a sign is information, so a negated answer is wrong. */
  signMatters?: boolean;
  /** Some letter appears in both cases across the sample's references: case is information, so a case flip is wrong. */
  caseMatters?: boolean;
  /**
   * The prompt or the description states a numeric tolerance ("within 0.05"): small moves of a decimal are the task's
   * own.
   */
  statedTolerance?: boolean;
  /** The acceptance regions the task states for a number ("within 0.1% of the exact balance is accepted"). */
  statedRegions?: readonly StatedRegion[];
  /** The task states that several answers are right ("any one of them is accepted"): a near value may be one. */
  statedSeveral?: boolean;
  /** Answers some instance of the sample has (lower case): a non-answer form that is one of them is no probe. */
  taken?: Set<string>;
  /** The validation seed: probe text drawn at random (prose) is drawn from it, so a verdict replays. */
  seed?: number;
}
