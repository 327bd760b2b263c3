// The OpenAI chat-completions client, also for any OpenAI-compatible server behind a base URL
// (vLLM, SGLang, Ollama, llama.cpp, LM Studio, OpenRouter): native structured output via json_schema
// (vLLM's guided decoding and Ollama's `format` take it), cached input read from the usage.
import { createHash } from 'node:crypto';
import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { FinishReason, LlmClient, LlmUsage, Transport, WireRequest, WireResponse } from './contract.js';
import { createLlmClient, type ClientOptions } from './core.js';
import { LlmError } from './errors.js';
import { RETRY_DEFAULTS } from './retry.js';

export interface OpenAiOptions extends ClientOptions {
  model: string;
  /** Falls back to OPENAI_API_KEY; local servers behind a baseUrl usually need none. */
  apiKey?: string;
  /** e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:11434/v1 for Ollama. */
  baseUrl?: string;
  /**
   * OpenAI's own API wants max_completion_tokens; most compatible servers only know max_tokens (the default with a
   * baseUrl).
   */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Send prompt_cache_key (a hash of the first stable prefix), which routes prompts sharing it to the same
   * cache; the default is on for OpenAI itself and off behind a baseUrl (other servers may refuse the field).
   */
  promptCacheKey?: boolean;
  /** Set false for servers that reject response_format json_schema outright (auto mode also finds out by itself). */
  nativeStructured?: boolean;
  defaultHeaders?: Record<string, string>;
}

export function createOpenAiClient(options: OpenAiOptions): LlmClient {
  return createLlmClient(new OpenAiTransport(options), options);
}

/**
 * The first stable prefix's hash: prompts that share the contract share a key (OpenAI caches prefixes by itself; the
 * key routes them together).
 */
function cacheKeyOf(request: WireRequest): string | undefined {
  const message = request.messages.find((m) => m.cacheBreaks?.length);
  const end = message?.cacheBreaks?.[0];
  if (!message || end === undefined) return undefined;
  return `envforge-${createHash('sha256').update(message.content.slice(0, end), 'utf8').digest('hex').slice(0, 24)}`;
}

/** prompt_tokens counts the cached ones too; servers without a prompt cache leave the details out. */
function usageOf(usage: ChatCompletion['usage']): LlmUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  return {
    inputTokens: usage?.prompt_tokens ?? 0,
    outputTokens: usage?.completion_tokens ?? 0,
    ...(cached > 0 ? { cachedInputTokens: cached } : {}),
  };
}

const FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool',
  function_call: 'tool',
  content_filter: 'filter',
};

class OpenAiTransport implements Transport {
  readonly provider = 'openai';
  readonly model: string;
  readonly baseUrl: string | undefined;
  readonly nativeStructured: boolean;
  /** The SDK, loaded at the first request (a command that never calls the model does not load it: ~240 modules). */
  private sdk: Promise<OpenAI> | undefined;
  private readonly settings: ConstructorParameters<typeof OpenAI>[0];
  private readonly maxTokensParam: 'max_tokens' | 'max_completion_tokens';
  private readonly promptCacheKey: boolean;

  constructor(options: OpenAiOptions) {
    this.promptCacheKey = options.promptCacheKey ?? !options.baseUrl;
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    this.nativeStructured = options.nativeStructured ?? true;
    this.maxTokensParam = options.maxTokensParam ?? (options.baseUrl ? 'max_tokens' : 'max_completion_tokens');
    const apiKey = options.apiKey ?? process.env['OPENAI_API_KEY'] ?? (options.baseUrl ? 'not-needed' : undefined);
    if (!apiKey)
      throw new LlmError(
        'E_LLM_CONFIG',
        'openai: no API key: set OPENAI_API_KEY, or --base-url for a local OpenAI-compatible server',
      );
    this.settings = {
      apiKey,
      baseURL: options.baseUrl ?? null,
      maxRetries: 0, // retry.ts does the retrying, the same way for every provider
      timeout: (options.retry?.timeoutMs ?? RETRY_DEFAULTS.timeoutMs) + 5_000, // a backstop: retry.ts times out first
      ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
    };
  }

  async send(request: WireRequest, signal: AbortSignal): Promise<WireResponse> {
    const messages: ChatCompletionMessageParam[] = [
      ...(request.system ? [{ role: 'system' as const, content: request.system }] : []),
      ...request.messages.map((m) => ({ role: m.role, content: m.content })),
    ];
    const body: ChatCompletionCreateParamsNonStreaming = {
      model: this.model,
      messages,
      [this.maxTokensParam]: request.maxTokens,
    };
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.stop) body.stop = request.stop;
    if (request.seed !== undefined) body.seed = request.seed;
    const key = this.promptCacheKey ? cacheKeyOf(request) : undefined;
    if (key) body.prompt_cache_key = key;
    if (request.schema) {
      const { name, jsonSchema, strict } = request.schema;
      body.response_format = { type: 'json_schema', json_schema: { name, schema: jsonSchema, strict } };
    }
    this.sdk ??= import('openai').then(({ default: Sdk }) => new Sdk(this.settings));
    const completion = await (await this.sdk).chat.completions.create(body, { signal, maxRetries: 0 });
    const choice = completion.choices?.[0];
    if (!choice) throw new LlmError('E_LLM_SERVER', 'openai: the response has no choices');
    const refusal = choice.message.refusal;
    return {
      text: choice.message.content ?? refusal ?? '',
      usage: usageOf(completion.usage),
      model: completion.model || this.model,
      finishReason:
        refusal && !choice.message.content ? 'refusal' : (FINISH[choice.finish_reason] ?? String(choice.finish_reason)),
    };
  }
}
