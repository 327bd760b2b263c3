// A fake Anthropic server (POST /v1/messages) speaking the real wire format: text and tool_use content
// blocks, stop_reason and usage; the real `@anthropic-ai/sdk` talks to it.
import { fakeTokens } from '../../agents/llm/fake.js';
import { startFakeServer, type FakeServer, type FakeServerOptions, type Renderer } from './fake-llm-server.js';

export interface FakeAnthropicServer extends FakeServer {
  /** The base URL to give the SDK (it appends /v1/messages). */
  baseUrl: string;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  429: 'rate_limit_error', 529: 'overloaded_error',
};

const render: Renderer = (reply, body, n) => {
  if (reply.kind === 'error') {
    const type = ERROR_TYPES[reply.status] ?? 'api_error';
    return { status: reply.status, headers: reply.headers ?? {}, body: { type: 'error', error: { type, message: reply.message ?? type } } };
  }
  const toolName: string | undefined = body?.tool_choice?.type === 'tool' ? body.tool_choice.name : undefined;
  const asTool = reply.kind === 'json' && toolName !== undefined;
  const text = reply.kind === 'json' ? JSON.stringify(reply.value) : reply.text;
  const content = asTool
    ? [{ type: 'tool_use', id: `toolu_fake_${n}`, name: toolName, input: reply.value }]
    : [{ type: 'text', text }];
  const system = typeof body?.system === 'string' ? body.system : '';
  const prompt = [system, ...((body?.messages ?? []) as Array<{ content: string }>).map((m) => m.content)].join('\n');
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
        input_tokens: reply.usage?.inputTokens ?? fakeTokens(prompt),
        output_tokens: reply.usage?.outputTokens ?? fakeTokens(text),
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  };
};

export async function startFakeAnthropic(options: FakeServerOptions = {}): Promise<FakeAnthropicServer> {
  const server = await startFakeServer('/v1/messages', render, options);
  return Object.assign(server, { baseUrl: server.origin });
}
