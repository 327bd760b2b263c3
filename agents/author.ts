// The Author contract: whoever plays architect, generator, repair (and review) for the batch. Two
// implementations sit beside it, the LLM author (llm-author.ts, prompt files over an LlmClient) and the
// offline author (offline/, a typed DSL, no network); tests/author-contract.test.ts runs both. The batch only
// talks to this interface.
import type { ArchitectInput } from './prompts.js';
import type { DroppedSpec, EnvSpec } from './spec.js';
import type { Reviewer } from '../validators/context.js';
import type { ValidationReport } from '../validators/report.js';

/** Who wrote a batch's modules: an LLM provider, or the offline author with its version and seed. */
export interface AuthorIdentity {
  provider: string;
  version?: string;
  seed?: number;
}

/** What every author call reports besides its output: lineage and accounting. */
export interface AgentTrace {
  promptHash: string;
  costUsd: number;
  cached: boolean;
  model: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** The candidate the call works for (per-candidate cost accounting). */
  candidateId?: string;
}

export interface ProposedSpecs extends AgentTrace {
  specs: EnvSpec[];
  /** Specs dropped before any code was written (duplicates of the library or of each other), with why. */
  dropped: DroppedSpec[];
  /** What was dropped from specs that were kept (an episodic part on a single-turn spec), one line each. */
  warnings?: string[];
}

export interface WrittenModule extends AgentTrace {
  /** The module source, or null when the reply held no usable module. */
  source: string | null;
  /** Why there is no module (no code block, several, truncated reply, a spec this author cannot write). */
  problem?: string;
}

export interface Author {
  /**
   * Who this is: the provider ('openai', 'offline', …) and, for the offline author, its version and seed.
   * The batch stores it with its options (a resume reads the seed back), reports it, and puts version and
   * seed in every module's lineage notes.
   */
  readonly identity: AuthorIdentity;
  /** The lineage author of a module this author wrote (e.g. 'openai:gpt-4.1-mini', 'offline'). */
  lineageAuthor(module: { model: string }): string;
  /** The architect: specs aimed at uncovered and weak skills, minus duplicates of the library. */
  propose(input: ArchitectInput, options?: CallOptions): Promise<ProposedSpecs>;
  /** The generator: one module for a spec (attempt 0). A module it cannot write is a `problem`, not a throw. */
  write(spec: EnvSpec, options?: CallOptions): Promise<WrittenModule>;
  /** Repair: a new module after the validator rejected `source` (attempt ≥ 1). */
  repair(
    spec: EnvSpec,
    source: string,
    report: ValidationReport,
    attempt: number,
    options?: CallOptions,
  ): Promise<WrittenModule>;
  /** The validator's review stage, when this author can review (the offline author cannot). */
  reviewer?(options?: CallOptions): Reviewer;
  /** Whether this author can write environments that train a skill; absent means every skill (an LLM). */
  canTrain?(skill: string): boolean;
}
