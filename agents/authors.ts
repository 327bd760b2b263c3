// Every author, in one place: `envforge run` creates its author here, and tests/author-contract.test.ts
// runs the Author contract (author.ts) on each one listed, so an author added here is tested with it.
import type { Author } from './author.js';
import type { LlmClient } from './llm/contract.js';
import { llmAuthor } from './llm-author.js';
import { createOfflineAuthor } from './offline/author.js';

export const AUTHORS = {
  /** Prompt files over an LlmClient (OpenAI-compatible or Anthropic; tests use the fake). */
  llm: (deps: { llm: LlmClient }): Author => llmAuthor(deps.llm),
  /** The offline author: a typed program DSL, no network; everything follows from the seed. */
  offline: (deps: { seed: number }): Author => createOfflineAuthor(deps),
} as const;

export type AuthorName = keyof typeof AUTHORS;
