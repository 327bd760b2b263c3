// What LLM calls cost: a per-model price table, the cost of one call, and the ledger that sums tokens
// and dollars per purpose, per candidate and per batch and refuses calls that could break the budget.
import type { LlmUsage } from './contract.js';
import { LlmError } from './errors.js';

/** Dollars per million tokens. */
export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  /** Input read from the provider's prompt cache; inputPerMTok when absent. */
  cachedInputPerMTok?: number;
  /** Input written to the provider's prompt cache (Anthropic's 5-minute cache); inputPerMTok when absent. */
  cacheWritePerMTok?: number;
}

export type PriceTable = Record<string, ModelPrice>;

/** Anthropic bills a cache read at a tenth of the input price and a 5-minute cache write at 1.25 times it. */
const anthropic = (inputPerMTok: number, outputPerMTok: number): ModelPrice => ({
  inputPerMTok,
  outputPerMTok,
  cachedInputPerMTok: inputPerMTok / 10,
  cacheWritePerMTok: inputPerMTok * 1.25,
});

/**
 * List prices when this table was written (OpenAI's cached input as listed per model); override per model from the
 * config file's `prices`.
 */
export const DEFAULT_PRICES: PriceTable = {
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10, cachedInputPerMTok: 1.25 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6, cachedInputPerMTok: 0.075 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6, cachedInputPerMTok: 0.1 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4, cachedInputPerMTok: 0.025 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4, cachedInputPerMTok: 0.275 },
  'claude-opus-4': anthropic(15, 75),
  'claude-opus-4-5': anthropic(5, 25),
  'claude-sonnet-4': anthropic(3, 15),
  'claude-haiku-4-5': anthropic(1, 5),
  'claude-3-5-haiku': anthropic(0.8, 4),
};

export function mergePrices(overrides?: PriceTable): PriceTable {
  return { ...DEFAULT_PRICES, ...overrides };
}

/**
 * The price of a model: an exact entry, else the longest entry that prefixes it (dated snapshots such as
 * `gpt-4o-mini-2024-07-18`), also after a router's `vendor/` prefix. Undefined for unpriced (local) models.
 */
export function priceFor(model: string, prices: PriceTable = DEFAULT_PRICES): ModelPrice | undefined {
  for (const name of [model, model.slice(model.lastIndexOf('/') + 1)]) {
    if (Object.hasOwn(prices, name)) return prices[name];
    const prefix = Object.keys(prices)
      .filter((key) => name.startsWith(`${key}-`) || name.startsWith(`${key}@`))
      .sort((a, b) => b.length - a.length)[0];
    if (prefix !== undefined) return prices[prefix];
  }
  return undefined;
}

/** Dollars of one call: uncached input, cache reads and cache writes each at their own price, then the output. */
export function costOf(model: string, usage: LlmUsage, prices: PriceTable = DEFAULT_PRICES): number {
  const price = priceFor(model, prices);
  if (!price) return 0;
  const read = usage.cachedInputTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const plain = Math.max(0, usage.inputTokens - read - written);
  const input =
    plain * price.inputPerMTok +
    read * (price.cachedInputPerMTok ?? price.inputPerMTok) +
    written * (price.cacheWritePerMTok ?? price.inputPerMTok);
  return (input + usage.outputTokens * price.outputPerMTok) / 1_000_000;
}

/** Two calls' usage summed; the cache counts stay absent while both are. */
export function addUsage(a: LlmUsage, b: LlmUsage): LlmUsage {
  const read = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  const written = (a.cacheWriteTokens ?? 0) + (b.cacheWriteTokens ?? 0);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    ...(read > 0 ? { cachedInputTokens: read } : {}),
    ...(written > 0 ? { cacheWriteTokens: written } : {}),
  };
}

/**
 * Why a dollar budget cannot hold for an unpriced model, and how to fix it (the config's `prices`, or --max-tokens).
 */
export function unpricedBudgetMessage(model: string, maxUsd: number): string {
  const example = JSON.stringify({ prices: { [model]: { inputPerMTok: 0.5, outputPerMTok: 1.5 } } });
  return (
    `no price is known for the model "${model}", so the $${maxUsd} budget cannot be enforced: its calls would ` +
    `count as $0. Set its price in dollars per million tokens in envforge.config.json, e.g. ${example}, or ` +
    `bound the run with --max-tokens N instead`
  );
}

export interface LedgerEntry {
  purpose?: string | undefined;
  candidateId?: string | undefined;
  model: string;
  usage: LlmUsage;
  costUsd: number;
  cached: boolean;
}

export interface Totals {
  calls: number;
  /** Calls replayed from envforge's own response cache (free). */
  cachedCalls: number;
  inputTokens: number;
  outputTokens: number;
  /**
   * Of inputTokens, those the provider read from its prompt cache (snapshots written before they were counted lack it).
   */
  cachedInputTokens: number;
  /** Of inputTokens, those the provider wrote to its prompt cache. */
  cacheWriteTokens: number;
  costUsd: number;
}

export interface Budget {
  maxUsd?: number;
  /** Input plus output tokens. */
  maxTokens?: number;
}

export interface LedgerSnapshot {
  batchId?: string | undefined;
  total: Totals;
  byPurpose: Record<string, Totals>;
  byCandidate: Record<string, Totals>;
  byModel: Record<string, Totals>;
}

/** Worst-case spend of a call about to be issued. */
export interface Estimate {
  tokens: number;
  usd: number;
}

export interface Reservation {
  release(): void;
}

const zero = (): Totals => ({
  calls: 0,
  cachedCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0,
});

/** Tokens and dollars are billed ones: a cached replay counts as a call and nothing more. */
function add(into: Totals, entry: LedgerEntry | Totals): void {
  if ('usage' in entry) {
    into.calls += 1;
    if (entry.cached) {
      into.cachedCalls += 1;
      return;
    }
    into.inputTokens += entry.usage.inputTokens;
    into.outputTokens += entry.usage.outputTokens;
    into.cachedInputTokens += entry.usage.cachedInputTokens ?? 0;
    into.cacheWriteTokens += entry.usage.cacheWriteTokens ?? 0;
    into.costUsd += entry.costUsd;
    return;
  }
  into.calls += entry.calls;
  into.cachedCalls += entry.cachedCalls;
  into.inputTokens += entry.inputTokens;
  into.outputTokens += entry.outputTokens;
  into.cachedInputTokens += entry.cachedInputTokens ?? 0;
  into.cacheWriteTokens += entry.cacheWriteTokens ?? 0;
  into.costUsd += entry.costUsd;
}

function addTo(groups: Map<string, Totals>, key: string | undefined, entry: LedgerEntry | Totals): void {
  if (key === undefined) return;
  let totals = groups.get(key);
  if (!totals) groups.set(key, (totals = zero()));
  add(totals, entry);
}

/** One batch's spend. Share one ledger between all clients of a batch; restore it from a snapshot on resume. */
export class CostLedger {
  readonly batchId: string | undefined;
  readonly budget: Budget;
  private readonly total = zero();
  private readonly purposes = new Map<string, Totals>();
  private readonly candidates = new Map<string, Totals>();
  private readonly models = new Map<string, Totals>();
  private inFlight: Estimate = { tokens: 0, usd: 0 };

  constructor(options: { batchId?: string; budget?: Budget; previous?: LedgerSnapshot } = {}) {
    this.batchId = options.batchId ?? options.previous?.batchId;
    this.budget = options.budget ?? {};
    const previous = options.previous;
    if (previous) {
      add(this.total, previous.total);
      for (const [key, t] of Object.entries(previous.byPurpose)) addTo(this.purposes, key, t);
      for (const [key, t] of Object.entries(previous.byCandidate)) addTo(this.candidates, key, t);
      for (const [key, t] of Object.entries(previous.byModel)) addTo(this.models, key, t);
    }
  }

  record(entry: LedgerEntry): void {
    add(this.total, entry);
    addTo(this.purposes, entry.purpose ?? 'other', entry);
    addTo(this.candidates, entry.candidateId, entry);
    addTo(this.models, entry.model, entry);
  }

  /**
   * Refuses a call to an unpriced model under a dollar budget alone (it would be free to the ledger);
   * with a token budget too, the tokens bound it. Checked before the cache: a replay is no exception.
   */
  requirePrice(model: string, price: ModelPrice | undefined): void {
    const { maxUsd, maxTokens } = this.budget;
    if (maxUsd !== undefined && maxTokens === undefined && price === undefined)
      throw new LlmError('E_LLM_BUDGET', unpricedBudgetMessage(model, maxUsd));
  }

  /**
   * Holds worst-case spend for a call in flight; throws E_LLM_BUDGET if spent + in flight + this could pass a limit.
   */
  reserve(estimate: Estimate): Reservation {
    const { maxUsd, maxTokens } = this.budget;
    const tokens = this.total.inputTokens + this.total.outputTokens + this.inFlight.tokens + estimate.tokens;
    const usd = this.total.costUsd + this.inFlight.usd + estimate.usd;
    if (maxTokens !== undefined && tokens > maxTokens) {
      throw new LlmError(
        'E_LLM_BUDGET',
        `a call of up to ${estimate.tokens} tokens could pass the ${maxTokens}-token budget`,
      );
    }
    if (maxUsd !== undefined && usd > maxUsd) {
      throw new LlmError(
        'E_LLM_BUDGET',
        `a call of up to $${estimate.usd.toFixed(4)} could pass the $${maxUsd} budget`,
      );
    }
    this.inFlight = { tokens: this.inFlight.tokens + estimate.tokens, usd: this.inFlight.usd + estimate.usd };
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.inFlight = { tokens: this.inFlight.tokens - estimate.tokens, usd: this.inFlight.usd - estimate.usd };
      },
    };
  }

  get totals(): Totals {
    return { ...this.total };
  }

  /** Dollars and tokens left before the budget, counting calls in flight at their worst case. */
  remaining(): { usd?: number; tokens?: number } {
    const out: { usd?: number; tokens?: number } = {};
    if (this.budget.maxUsd !== undefined) out.usd = this.budget.maxUsd - this.total.costUsd - this.inFlight.usd;
    if (this.budget.maxTokens !== undefined) {
      out.tokens = this.budget.maxTokens - this.total.inputTokens - this.total.outputTokens - this.inFlight.tokens;
    }
    return out;
  }

  snapshot(): LedgerSnapshot {
    const obj = (m: Map<string, Totals>) => Object.fromEntries([...m].map(([k, v]) => [k, { ...v }]));
    return {
      batchId: this.batchId,
      total: this.totals,
      byPurpose: obj(this.purposes),
      byCandidate: obj(this.candidates),
      byModel: obj(this.models),
    };
  }
}
