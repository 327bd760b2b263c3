// The OpenAI chat-completions client, also for any OpenAI-compatible server behind a base URL
// (vLLM, SGLang, Ollama, llama.cpp, LM Studio, OpenRouter): native structured output via json_schema.
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { FinishReason, LlmClient, Transport, WireRequest, WireResponse } from './contract.js';
import { createLlmClient, type ClientOptions } from './core.js';
import { LlmError } from './errors.js';
import { RETRY_DEFAULTS } from './retry.js';

export interface OpenAiOptions extends ClientOptions {
  model: string;
  /** Falls back to OPENAI_API_KEY; local servers behind a baseUrl usually need none. */
  apiKey?: string;
  /** e.g. http://127.0.0.1:8000/v1 for vLLM, http://127.0.0.1:11434/v1 for Ollama. */
  baseUrl?: string;
  /** OpenAI's own API wants max_completion_tokens; most compatible servers only know max_tokens (the default with a baseUrl). */
  maxTokensParam?: 'max_tokens' | 'max_completion_tokens';
  /** Set false for servers that reject response_format json_schema outright (auto mode also finds out by itself). */
  nativeStructured?: boolean;
  defaultHeaders?: Record<string, string>;
}

export function createOpenAiClient(options: OpenAiOptions): LlmClient {
  return createLlmClient(new OpenAiTransport(options), options);
}

const FINISH: Record<string, FinishReason> = { stop: 'stop', length: 'length', tool_calls: 'tool', function_call: 'tool', content_filter: 'filter' };

class OpenAiTransport implements Transport {
  readonly provider = 'openai';
  readonly model: string;
  readonly baseUrl: string | undefined;
  readonly nativeStructured: boolean;
  private readonly sdk: OpenAI;
  private readonly maxTokensParam: 'max_tokens' | 'max_completion_tokens';

  constructor(options: OpenAiOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    this.nativeStructured = options.nativeStructured ?? true;
    this.maxTokensParam = options.maxTokensParam ?? (options.baseUrl ? 'max_tokens' : 'max_completion_tokens');
    const apiKey = options.apiKey ?? process.env['OPENAI_API_KEY'] ?? (options.baseUrl ? 'not-needed' : undefined);
    if (!apiKey) throw new LlmError('E_LLM_CONFIG', 'openai: no API key: set OPENAI_API_KEY, or --base-url for a local OpenAI-compatible server');
    this.sdk = new OpenAI({
      apiKey,
      baseURL: options.baseUrl ?? null,
      maxRetries: 0, // retry.ts does the retrying, the same way for every provider
      timeout: (options.retry?.timeoutMs ?? RETRY_DEFAULTS.timeoutMs) + 5_000, // a backstop: retry.ts times out first
      ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
    });
  }

  async send(request: WireRequest, signal: AbortSignal): Promise<WireResponse> {
    const messages: ChatCompletionMessageParam[] = [
      ...(request.system ? [{ role: 'system' as const, content: request.system }] : []),
      ...request.messages.map((m) => ({ role: m.role, content: m.content })),
    ];
    const body: ChatCompletionCreateParamsNonStreaming = { model: this.model, messages, [this.maxTokensParam]: request.maxTokens };
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.stop) body.stop = request.stop;
    if (request.seed !== undefined) body.seed = request.seed;
    if (request.schema) {
      const { name, jsonSchema, strict } = request.schema;
      body.response_format = { type: 'json_schema', json_schema: { name, schema: jsonSchema, strict } };
    }
    const completion = await this.sdk.chat.completions.create(body, { signal, maxRetries: 0 });
    const choice = completion.choices?.[0];
    if (!choice) throw new LlmError('E_LLM_SERVER', 'openai: the response has no choices');
    const refusal = choice.message.refusal;
    return {
      text: choice.message.content ?? refusal ?? '',
      usage: { inputTokens: completion.usage?.prompt_tokens ?? 0, outputTokens: completion.usage?.completion_tokens ?? 0 },
      model: completion.model || this.model,
      finishReason: refusal && !choice.message.content ? 'refusal' : (FINISH[choice.finish_reason] ?? String(choice.finish_reason)),
    };
  }
}
