// The validator's report: one typed object per candidate, made of stage reports. It is data: stored by
// the library for admitted and rejected candidates alike, read by the repair prompt and the dashboard.
import type { ProblemCode } from '../contract/codes.js';
import type { Meta } from '../contract/schema.js';
import type { Fingerprint } from './novelty/fingerprint.js';

export const STAGES = [
  'static',
  'execution',
  'determinism',
  'solvability',
  'hack',
  'diversity',
  'difficulty',
  'novelty',
  'review',
] as const;
export type StageName = (typeof STAGES)[number];

export interface Problem {
  code: ProblemCode;
  message: string;
  /** Small, JSON-serialisable facts that show the problem (seed, level, a response, a score…). */
  evidence?: unknown;
}

export interface StageReport {
  stage: StageName;
  ok: boolean;
  /** The stage did not run (an earlier failure, or nothing to run it with, e.g. no LLM for review). */
  skipped?: string;
  metrics: Record<string, unknown>;
  problems: Problem[];
  ms: number;
}

/** Per-level measurements: the difficulty curve the dashboard and solver calibration read. */
export interface LevelStats {
  level: number;
  samples: number;
  promptChars: number;
  instanceChars: number;
  referenceChars: number;
  /** Mean wall time in the isolate, ms (the guest has millisecond resolution; means over many samples). */
  generateMs: number;
  solveMs: number;
  distinctPrompts: number;
  distinctAnswers: number;
  /** Share of instances whose reference is the level's most common reference. */
  topAnswerShare: number;
  /** Mean score of cheap baseline solvers: the level's most common answer, another instance's answer. */
  baselineCommon: number;
  baselineOther: number;
}

export interface ValidationReport {
  verdict: 'admit' | 'reject';
  /** meta.name when meta is readable. */
  name: string | null;
  /** SHA-256 of the source. */
  hash: string;
  meta: Meta | null;
  stages: StageReport[];
  /** Every stage's problems, flattened, in stage order. */
  problems: Array<Problem & { stage: StageName }>;
  curve: LevelStats[];
  /** Code and behaviour fingerprints, when the candidate got as far as the novelty stage. */
  fingerprint: Fingerprint | null;
  validatorVersion: string;
  /** Fixes every seed the validator sampled: `envforge validate --validation-seed N` replays the verdict. */
  validationSeed: number;
  ms: number;
}
