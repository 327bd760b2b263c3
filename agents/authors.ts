// Every author, in one place: `envforge run` creates its author here, and tests/author-contract.test.ts
// runs the Author contract (author.ts) on each one listed, so an author added here is tested with it.
import type { Author } from './author.js';
import type { LlmClient } from './llm/contract.js';
import { llmAuthor } from './llm-author.js';
import { createOfflineAuthor } from './offline/author.js';
import { resolveProfile, type ProfileChoice } from './prompt-files.js';

export const AUTHORS = {
  /**
   * Prompt files over an LlmClient (OpenAI-compatible or Anthropic; tests use the fake), in a prompt profile (auto: by
   * the model's size).
   */
  llm: (deps: { llm: LlmClient; profile?: ProfileChoice }): Author =>
    llmAuthor(deps.llm, { profile: resolveProfile(deps.profile ?? 'auto', deps.llm.model) }),
  /** The offline author: a typed program DSL, no network; everything follows from the seed. */
  offline: (deps: { seed: number }): Author => createOfflineAuthor(deps),
} as const;

export type AuthorName = keyof typeof AUTHORS;
