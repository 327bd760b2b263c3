// A fake OpenAI-compatible server (POST /v1/chat/completions) speaking the real wire format, including
// usage, finish_reason and response_format json_schema; the real `openai` SDK talks to it.
import { fakeTokens } from '../../agents/llm/fake.js';
import { startFakeServer, type FakeServer, type FakeServerOptions, type Renderer } from './fake-llm-server.js';

export interface FakeOpenAiServer extends FakeServer {
  /** The base URL to give the SDK: origin + /v1. */
  baseUrl: string;
}

const ERROR_TYPES: Record<number, string> = { 400: 'invalid_request_error', 401: 'invalid_api_key', 404: 'not_found_error', 429: 'rate_limit_exceeded' };

const render: Renderer = (reply, body, n) => {
  if (reply.kind === 'error') {
    const type = ERROR_TYPES[reply.status] ?? 'server_error';
    return { status: reply.status, headers: reply.headers ?? {}, body: { error: { message: reply.message ?? type, type, param: null, code: null } } };
  }
  const content = reply.kind === 'json' ? JSON.stringify(reply.value) : reply.text;
  const prompt = ((body?.messages ?? []) as Array<{ content: string }>).map((m) => m.content).join('\n');
  const usage = { prompt_tokens: reply.usage?.inputTokens ?? fakeTokens(prompt), completion_tokens: reply.usage?.outputTokens ?? fakeTokens(content) };
  return {
    status: 200,
    body: {
      id: `chatcmpl-fake-${n}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: reply.model ?? body?.model ?? 'unknown',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content, refusal: null },
          finish_reason: reply.kind === 'truncated' ? 'length' : 'stop',
          logprobs: null,
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    },
  };
};

export async function startFakeOpenAi(options: FakeServerOptions = {}): Promise<FakeOpenAiServer> {
  const server = await startFakeServer('/v1/chat/completions', render, options);
  return Object.assign(server, { baseUrl: `${server.origin}/v1` });
}
