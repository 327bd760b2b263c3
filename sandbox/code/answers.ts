// What crosses between the answer pool and its workers (contract v3): programs with their tests, and per
// test whether it passed. Expected outputs travel as JSON text and are compared in the worker.
import type { Comparator } from '../../contract/compare.js';
import type { AnswerLanguage } from './program.js';

export interface AnswerSpec {
  program: string;
  language: AnswerLanguage;
  /** The function the program must define. */
  entry: string;
  compare: Comparator;
  /** Each test as [arguments as JSON text, expected output as JSON text]. */
  tests: Array<[string, string]>;
  /**
   * Run in an isolate made for this answer alone and disposed after it: the environment's reference program,
   * which never shares an isolate with a policy's program (their Compartments are not the boundary).
   */
  ownIsolate?: boolean;
}

/** A test that did not pass: E_WRONG (an output that does not match), or what went wrong running it. */
export type TestCode =
  | 'E_WRONG'
  | 'E_THROWN'
  | 'E_TIMEOUT'
  | 'E_MEMORY'
  | 'E_NOT_JSON'
  | 'E_TOO_LARGE'
  | 'E_ASYNC'
  | 'E_CRASHED';

export interface AnswerResult {
  /**
   * Whether the program could be run at all; when not, `code` says why (E_SYNTAX, E_IMPORT, E_NO_ENTRY, E_LANGUAGE…).
   */
  ran: boolean;
  code?: string;
  /** Per test, null for a pass or the code of its failure. */
  tests: Array<TestCode | null>;
  /** The first failure, in words (its text may come from the program: data, never markup). */
  message?: string;
  ms: number;
  /** Which isolate ran it: the worker's process id and the isolate's ordinal there (for the tests of ownIsolate). */
  isolate?: string;
  /**
   * It failed E_MEMORY or E_TIMEOUT in an isolate that had run other answers, and this is its re-run alone in a fresh
   * one.
   */
  rerun?: boolean;
}

/**
 * Whether the clock stopped this answer (its load or a test ran past the wall-clock budget, or the pool's watchdog
 * killed its wedged worker: E_CRASHED): a loaded machine can cause it alone.
 */
export const ranOutOfTime = (r: AnswerResult): boolean =>
  r.code === 'E_TIMEOUT' || r.tests.includes('E_TIMEOUT') || r.tests.includes('E_CRASHED');

export interface AnswerLimits {
  /** Wall-clock budget of one test. */
  testTimeoutMs: number;
  /** Heap limit of the answer isolate. */
  memoryMb: number;
  /** Longest output, as JSON text. */
  maxOutputChars: number;
  /**
   * Deepest nesting of an output the host parses and compares (deeper fails E_TOO_LARGE; an expected output nests at
   * most 34 deep).
   */
  maxOutputDepth: number;
  /** After this many tests of one answer time out, its remaining tests fail unrun. */
  maxTimeouts: number;
  /**
   * Answers one isolate runs before it is replaced (each in its own Compartment meanwhile; only one run's answers ever
   * share one).
   */
  answersPerIsolate: number;
  /**
   * Heap an answer may leave in use above the isolate's fresh level before the isolate is retired (garbage not yet
   * collected counts).
   */
  heapSlackMb: number;
}

export const DEFAULT_ANSWER_LIMITS = {
  testTimeoutMs: 1_000,
  memoryMb: 128,
  maxOutputChars: 64 * 1024,
  maxOutputDepth: 64,
  maxTimeouts: 2,
  answersPerIsolate: 500,
  heapSlackMb: 24,
} satisfies AnswerLimits;

/** `tenant` names the pool's run the answers belong to: an isolate never holds two tenants' programs. */
export type AnswerJobMessage = {
  type: 'answers';
  id: number;
  tenant: number;
  answers: AnswerSpec[];
  limits: AnswerLimits;
};
export type AnswerWorkerMessage =
  | { type: 'ready' }
  | { type: 'result'; id: number; index: number; result: AnswerResult }
  | { type: 'done'; id: number };
