// The author seam of the batch: whoever plays architect and generator (and repair, and review). An LLM
// author wraps an LlmClient and the prompt files; the offline author (agents/offline/) synthesises
// environments from a typed DSL without a network. The batch only talks to this interface.
import type { LlmClient } from './llm/contract.js';
import type { ArchitectInput } from './prompts.js';
import type { EnvSpec } from './spec.js';
import type { Reviewer } from '../validators/context.js';
import type { ReportAuthor } from '../pipeline/report.js';
import type { ValidationReport } from '../validators/report.js';
import { generateModule, llmReviewer, proposeSpecs, repairModule, type CallOptions, type ProposedSpecs, type WrittenModule } from './llm-author.js';

export interface Author {
  /**
   * Who this is: the provider ('openai', 'offline', …) and, for the offline author, its version and seed.
   * The batch stores it with its options (a resume reads the seed back), reports it, and puts version and
   * seed in every module's lineage notes.
   */
  readonly identity: ReportAuthor;
  /** The lineage author of a module this author wrote (e.g. 'openai:gpt-4.1-mini', 'offline'). */
  lineageAuthor(module: { model: string }): string;
  /** The architect: specs aimed at uncovered and weak skills, minus duplicates of the library. */
  propose(input: ArchitectInput, options?: CallOptions): Promise<ProposedSpecs>;
  /** The generator: one module for a spec (attempt 0). */
  write(spec: EnvSpec, options?: CallOptions): Promise<WrittenModule>;
  /** Repair: a new module after the validator rejected `source` (attempt ≥ 1). */
  repair(spec: EnvSpec, source: string, report: ValidationReport, attempt: number, options?: CallOptions): Promise<WrittenModule>;
  /** The validator's review stage, when this author can review (the offline author cannot). */
  reviewer?(options?: CallOptions): Reviewer;
  /** Whether this author can write environments that train a skill; absent means every skill (an LLM). */
  canTrain?(skill: string): boolean;
}

/** The LLM author: the four prompt-driven agents over one client. */
export function llmAuthor(client: LlmClient): Author {
  return {
    identity: { provider: client.provider },
    lineageAuthor: (module) => `${client.provider}:${module.model}`,
    propose: (input, options) => proposeSpecs(client, input, options),
    write: (spec, options) => generateModule(client, spec, options),
    repair: (_spec, source, report, _attempt, options) => repairModule(client, source, report, options),
    reviewer: (options) => llmReviewer(client, options),
  };
}
