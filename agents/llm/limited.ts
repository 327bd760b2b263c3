// An LLM client with a bound on calls in flight: the batch's LLM concurrency, kept apart from how many
// candidates it validates at once.
import PQueue from 'p-queue';
import type { LlmClient } from './contract.js';

/** The client with at most `slots` calls in flight at once. */
export function limited(llm: LlmClient, slots: number): LlmClient {
  const calls = new PQueue({ concurrency: slots });
  return {
    provider: llm.provider,
    model: llm.model,
    complete: (request) => calls.add(() => llm.complete(request)),
    structured: (request) => calls.add(() => llm.structured(request)),
  };
}
