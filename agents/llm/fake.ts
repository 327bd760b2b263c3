// A scripted in-process LlmClient for unit tests of the agents: it runs the real client core (cache,
// retry, cost, structured parsing) over a transport that plays back replies instead of calling a service.
import type {
  LlmClient,
  LlmRequest,
  LlmResponse,
  LlmStructuredRequest,
  LlmStructuredResponse,
  LlmUsage,
  Transport,
  WireRequest,
  WireResponse,
} from './contract.js';
import { createLlmClient, type ClientOptions } from './core.js';
import { fromHttpStatus, LlmError } from './errors.js';

/** What one request gets back; the fake servers in tests/helpers speak the same script on the real wire. */
export type FakeReply =
  | { kind: 'text'; text: string; usage?: Partial<LlmUsage>; model?: string }
  /** The structured payload: native when the request asked for a schema, else its JSON text. */
  | { kind: 'json'; value: unknown; usage?: Partial<LlmUsage>; model?: string }
  /** Output cut off at the token limit (finish 'length', stop_reason 'max_tokens'). */
  | { kind: 'truncated'; text: string; usage?: Partial<LlmUsage>; model?: string }
  | { kind: 'error'; status: number; message?: string; headers?: Record<string, string> }
  /** The connection dies before any response. */
  | { kind: 'reset' }
  /** Never answers; only the client's timeout or cancellation ends it. */
  | { kind: 'hang' };

export const reply = {
  text: (text: string, usage?: Partial<LlmUsage>): FakeReply => ({ kind: 'text', text, ...(usage ? { usage } : {}) }),
  json: (value: unknown, usage?: Partial<LlmUsage>): FakeReply => ({
    kind: 'json',
    value,
    ...(usage ? { usage } : {}),
  }),
  garbage: (text = 'Sure! Here it is: {"name": oops,,}'): FakeReply => ({ kind: 'text', text }),
  truncated: (text: string): FakeReply => ({ kind: 'truncated', text }),
  rateLimit: (retryAfter?: { seconds?: number | string; ms?: number }): FakeReply => ({
    kind: 'error',
    status: 429,
    message: 'rate limit exceeded',
    headers: {
      ...(retryAfter?.seconds !== undefined ? { 'retry-after': String(retryAfter.seconds) } : {}),
      ...(retryAfter?.ms !== undefined ? { 'retry-after-ms': String(retryAfter.ms) } : {}),
    },
  }),
  serverError: (status = 500): FakeReply => ({ kind: 'error', status, message: 'internal server error' }),
  status: (status: number, message = `status ${status}`): FakeReply => ({ kind: 'error', status, message }),
  reset: (): FakeReply => ({ kind: 'reset' }),
  hang: (): FakeReply => ({ kind: 'hang' }),
};

/** Replies in order, or a function of the request (a WireRequest here, the parsed JSON body in the fake servers). */
export type FakeScript<R = WireRequest> = FakeReply[] | ((request: R, index: number) => FakeReply | undefined);

/** Rough token count of text (about four characters a token), used by the fake and the fake servers. */
export const fakeTokens = (text: string): number => Math.ceil(text.length / 4);

/** Plays replies in order; once the script runs out, `next` answers 400 so a test bug never passes silently. */
export class FakeScriptPlayer<R = WireRequest> {
  private readonly queue: FakeReply[];
  private count = 0;

  constructor(private readonly script: FakeScript<R> = []) {
    this.queue = Array.isArray(script) ? [...script] : [];
  }

  push(...replies: FakeReply[]): void {
    this.queue.push(...replies);
  }

  next(request: R): FakeReply {
    const index = this.count++;
    const scripted = Array.isArray(this.script)
      ? this.queue.shift()
      : (this.queue.shift() ?? this.script(request, index));
    return scripted ?? { kind: 'error', status: 400, message: `fake: no reply scripted for request #${index + 1}` };
  }
}

export interface FakeOptions extends ClientOptions {
  model?: string;
  /** Whether to behave like a provider with a native structured mode (default true). */
  nativeStructured?: boolean;
}

class FakeTransport implements Transport {
  readonly provider = 'fake';
  readonly baseUrl = undefined;
  readonly requests: WireRequest[] = [];

  constructor(
    readonly model: string,
    readonly nativeStructured: boolean,
    readonly player: FakeScriptPlayer,
  ) {}

  async send(request: WireRequest, signal: AbortSignal): Promise<WireResponse> {
    this.requests.push(structuredClone(request));
    const next = this.player.next(request);
    switch (next.kind) {
      case 'error':
        throw fromHttpStatus(next.status, `fake: ${next.message ?? next.status}`, new Headers(next.headers));
      case 'reset':
        throw new LlmError('E_LLM_CONNECTION', 'fake: connection reset');
      case 'hang':
        return new Promise((_, reject) =>
          signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
        );
      default: {
        const text = next.kind === 'json' ? JSON.stringify(next.value) : next.text;
        const prompt = [request.system ?? '', ...request.messages.map((m) => m.content)].join('\n');
        return {
          text,
          ...(next.kind === 'json' && request.schema ? { json: next.value } : {}),
          usage: {
            inputTokens: next.usage?.inputTokens ?? fakeTokens(prompt),
            outputTokens: next.usage?.outputTokens ?? fakeTokens(text),
            ...(next.usage?.cachedInputTokens ? { cachedInputTokens: next.usage.cachedInputTokens } : {}),
            ...(next.usage?.cacheWriteTokens ? { cacheWriteTokens: next.usage.cacheWriteTokens } : {}),
          },
          model: next.model ?? this.model,
          finishReason: next.kind === 'truncated' ? 'length' : 'stop',
        };
      }
    }
  }
}

/** `new FakeLlm([reply.json(spec), reply.text('...')])`: an LlmClient that records what it was asked. */
export class FakeLlm implements LlmClient {
  readonly provider = 'fake';
  readonly model: string;
  private readonly transport: FakeTransport;
  private readonly client: LlmClient;

  constructor(script: FakeScript = [], options: FakeOptions = {}) {
    this.model = options.model ?? 'fake-model';
    this.transport = new FakeTransport(this.model, options.nativeStructured ?? true, new FakeScriptPlayer(script));
    this.client = createLlmClient(this.transport, options);
  }

  /** Every request that reached the (fake) wire, cache hits excluded. */
  get requests(): readonly WireRequest[] {
    return this.transport.requests;
  }

  push(...replies: FakeReply[]): void {
    this.transport.player.push(...replies);
  }

  complete(request: LlmRequest): Promise<LlmResponse> {
    return this.client.complete(request);
  }

  structured<T>(request: LlmStructuredRequest<T>): Promise<LlmStructuredResponse<T>> {
    return this.client.structured(request);
  }
}
