// A fake OpenAI-compatible server (POST /v1/chat/completions) speaking the real wire format, including
// usage (with prompt_tokens_details.cached_tokens), finish_reason and response_format json_schema; the real
// `openai` SDK talks to it. With `prefixCache` it plays OpenAI's automatic prompt caching.
import { fakeTokens } from '../../agents/llm/fake.js';
import { startFakeServer, type FakeServer, type FakeServerOptions, type Renderer } from './fake-llm-server.js';

export interface FakeOpenAiServer extends FakeServer {
  /** The base URL to give the SDK: origin + /v1. */
  baseUrl: string;
}

export interface FakeOpenAiOptions extends FakeServerOptions {
  /**
   * Play OpenAI's automatic prefix caching: a prompt's longest common prefix with an earlier prompt of the
   * same response format (the schema is cached as a prefix of the system message) counts as cached, in
   * steps of 128 tokens from 1,024 on; tokens are fakeTokens of the characters, as the usage is.
   */
  prefixCache?: boolean;
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_api_key',
  404: 'not_found_error',
  429: 'rate_limit_exceeded',
};

/** The prompt as one text (the messages' contents joined by newlines), as the usage counts it. */
export const openAiPromptText = (body: any): string =>
  ((body?.messages ?? []) as Array<{ role: string; content: string }>).map((m) => m.content).join('\n');

const commonPrefix = (a: string, b: string): number => {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
};

/** OpenAI's rule: nothing below 1,024 tokens, then whole steps of 128. */
export function cachedTokensFor(prefixChars: number, promptTokens: number): number {
  const tokens = Math.min(Math.floor(prefixChars / 4), promptTokens);
  return tokens < 1024 ? 0 : Math.floor(tokens / 128) * 128;
}

function renderer(prefixCache: boolean): Renderer {
  const seen = new Map<string, string[]>();
  return (reply, body, n) => {
    if (reply.kind === 'error') {
      const type = ERROR_TYPES[reply.status] ?? 'server_error';
      return {
        status: reply.status,
        headers: reply.headers ?? {},
        body: { error: { message: reply.message ?? type, type, param: null, code: null } },
      };
    }
    const content = reply.kind === 'json' ? JSON.stringify(reply.value) : reply.text;
    const prompt = openAiPromptText(body);
    const promptTokens = reply.usage?.inputTokens ?? fakeTokens(prompt);
    let cached = reply.usage?.cachedInputTokens ?? 0;
    if (prefixCache && reply.usage?.cachedInputTokens === undefined) {
      const format = JSON.stringify(body?.response_format ?? null);
      const earlier = seen.get(format) ?? [];
      cached = cachedTokensFor(Math.max(0, ...earlier.map((p) => commonPrefix(p, prompt))), promptTokens);
      seen.set(format, [...earlier, prompt]);
    }
    const usage = { prompt_tokens: promptTokens, completion_tokens: reply.usage?.outputTokens ?? fakeTokens(content) };
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
        usage: {
          ...usage,
          total_tokens: usage.prompt_tokens + usage.completion_tokens,
          prompt_tokens_details: { cached_tokens: cached },
        },
      },
    };
  };
}

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAiServer> {
  const server = await startFakeServer('/v1/chat/completions', renderer(options.prefixCache === true), options);
  return Object.assign(server, { baseUrl: `${server.origin}/v1` });
}
