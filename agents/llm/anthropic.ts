// The Anthropic messages client: native structured output as a forced call of one tool whose
// input_schema is the zod schema's JSON schema.
import Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import type { FinishReason, LlmClient, Transport, WireRequest, WireResponse } from './contract.js';
import { createLlmClient, type ClientOptions } from './core.js';
import { LlmError } from './errors.js';
import { RETRY_DEFAULTS } from './retry.js';

export interface AnthropicOptions extends ClientOptions {
  model: string;
  /** Falls back to ANTHROPIC_API_KEY. */
  apiKey?: string;
  /** The API root without /v1 (the SDK appends /v1/messages). */
  baseUrl?: string;
  defaultHeaders?: Record<string, string>;
}

export function createAnthropicClient(options: AnthropicOptions): LlmClient {
  return createLlmClient(new AnthropicTransport(options), options);
}

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop', stop_sequence: 'stop', max_tokens: 'length', model_context_window_exceeded: 'length', tool_use: 'tool', refusal: 'filter',
};

class AnthropicTransport implements Transport {
  readonly provider = 'anthropic';
  readonly model: string;
  readonly baseUrl: string | undefined;
  readonly nativeStructured = true;
  private readonly sdk: Anthropic;

  constructor(options: AnthropicOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    const apiKey = options.apiKey ?? process.env['ANTHROPIC_API_KEY'];
    if (!apiKey) throw new LlmError('E_LLM_CONFIG', 'anthropic: no API key: set ANTHROPIC_API_KEY');
    this.sdk = new Anthropic({
      apiKey, // always explicit, so the SDK never goes looking for other credentials
      ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
      maxRetries: 0, // retry.ts does the retrying, the same way for every provider
      // An explicit timeout also spares large maxTokens the SDK's "use streaming" refusal; retry.ts times out first.
      timeout: (options.retry?.timeoutMs ?? RETRY_DEFAULTS.timeoutMs) + 5_000,
      ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
    });
  }

  async send(request: WireRequest, signal: AbortSignal): Promise<WireResponse> {
    const body: MessageCreateParamsNonStreaming = {
      model: this.model,
      max_tokens: request.maxTokens,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
    };
    if (request.system) body.system = request.system;
    // The current Messages API takes no temperature (the SDK dropped it): request.temperature only keys the cache here.
    if (request.stop) body.stop_sequences = request.stop;
    if (request.schema) {
      const { name, jsonSchema } = request.schema;
      body.tools = [{ name, description: `Record the ${name} answer.`, input_schema: { ...jsonSchema, type: 'object' } }];
      body.tool_choice = { type: 'tool', name, disable_parallel_tool_use: true };
    }
    const message = await this.sdk.messages.create(body, { signal, maxRetries: 0 });
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const tool = message.content.find((block) => block.type === 'tool_use' && block.name === request.schema?.name);
    const json = tool && tool.type === 'tool_use' ? tool.input : undefined;
    return {
      text: text || (json === undefined ? '' : JSON.stringify(json)),
      ...(json === undefined ? {} : { json }),
      usage: { inputTokens: message.usage?.input_tokens ?? 0, outputTokens: message.usage?.output_tokens ?? 0 },
      model: message.model || this.model,
      finishReason: FINISH[message.stop_reason ?? ''] ?? String(message.stop_reason),
    };
  }
}
