// A fake Anthropic server (POST /v1/messages) speaking the real wire format: text and tool_use content
// blocks, stop_reason and usage; the real `@anthropic-ai/sdk` talks to it. It plays Anthropic's prompt
// cache: a prefix up to a block marked cache_control is written once, then read by later requests.
import { fakeTokens } from '../../agents/llm/fake.js';
import { startFakeServer, type FakeServer, type FakeServerOptions, type Renderer } from './fake-llm-server.js';

export interface FakeAnthropicServer extends FakeServer {
  /** The base URL to give the SDK (it appends /v1/messages). */
  baseUrl: string;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

/** Anthropic's smallest cacheable prefix (Sonnet and Opus). */
const MIN_CACHED_TOKENS = 1024;

type Block = { type?: string; text?: string; cache_control?: unknown };
const blocks = (content: unknown): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? (content as Block[]) : [];
const textOf = (content: unknown): string =>
  blocks(content)
    .map((b) => b.text ?? '')
    .join('');

/** The prompt as one text (system, then each message's text), as the usage counts it. */
export const anthropicPromptText = (body: any): string =>
  [textOf(body?.system), ...((body?.messages ?? []) as Array<{ content: unknown }>).map((m) => textOf(m.content))].join(
    '\n',
  );

/**
 * Cache reads and writes for one request: the longest marked prefix seen before is read, the marked prefixes after it
 * are written.
 */
function promptCache(body: any, seen: Set<string>): { read: number; written: number } {
  const segments: Block[] = [
    ...(body?.tools ? [{ text: JSON.stringify(body.tools) }] : []),
    ...blocks(body?.system),
    ...((body?.messages ?? []) as Array<{ content: unknown }>).flatMap((m) => [...blocks(m.content), { text: '\n' }]),
  ];
  const marks: Array<{ key: string; tokens: number }> = [];
  let prefix = '';
  for (const segment of segments) {
    prefix += segment.text ?? '';
    if (segment.cache_control) marks.push({ key: prefix, tokens: fakeTokens(prefix) });
  }
  const cacheable = marks.filter((m) => m.tokens >= MIN_CACHED_TOKENS);
  const hit = cacheable.filter((m) => seen.has(m.key)).at(-1);
  const read = hit?.tokens ?? 0;
  const last = cacheable.at(-1);
  for (const m of cacheable) seen.add(m.key);
  return { read, written: last && last !== hit ? last.tokens - read : 0 };
}

function renderer(): Renderer {
  const seen = new Set<string>();
  return (reply, body, n) => {
    if (reply.kind === 'error') {
      const type = ERROR_TYPES[reply.status] ?? 'api_error';
      return {
        status: reply.status,
        headers: reply.headers ?? {},
        body: { type: 'error', error: { type, message: reply.message ?? type } },
      };
    }
    const toolName: string | undefined = body?.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined;
    const asTool = reply.kind === 'json' && toolName !== undefined;
    const text = reply.kind === 'json' ? JSON.stringify(reply.value) : reply.text;
    const content = asTool
      ? [{ type: 'tool_use', id: `toolu_fake_${n}`, name: toolName, input: reply.value }]
      : [{ type: 'text', text }];
    const total = reply.usage?.inputTokens ?? fakeTokens(anthropicPromptText(body));
    const cache =
      reply.usage?.inputTokens === undefined
        ? promptCache(body, seen)
        : { read: reply.usage.cachedInputTokens ?? 0, written: reply.usage.cacheWriteTokens ?? 0 };
    return {
      status: 200,
      body: {
        id: `msg_fake_${n}`,
        type: 'message',
        role: 'assistant',
        model: reply.model ?? body?.model ?? 'unknown',
        content,
        stop_reason: reply.kind === 'truncated' ? 'max_tokens' : asTool ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: {
          // Anthropic's input_tokens leaves out what the cache read or wrote.
          input_tokens: Math.max(0, total - cache.read - cache.written),
          output_tokens: reply.usage?.outputTokens ?? fakeTokens(text),
          cache_creation_input_tokens: cache.written,
          cache_read_input_tokens: cache.read,
        },
      },
    };
  };
}

export async function startFakeAnthropic(options: FakeServerOptions = {}): Promise<FakeAnthropicServer> {
  const server = await startFakeServer('/v1/messages', renderer(), options);
  return Object.assign(server, { baseUrl: server.origin });
}
