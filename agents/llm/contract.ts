// The LlmClient contract: one interface that the openai, anthropic, fake (and later offline) clients
// all implement, checked by one shared test (tests/llm-contract.ts).
import type { z } from 'zod';

/** The pipeline stage a call serves; the ledger sums tokens and dollars per purpose. */
export type LlmPurpose = 'architect' | 'generator' | 'repair' | 'reviewer' | 'solver';

export interface LlmMessage {
  role: 'user' | 'assistant';
  content: string;
  /**
   * Where stable prefixes of `content` end (character offsets: after the contract, after the examples). A
   * provider with explicit prompt caching (Anthropic's cache_control) caches the prompt up to each; OpenAI's
   * automatic prefix caching needs nothing but the stable text first.
   */
  cacheBreaks?: number[];
}

export interface LlmRequest {
  system?: string;
  messages: LlmMessage[];
  /** Output token cap; the client's default when absent. */
  maxTokens?: number;
  temperature?: number;
  stop?: string[];
  /**
   * Sampling seed: sent where the provider supports it and always part of the cache key, so k samples of one prompt are
   * k entries.
   */
  seed?: number;
  signal?: AbortSignal;
  purpose?: LlmPurpose;
  /** The candidate this call works for, for per-candidate accounting. */
  candidateId?: string;
}

export interface LlmUsage {
  /** Every input token of the call, those read from or written to the provider's prompt cache included. */
  inputTokens: number;
  outputTokens: number;
  /** Of inputTokens, those read from the provider's prompt cache (billed at its cached price); absent when none. */
  cachedInputTokens?: number;
  /**
   * Of inputTokens, those written to the provider's prompt cache (Anthropic; billed at its write price); absent when
   * none.
   */
  cacheWriteTokens?: number;
}

/**
 * Normalised finish reasons: 'stop' (natural end or stop sequence), 'length' (hit maxTokens),
 * 'tool' (a tool call), 'filter' (content filter); anything else is passed through as the provider said it.
 */
export type FinishReason = 'stop' | 'length' | 'tool' | 'filter' | (string & {});

export interface LlmResponseMeta {
  usage: LlmUsage;
  /** Dollars this call cost: 0 when cached or when the model has no price. */
  costUsd: number;
  /** The model that answered, as the provider reports it. */
  model: string;
  /** True when every underlying call was served from the response cache. */
  cached: boolean;
  finishReason: FinishReason;
}

export interface LlmResponse extends LlmResponseMeta {
  text: string;
}

export interface LlmStructuredRequest<T> extends LlmRequest {
  schema: z.ZodType<T>;
  /** A short identifier for the schema (`^[a-zA-Z0-9_-]+$`): the json_schema name or the tool name. */
  schemaName: string;
}

/** A parsed, schema-checked value; usage and cost include any re-asks it took. */
export interface LlmStructuredResponse<T> extends LlmResponseMeta {
  value: T;
  /** The JSON value the model sent, before the schema parsed it (defaults filled, unknown keys dropped). */
  raw?: unknown;
}

export interface LlmClient {
  readonly provider: string;
  readonly model: string;
  /**
   * Plain text completion. Throws LlmError (errors.ts) after bounded retries; truncation is data (finishReason
   * 'length').
   */
  complete(request: LlmRequest): Promise<LlmResponse>;
  /** Output checked against a zod schema: native JSON-schema / tool mode where possible, parse-and-re-ask otherwise. */
  structured<T>(request: LlmStructuredRequest<T>): Promise<LlmStructuredResponse<T>>;
}

// ---- For implementations: a provider adapter is a Transport; core.ts turns one into an LlmClient. ----

/** One request exactly as it goes on the wire (after defaults and the structured-output mode are applied). */
export interface WireRequest {
  system?: string;
  messages: LlmMessage[];
  maxTokens: number;
  temperature?: number;
  stop?: string[];
  seed?: number;
  /** Present in native structured mode: the provider must constrain its output to this JSON schema. */
  schema?: { name: string; jsonSchema: Record<string, unknown>; strict: boolean };
}

export interface WireResponse {
  text: string;
  /** The parsed payload when the provider returned one natively (Anthropic tool input). */
  json?: unknown;
  usage: LlmUsage;
  model: string;
  finishReason: FinishReason;
}

/** One attempt against one provider; retries, timeouts, cache, cost and parsing live in core.ts. */
export interface Transport {
  readonly provider: string;
  readonly model: string;
  readonly baseUrl?: string | undefined;
  /** Whether `WireRequest.schema` is honoured (JSON-schema response format or a forced tool call). */
  readonly nativeStructured: boolean;
  send(request: WireRequest, signal: AbortSignal): Promise<WireResponse>;
}
