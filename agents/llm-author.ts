// The LLM author: four prompt-driven agents over one LlmClient. The architect proposes specs, the
// generator writes a module for a spec, repair fixes a module from the validator's report, and the
// reviewer answers the validation checklist; each works in the spec's or candidate's kind (single-turn, or
// episodic: contract v2 templates, examples and checklist) and under one prompt profile (standard, or
// compact for small open models). Each renders its prompt file, sends it with its stable prefixes marked
// for the provider's prompt cache, calls the client with its purpose (for cost accounting), and returns
// typed output with the prompt's hash (for lineage). A module the model failed to write is data (a
// `problem`), not an exception; failures of the LLM service itself are LlmErrors for the batch.
import type { Meta } from '../contract/schema.js';
import type { LlmClient, LlmResponseMeta } from './llm/contract.js';
import { extractModule } from './module-text.js';
import {
  isEpisodicMeta,
  PromptError,
  renderArchitect,
  renderGenerator,
  renderRepair,
  renderReviewer,
  architectBudget,
  type ArchitectInput,
  type PromptProfile,
  type RenderedPrompt,
  type ReviewSample,
} from './prompts.js';
import { architectLeftovers, architectOutputSchema, toEnvSpec } from './architect-schema.js';
import {
  EPISODIC_REVIEW_CHECKS,
  EpisodicReviewSchema,
  failedChecks,
  REVIEW_CHECKS,
  ReviewSchema,
  specKind,
  type EnvSpec,
} from './spec.js';
import { dedupeSpecs } from './spec-dedupe.js';
import type { KindName } from '../kinds/registry.js';
import type { AgentTrace, Author, CallOptions, ProposedSpecs, WrittenModule } from './author.js';
import type { Reviewer } from '../validators/context.js';
import type { ValidationReport } from '../validators/report.js';

export interface LlmAuthorOptions {
  /** Which prompt templates the agents use; standard by default. */
  profile?: PromptProfile;
}

/** The LLM author: the four prompt-driven agents over one client. */
export function llmAuthor(client: LlmClient, options: LlmAuthorOptions = {}): Author {
  const profile = options.profile ?? 'standard';
  return {
    identity: { provider: client.provider, ...(profile === 'standard' ? {} : { version: `prompts-${profile}` }) },
    lineageAuthor: (module) => `${client.provider}:${module.model}`,
    propose: (input, call) => proposeSpecs(client, input, call, profile),
    write: (spec, call) => generateModule(client, spec, call, profile),
    repair: (spec, source, report, _attempt, call) =>
      repairModule(client, source, report, call, specKind(spec), profile),
    reviewer: (call) => llmReviewer(client, call, profile),
  };
}

/**
 * Output budget of a generated module: seeds are 3–15 kB, so this leaves room without inviting essays; the compact
 * profile's fits a 16k context with its prompt.
 */
const MODULE_MAX_TOKENS: Record<PromptProfile, number> = { standard: 12_000, compact: 8_192 };

function trace(hash: string, meta: LlmResponseMeta): AgentTrace {
  return { promptHash: hash, costUsd: meta.costUsd, cached: meta.cached, model: meta.model };
}

/** One user message: the prompt, its stable prefixes marked for the provider's prompt cache. */
const request = (prompt: RenderedPrompt, options: CallOptions) => ({
  messages: [
    {
      role: 'user' as const,
      content: prompt.text,
      ...(prompt.cacheBreaks.length > 0 ? { cacheBreaks: prompt.cacheBreaks } : {}),
    },
  ],
  ...(options.signal ? { signal: options.signal } : {}),
  ...(options.candidateId ? { candidateId: options.candidateId } : {}),
});

/**
 * The architect: specs aimed at uncovered and weak skills, minus those that duplicate the library. It asks
 * for as many as its output cap holds for the kind mix (the batch asks again for the rest), with a schema
 * that carries only the batch's kinds; a part of another kind in the reply is dropped with a warning.
 */
export async function proposeSpecs(
  client: LlmClient,
  input: ArchitectInput,
  options: CallOptions = {},
  profile: PromptProfile = 'standard',
): Promise<ProposedSpecs> {
  const kind = input.kind ?? 'single';
  const prompt = renderArchitect(input, { profile });
  const { maxTokens } = architectBudget(input, profile);
  const response = await client.structured({
    ...request(prompt, options),
    schema: architectOutputSchema(kind),
    schemaName: 'architect_specs',
    purpose: 'architect',
    maxTokens,
  });
  const existing = input.environments ?? [];
  const { kept, dropped } = dedupeSpecs(
    response.value.specs.map((spec) => toEnvSpec(spec, kind)),
    existing.map((e) => e.name),
    existing.flatMap((e) => e.skills),
  );
  // Specs of a kind the batch did not ask for were left out of the list before any code is written.
  const leftovers = architectLeftovers(response.raw, kind);
  return {
    specs: kept,
    dropped: [...leftovers.dropped, ...dropped],
    ...(leftovers.warnings.length > 0 ? { warnings: leftovers.warnings } : {}),
    ...trace(prompt.hash, response),
  };
}

async function writeModule(
  client: LlmClient,
  prompt: RenderedPrompt,
  purpose: 'generator' | 'repair',
  options: CallOptions,
  profile: PromptProfile,
): Promise<WrittenModule> {
  const maxTokens = MODULE_MAX_TOKENS[profile];
  const response = await client.complete({ ...request(prompt, options), maxTokens, purpose });
  const base = trace(prompt.hash, response);
  if (response.finishReason === 'length')
    return {
      ...base,
      source: null,
      problem: `the reply was cut off at the output limit (${maxTokens} tokens) before the module ended`,
    };
  try {
    return { ...base, source: extractModule(response.text) };
  } catch (error) {
    if (error instanceof PromptError) return { ...base, source: null, problem: error.message };
    throw error;
  }
}

/** The generator: one environment module for a spec, with example environments of its kind and family. */
export function generateModule(
  client: LlmClient,
  spec: EnvSpec,
  options: CallOptions = {},
  profile: PromptProfile = 'standard',
): Promise<WrittenModule> {
  return writeModule(client, renderGenerator({ spec }, { profile }), 'generator', options, profile);
}

/** Repair: a fixed module from the old one and the validator's problems, for a module of the spec's kind. */
export function repairModule(
  client: LlmClient,
  source: string,
  report: ValidationReport,
  options: CallOptions = {},
  kind: KindName = 'single',
  profile: PromptProfile = 'standard',
): Promise<WrittenModule> {
  return writeModule(client, renderRepair({ source, report, kind }, { profile }), 'repair', options, profile);
}

/**
 * The validator's review stage backed by an LLM: failed checklist items become E_REVIEW problems. An episodic
 * candidate (its meta says so) gets the contract v2 checklist, with the observations of its samples; a
 * single-turn one the v1 checklist.
 */
export function llmReviewer(
  client: LlmClient,
  options: CallOptions = {},
  profile: PromptProfile = 'standard',
): Reviewer {
  return {
    async review(input: { source: string; meta: Meta; samples: ReviewSample[] }) {
      const prompt = renderReviewer(input, { profile });
      const checklist = isEpisodicMeta(input.meta)
        ? { schema: EpisodicReviewSchema, schemaName: 'episodic_review_checklist', checks: EPISODIC_REVIEW_CHECKS }
        : { schema: ReviewSchema, schemaName: 'review_checklist', checks: REVIEW_CHECKS };
      const response = await client.structured<{ checks: Record<string, { ok: boolean; note: string }> }>({
        ...request(prompt, options),
        schema: checklist.schema,
        schemaName: checklist.schemaName,
        purpose: 'reviewer',
      });
      const checks = response.value.checks;
      const failed = failedChecks(response.value, checklist.checks as readonly string[]);
      return {
        ok: failed.length === 0,
        metrics: { checks, promptHash: prompt.hash, costUsd: response.costUsd },
        problems: failed.map((check) => ({
          code: 'E_REVIEW' as const,
          message: `review check "${check}" failed: ${checks[check]?.note ?? ''}`,
          evidence: { check },
        })),
      };
    },
  };
}
