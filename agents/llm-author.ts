// The LLM author: four prompt-driven agents over one LlmClient. The architect proposes specs, the
// generator writes a module for a spec, repair fixes a module from the validator's report, and the
// reviewer answers the validation checklist; each works in the spec's or candidate's kind (single-turn, or
// episodic: contract v2 templates, examples and checklist). Each renders its prompt file, calls the client with its
// purpose (for cost accounting), and returns typed output with the prompt's hash (for lineage). A module
// the model failed to write is data (a `problem`), not an exception; failures of the LLM service itself
// are LlmErrors for the batch.
import type { Meta } from '../contract/schema.js';
import type { LlmClient, LlmResponseMeta } from './llm/contract.js';
import { extractModule } from './module-text.js';
import { isEpisodicMeta, PromptError, renderArchitect, renderGenerator, renderRepair, renderReviewer, type ArchitectInput } from './prompts.js';
import {
  ArchitectOutputSchema, dedupeSpecs, EPISODIC_REVIEW_CHECKS, EpisodicReviewSchema, failedChecks, REVIEW_CHECKS, ReviewSchema, specKind, toEnvSpec,
  type DroppedSpec, type EnvKind, type EnvSpec,
} from './spec.js';
import type { AgentTrace, Author, CallOptions, ProposedSpecs, WrittenModule } from './author.js';
import type { Reviewer } from '../validators/context.js';
import type { ValidationReport } from '../validators/report.js';

/** The LLM author: the four prompt-driven agents over one client. */
export function llmAuthor(client: LlmClient): Author {
  return {
    identity: { provider: client.provider },
    lineageAuthor: (module) => `${client.provider}:${module.model}`,
    propose: (input, options) => proposeSpecs(client, input, options),
    write: (spec, options) => generateModule(client, spec, options),
    repair: (spec, source, report, _attempt, options) => repairModule(client, source, report, options, specKind(spec)),
    reviewer: (options) => llmReviewer(client, options),
  };
}

/** Output budget of a generated module: seeds are 3–10 kB, so this leaves room without inviting essays. */
const MODULE_MAX_TOKENS = 12_000;

function trace(hash: string, meta: LlmResponseMeta): AgentTrace {
  return { promptHash: hash, costUsd: meta.costUsd, cached: meta.cached, model: meta.model };
}

const request = (text: string, options: CallOptions) => ({
  messages: [{ role: 'user' as const, content: text }],
  ...(options.signal ? { signal: options.signal } : {}),
  ...(options.candidateId ? { candidateId: options.candidateId } : {}),
});

/** The architect: N specs aimed at uncovered and weak skills, minus those that duplicate the library. */
export async function proposeSpecs(client: LlmClient, input: ArchitectInput, options: CallOptions = {}): Promise<ProposedSpecs> {
  const prompt = renderArchitect(input);
  const response = await client.structured({ ...request(prompt.text, options), schema: ArchitectOutputSchema, schemaName: 'architect_specs', purpose: 'architect' });
  const existing = input.environments ?? [];
  const { wanted, unwanted } = byRequestedKind(response.value.specs.map(toEnvSpec), input.kind ?? 'single');
  const { kept, dropped } = dedupeSpecs(wanted, existing.map((e) => e.name), existing.flatMap((e) => e.skills));
  return { specs: kept, dropped: [...unwanted, ...dropped], ...trace(prompt.hash, response) };
}

/** Specs of a kind the batch did not ask for are dropped before any code is written ('mixed' takes both). */
function byRequestedKind(specs: EnvSpec[], kind: NonNullable<ArchitectInput['kind']>): { wanted: EnvSpec[]; unwanted: DroppedSpec[] } {
  if (kind === 'mixed') return { wanted: specs, unwanted: [] };
  const wanted = specs.filter((s) => specKind(s) === kind);
  const unwanted = specs.filter((s) => specKind(s) !== kind).map((spec) => ({ spec, reason: `kind ${specKind(spec)}, but the batch asked for ${kind} environments` }));
  return { wanted, unwanted };
}

async function writeModule(client: LlmClient, prompt: { text: string; hash: string }, purpose: 'generator' | 'repair', options: CallOptions): Promise<WrittenModule> {
  const response = await client.complete({ ...request(prompt.text, options), maxTokens: MODULE_MAX_TOKENS, purpose });
  const base = trace(prompt.hash, response);
  if (response.finishReason === 'length') return { ...base, source: null, problem: `the reply was cut off at the output limit (${MODULE_MAX_TOKENS} tokens) before the module ended` };
  try {
    return { ...base, source: extractModule(response.text) };
  } catch (error) {
    if (error instanceof PromptError) return { ...base, source: null, problem: error.message };
    throw error;
  }
}

/** The generator: one environment module for a spec, with seed environments as examples. */
export function generateModule(client: LlmClient, spec: EnvSpec, options: CallOptions = {}): Promise<WrittenModule> {
  return writeModule(client, renderGenerator({ spec }), 'generator', options);
}

/** Repair: a fixed module from the old one and the validator's problems, for a module of the spec's kind. */
export function repairModule(client: LlmClient, source: string, report: ValidationReport, options: CallOptions = {}, kind: EnvKind = 'single'): Promise<WrittenModule> {
  return writeModule(client, renderRepair({ source, report, kind }), 'repair', options);
}

/**
 * The validator's review stage backed by an LLM: failed checklist items become E_REVIEW problems. An episodic
 * candidate (its meta says so) gets the contract v2 checklist; a single-turn one the v1 checklist.
 */
export function llmReviewer(client: LlmClient, options: CallOptions = {}): Reviewer {
  return {
    async review(input: { source: string; meta: Meta; samples: Array<{ seed: number; level: number; prompt: string; reference: string }> }) {
      const prompt = renderReviewer(input);
      const checklist = isEpisodicMeta(input.meta)
        ? { schema: EpisodicReviewSchema, schemaName: 'episodic_review_checklist', checks: EPISODIC_REVIEW_CHECKS }
        : { schema: ReviewSchema, schemaName: 'review_checklist', checks: REVIEW_CHECKS };
      const response = await client.structured<{ checks: Record<string, { ok: boolean; note: string }> }>({ ...request(prompt.text, options), schema: checklist.schema, schemaName: checklist.schemaName, purpose: 'reviewer' });
      const checks = response.value.checks;
      const failed = failedChecks(response.value, checklist.checks as readonly string[]);
      return {
        ok: failed.length === 0,
        metrics: { checks, promptHash: prompt.hash, costUsd: response.costUsd },
        problems: failed.map((check) => ({ code: 'E_REVIEW' as const, message: `review check "${check}" failed: ${checks[check]?.note ?? ''}`, evidence: { check } })),
      };
    },
  };
}
