// What the offline author designs: a task family, a typed program (steps, a finishing step, the
// alternatives multiple-choice families offer) and per-level knobs, plus the identity its module carries.
import type { Step, Ty } from './dsl.js';

/**
 * The task families: trace a program's output, pick the input behind an output, find the missing step, plant an input.
 */
export const FAMILIES = ['trace', 'pick-input', 'missing-step', 'planted'] as const;
export type Family = (typeof FAMILIES)[number];

export interface LevelKnobs {
  /** Program steps shown at this level (the finishing step comes on top). */
  steps: number;
  /** Input size: list length, word length, number of moves, or the largest integer input. */
  size: number;
  /** Largest list value (list inputs). */
  hi: number;
  /** Answer options (pick-input, missing-step). */
  options: number;
  /** Worked examples (missing-step). */
  examples: number;
}

export interface Design {
  family: Family;
  /** Input type of the program. */
  domain: Ty;
  /** The program's steps: the first `core` are at every level, the rest join level by level. */
  steps: Step[];
  core: number;
  finish: Step;
  /** Same-typed replacements offered as wrong options for a hidden step (missing-step). */
  alternatives: Step[];
  levels: LevelKnobs[];
  /** Letters of word inputs. */
  alphabet: string;
}

export interface EmitIdentity {
  name: string;
  title: string;
  description: string;
  skills: string[];
  /** One comment line on where the module comes from. */
  provenance: string;
}
