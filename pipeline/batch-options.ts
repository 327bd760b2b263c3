// The options of a nightly batch (one typed object, defaults in one place): target and bounds, the kind
// of environments wanted, trainer feedback, review, calibration, and the author and command line it keeps.
import type { WeakSkill } from '../agents/prompts.js';
import type { RunKind } from '../agents/spec.js';
import type { AuthorIdentity } from '../agents/author.js';
import type { CalibrationOptions } from './calibration.js';

export interface BatchOptions {
  batchId: string;
  /** Admitted environments wanted. */
  target: number;
  /** Specs worked on at most (each is one candidate with its repair rounds). */
  maxCandidates: number;
  /** Repair rounds after the first rejection. */
  repairRounds: number;
  /** Candidates in flight at once (their LLM calls share the client's queue). */
  concurrency: number;
  /** Specs the architect is asked for at a time. */
  specsPerRound: number;
  /**
   * Which kinds of environment the authors write ('mixed': the architect chooses by coverage); absent means 'single'.
   */
  kind?: RunKind;
  /** Trainer feedback: the frontier skills the architect should aim at. */
  weakSkills: WeakSkill[];
  /** Share of the target wanted for environments that train a weak skill (round-robin over them); 0 turns it off. */
  weakShare: number;
  /** Trainer feedback: skills the model has mastered (reported, and the architect is told to leave them). */
  saturatedSkills?: WeakSkill[];
  /** Only these skills, when given (passed to the architect as the whole taxonomy). */
  skills?: string[];
  /** Run the LLM review stage in validation (only when the author has a reviewer). */
  review: boolean;
  /** Solver calibration settings (used when a solver is given). */
  calibration?: Partial<CalibrationOptions>;
  /**
   * Who writes the modules, for the record: stored with the batch's options (so `--resume` can reuse the
   * offline author's seed) and copied into the report. Filled in from the author's identity.
   */
  author?: AuthorIdentity;
  /**
   * With each module's text, fixes its validation seed (validators/seeds.ts); default from the offline seed, else
   * random.
   */
  validationKey?: string;
  /** The caller's own settings (the command line's budgets, solver, feedback file), stored for `--resume`. */
  invocation?: Record<string, unknown>;
}

export const DEFAULT_BATCH_OPTIONS = {
  target: 10,
  maxCandidates: 40,
  repairRounds: 2,
  concurrency: 4,
  specsPerRound: 6,
  weakSkills: [],
  weakShare: 0.6,
  review: true,
} satisfies Omit<BatchOptions, 'batchId'>;
