// The Anthropic messages client: native structured output as a forced call of one tool whose
// input_schema is the zod schema's JSON schema; a message's stable prefixes are marked cache_control.
import type Anthropic from '@anthropic-ai/sdk';
import type {
  Message,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import type {
  FinishReason,
  LlmClient,
  LlmMessage,
  LlmUsage,
  Transport,
  WireRequest,
  WireResponse,
} from './contract.js';
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

/** Anthropic takes at most four cache_control breakpoints in one request. */
const MAX_CACHE_BREAKPOINTS = 4;

/**
 * Messages with their stable prefixes as text blocks marked cache_control (the last breakpoints when there are too
 * many).
 */
function withCacheControl(messages: readonly LlmMessage[]): MessageParam[] {
  const breaks = messages.map((m) =>
    [...new Set(m.cacheBreaks ?? [])].filter((at) => at > 0 && at <= m.content.length).sort((a, b) => a - b),
  );
  let skip = Math.max(0, breaks.reduce((n, b) => n + b.length, 0) - MAX_CACHE_BREAKPOINTS);
  return messages.map((m, i) => {
    const own = breaks[i] as number[];
    const dropped = Math.min(skip, own.length);
    skip -= dropped;
    const kept = own.slice(dropped);
    if (kept.length === 0) return { role: m.role, content: m.content };
    const content: TextBlockParam[] = [];
    let from = 0;
    for (const at of kept) {
      content.push({ type: 'text', text: m.content.slice(from, at), cache_control: { type: 'ephemeral' } });
      from = at;
    }
    if (from < m.content.length) content.push({ type: 'text', text: m.content.slice(from) });
    return { role: m.role, content };
  });
}

/** Anthropic's input_tokens leaves out the cache reads and writes: envforge's inputTokens counts every input token. */
function usageOf(usage: Message['usage'] | undefined): LlmUsage {
  const read = usage?.cache_read_input_tokens ?? 0;
  const written = usage?.cache_creation_input_tokens ?? 0;
  return {
    inputTokens: (usage?.input_tokens ?? 0) + read + written,
    outputTokens: usage?.output_tokens ?? 0,
    ...(read > 0 ? { cachedInputTokens: read } : {}),
    ...(written > 0 ? { cacheWriteTokens: written } : {}),
  };
}

const FINISH: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool',
  refusal: 'filter',
};

class AnthropicTransport implements Transport {
  readonly provider = 'anthropic';
  readonly model: string;
  readonly baseUrl: string | undefined;
  readonly nativeStructured = true;
  /** The SDK, loaded at the first request (a command that never calls the model does not load it: ~250 modules). */
  private sdk: Promise<Anthropic> | undefined;
  private readonly settings: ConstructorParameters<typeof Anthropic>[0];

  constructor(options: AnthropicOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl;
    const apiKey = options.apiKey ?? process.env['ANTHROPIC_API_KEY'];
    if (!apiKey) throw new LlmError('E_LLM_CONFIG', 'anthropic: no API key: set ANTHROPIC_API_KEY');
    this.settings = {
      apiKey, // always explicit, so the SDK never goes looking for other credentials
      ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
      maxRetries: 0, // retry.ts does the retrying, the same way for every provider
      // An explicit timeout also spares large maxTokens the SDK's "use streaming" refusal; retry.ts times out first.
      timeout: (options.retry?.timeoutMs ?? RETRY_DEFAULTS.timeoutMs) + 5_000,
      ...(options.defaultHeaders ? { defaultHeaders: options.defaultHeaders } : {}),
    };
  }

  async send(request: WireRequest, signal: AbortSignal): Promise<WireResponse> {
    const body: MessageCreateParamsNonStreaming = {
      model: this.model,
      max_tokens: request.maxTokens,
      messages: withCacheControl(request.messages),
    };
    if (request.system) body.system = request.system;
    // The current Messages API takes no temperature (the SDK dropped it): request.temperature only keys the cache here.
    if (request.stop) body.stop_sequences = request.stop;
    if (request.schema) {
      const { name, jsonSchema } = request.schema;
      body.tools = [
        { name, description: `Record the ${name} answer.`, input_schema: { ...jsonSchema, type: 'object' } },
      ];
      body.tool_choice = { type: 'tool', name, disable_parallel_tool_use: true };
    }
    this.sdk ??= import('@anthropic-ai/sdk').then(({ default: Sdk }) => new Sdk(this.settings));
    const message = await (await this.sdk).messages.create(body, { signal, maxRetries: 0 });
    const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
    const tool = message.content.find((block) => block.type === 'tool_use' && block.name === request.schema?.name);
    const json = tool && tool.type === 'tool_use' ? tool.input : undefined;
    return {
      text: text || (json === undefined ? '' : JSON.stringify(json)),
      ...(json === undefined ? {} : { json }),
      usage: usageOf(message.usage),
      model: message.model || this.model,
      finishReason: FINISH[message.stop_reason ?? ''] ?? String(message.stop_reason),
    };
  }
}
