// Which author `envforge run` uses: an LLM author in the prompt profile asked for (whose models a dollar budget
// must have prices for), or the offline author with its seed; a resumed batch keeps its kind of author and seed.
import { concat, line } from './io.js';
import type { LlmClient } from '../agents/llm/contract.js';
import { priceFor, unpricedBudgetMessage } from '../agents/llm/cost.js';
import type { ProviderDescription, Selection } from '../agents/llm/select.js';
import { OFFLINE_AUTHOR_VERSION } from '../agents/offline/author.js';
import { UsageError } from '../contract/errors.js';
import type { BatchRecord } from '../library/contract.js';
import type { Author, AuthorIdentity } from '../agents/author.js';
import { AUTHORS } from '../agents/authors.js';
import { resolveProfile, type ProfileChoice } from '../agents/prompt-files.js';
import type { Io } from './io.js';
import type { RunOptions } from './run-options.js';

/**
 * A dollar budget needs a price for every model it pays for: without one, it stops here (exit 2) before
 * any call, cached or not; with --max-tokens too, the token budget bounds those calls and a warning says so.
 */
export function checkPrices(selection: Selection, options: RunOptions, io: Io): void {
  if (options.budgetUsd === undefined) return;
  const models = [selection.description.model, options.solverModel].filter((m): m is string => m !== undefined);
  for (const model of new Set(models)) {
    if (priceFor(model, selection.prices)) continue;
    if (options.maxTokens === undefined)
      throw new UsageError(`--budget-usd: ${unpricedBudgetMessage(model, options.budgetUsd)}`);
    io.err(
      concat(
        line`warning: no price is known for "${model}": --budget-usd cannot bound its calls, --max-tokens `,
        line`${options.maxTokens} does (set its price in envforge.config.json "prices")`,
      ),
    );
  }
}

/** The author a batch was started with, as stored in its options (absent for batches of older versions). */
export function storedAuthor(record: BatchRecord | undefined): AuthorIdentity | undefined {
  const author = (record?.options as { author?: unknown } | null | undefined)?.author;
  return author && typeof author === 'object' && typeof (author as AuthorIdentity).provider === 'string'
    ? (author as AuthorIdentity)
    : undefined;
}

/** A resumed batch continues with the same kind of author: the journal holds that author's specs and modules. */
export function checkAuthorOnResume(record: BatchRecord | undefined, offline: boolean): void {
  const stored = storedAuthor(record);
  if (!record || !stored || (stored.provider === 'offline') === offline) return;
  throw new UsageError(
    offline
      ? `--resume: batch ${record.id} was started with the LLM provider ${stored.provider}; resume it with an ` +
          `LLM configured (--provider, --model, --base-url)`
      : `--resume: batch ${record.id} was started with the offline author; resume it with --provider offline ` +
          `(or with no LLM configured)`,
  );
}

/**
 * The offline author's seed: a resumed batch's own (stored in its options; a different --seed is a usage
 * error), else --seed, else a 32-bit hash of the batch id (so nightly runs differ, and a batch started
 * without --seed gets the same seed again when resumed even if its options hold none).
 */
export function seedFor(flag: number | undefined, batchId: string, record: BatchRecord | undefined): number {
  const stored = storedAuthor(record)?.seed;
  if (typeof stored === 'number') {
    if (flag !== undefined && flag !== stored)
      throw new UsageError(
        `--seed ${flag}: batch ${batchId} was started with seed ${stored}, and a resumed batch keeps its ` +
          `seed (drop --seed or pass --seed ${stored})`,
      );
    return stored;
  }
  return flag ?? hashSeed(batchId);
}

/** FNV-1a, 32 bits: a stable seed from the batch id. */
function hashSeed(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

/** The one line a run with the offline author prints about it (with the seed, to reproduce the run). */
export function offlineLine(description: ProviderDescription, seed: number): string {
  if (description.provider === 'none') {
    return (
      `LLM: none configured — using the offline author v${OFFLINE_AUTHOR_VERSION} (seed ${seed}). To use a ` +
      `model: --provider openai|anthropic --model M, or --base-url URL (see envforge run --help)`
    );
  }
  return `LLM: offline author v${OFFLINE_AUTHOR_VERSION} (seed ${seed}, from ${description.source})`;
}

/** The LLM author in the prompt profile asked for, saying which one it uses. */
export function llmAuthorFor(llm: LlmClient, choice: ProfileChoice, io: Io): Author {
  const profile = resolveProfile(choice, llm.model);
  io.err(
    concat(
      line`prompts: ${profile} profile`,
      line`${choice === 'auto' ? ` (auto, for ${llm.model}; --prompt-profile standard|compact to choose)` : ''}`,
    ),
  );
  return AUTHORS.llm({ llm, profile });
}
