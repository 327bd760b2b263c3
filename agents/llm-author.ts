// The LLM author: four prompt-driven agents over one LlmClient. The architect proposes specs, the
// generator writes a module for a spec, repair fixes a module from the validator's report, and the
// reviewer answers the validation checklist. Each renders its prompt file, calls the client with its
// purpose (for cost accounting), and returns typed output with the prompt's hash (for lineage). A module
// the model failed to write is data (a `problem`), not an exception; failures of the LLM service itself
// are LlmErrors for the batch.
import type { Meta } from '../contract/schema.js';
import type { LlmClient, LlmResponseMeta } from './llm/contract.js';
import { extractModule } from './module-text.js';
import { PromptError, renderArchitect, renderGenerator, renderRepair, renderReviewer, type ArchitectInput } from './prompts.js';
import { ArchitectOutputSchema, dedupeSpecs, failedChecks, ReviewSchema, type EnvSpec } from './spec.js';
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
    repair: (_spec, source, report, _attempt, options) => repairModule(client, source, report, options),
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
  const { kept, dropped } = dedupeSpecs(response.value.specs, existing.map((e) => e.name), existing.flatMap((e) => e.skills));
  return { specs: kept, dropped, ...trace(prompt.hash, response) };
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

/** Repair: a fixed module from the old one and the validator's problems. */
export function repairModule(client: LlmClient, source: string, report: ValidationReport, options: CallOptions = {}): Promise<WrittenModule> {
  return writeModule(client, renderRepair({ source, report }), 'repair', options);
}

/** The validator's review stage backed by an LLM: failed checklist items become E_REVIEW problems. */
export function llmReviewer(client: LlmClient, options: CallOptions = {}): Reviewer {
  return {
    async review(input: { source: string; meta: Meta; samples: Array<{ seed: number; level: number; prompt: string; reference: string }> }) {
      const prompt = renderReviewer(input);
      const response = await client.structured({ ...request(prompt.text, options), schema: ReviewSchema, schemaName: 'review_checklist', purpose: 'reviewer' });
      const failed = failedChecks(response.value);
      return {
        ok: failed.length === 0,
        metrics: { checks: response.value.checks, promptHash: prompt.hash, costUsd: response.costUsd },
        problems: failed.map((check) => ({ code: 'E_REVIEW' as const, message: `review check "${check}" failed: ${response.value.checks[check].note}`, evidence: { check } })),
      };
    },
  };
}
