// The shared client core: turns any provider Transport into an LlmClient with the same cache, retry,
// timeout, cost accounting, budget and structured-output behaviour, so providers differ only on the wire.
import type { z } from 'zod';
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
import { cacheKey, type ResponseCache } from './cache.js';
import { addUsage, costOf, mergePrices, priceFor, type CostLedger, type Estimate, type PriceTable } from './cost.js';
import { classifyError, isLlmError, LlmError } from './errors.js';
import { cancelledError, withRetry, type RetryOptions } from './retry.js';
import {
  checkValue,
  jsonCandidates,
  reaskMessage,
  schemaInstruction,
  toOutputSchema,
  type Parsed,
} from './structured.js';

export interface ClientOptions {
  /** Output token cap when a request does not set one. */
  maxTokens?: number;
  temperature?: number;
  retry?: RetryOptions;
  /** Absent or false: no caching. */
  cache?: ResponseCache | false;
  /** Overrides merged over DEFAULT_PRICES. */
  prices?: PriceTable;
  /** Where every call's spend is recorded and the budget enforced. */
  ledger?: CostLedger;
  /** Calls per structured request, the first included: the rest are re-asks with the problem appended. */
  structuredAttempts?: number;
  /** auto: native where the transport has it, dropping to prompt mode if the server rejects the schema (400). */
  structuredMode?: 'auto' | 'native' | 'prompt';
}

export const CLIENT_DEFAULTS = {
  maxTokens: 4096,
  structuredAttempts: 3,
  structuredMode: 'auto',
} satisfies ClientOptions as Required<Pick<ClientOptions, 'maxTokens' | 'structuredAttempts' | 'structuredMode'>>;

interface CallResult {
  response: WireResponse;
  cached: boolean;
  costUsd: number;
}

export function createLlmClient(transport: Transport, options: ClientOptions = {}): LlmClient {
  return new CoreClient(transport, options);
}

class CoreClient implements LlmClient {
  readonly provider: string;
  readonly model: string;
  private readonly prices: PriceTable;
  private readonly options: ClientOptions & typeof CLIENT_DEFAULTS;
  /** Set once a server rejected the native schema mode, so later calls skip straight to prompt mode. */
  private nativeRejected = false;

  constructor(
    private readonly transport: Transport,
    options: ClientOptions,
  ) {
    this.provider = transport.provider;
    this.model = transport.model;
    this.options = { ...CLIENT_DEFAULTS, ...options };
    this.prices = mergePrices(options.prices);
  }

  async complete(request: LlmRequest): Promise<LlmResponse> {
    const { response, cached, costUsd } = await this.call(this.toWire(request, request.messages), request);
    return {
      text: response.text,
      usage: response.usage,
      costUsd,
      model: response.model,
      cached,
      finishReason: response.finishReason,
    };
  }

  async structured<T>(request: LlmStructuredRequest<T>): Promise<LlmStructuredResponse<T>> {
    const out = toOutputSchema(request.schema);
    const mode = this.options.structuredMode;
    let native = mode !== 'prompt' && this.transport.nativeStructured && !(mode === 'auto' && this.nativeRejected);
    const messages = [...request.messages];
    let usage: LlmUsage = { inputTokens: 0, outputTokens: 0 };
    let costUsd = 0;
    let cached = true;
    let last = { text: '', problem: '' };
    let droppedNative = false;
    const attempts = Math.max(1, this.options.structuredAttempts);
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const schema = { name: request.schemaName, jsonSchema: out.jsonSchema, strict: out.strict };
      const wire = native
        ? { ...this.toWire(request, messages), schema }
        : this.toWire(
            { ...request, system: joinSystem(request.system, schemaInstruction(request.schemaName, out.jsonSchema)) },
            messages,
          );
      let result: CallResult;
      try {
        // Only output that passes the schema is cached or replayed: a bad answer stays a one-off.
        result = await this.call(wire, request, (response) => checkOutput(request.schema, response, out.wrapped).ok);
      } catch (error) {
        if (native && mode === 'auto' && isLlmError(error, 'E_LLM_BAD_REQUEST')) {
          droppedNative = true;
          native = false;
          attempt--; // the server refused the mode, the model never answered: not a used attempt
          continue;
        }
        throw error;
      }
      const { response } = result;
      usage = addUsage(usage, response.usage);
      costUsd += result.costUsd;
      cached &&= result.cached;
      // The 400 was about the native mode only if prompt mode then got through: remember it for later calls.
      if (droppedNative) this.nativeRejected = true;
      const checked = checkOutput(request.schema, response, out.wrapped);
      if (checked.ok) {
        return {
          value: checked.value,
          raw: checked.raw,
          usage,
          costUsd,
          model: response.model,
          cached,
          finishReason: response.finishReason,
        };
      }
      const text = response.text || (response.json === undefined ? '' : JSON.stringify(response.json));
      last = { text, problem: checked.problem };
      messages.push(
        { role: 'assistant', content: text || '(empty reply)' },
        { role: 'user', content: reaskMessage(checked.problem, response.finishReason === 'length') },
      );
    }
    throw new LlmError(
      'E_LLM_BAD_OUTPUT',
      `${request.schemaName}: no usable output in ${attempts} attempts: ${last.problem}`,
      {
        usage,
        costUsd,
        output: last.text,
        attempts,
      },
    );
  }

  private toWire(request: LlmRequest, messages: LlmRequest['messages']): WireRequest {
    const wire: WireRequest = {
      messages: messages.map((m) => ({
        role: m.role,
        content: m.content,
        ...(m.cacheBreaks?.length ? { cacheBreaks: [...m.cacheBreaks] } : {}),
      })),
      maxTokens: request.maxTokens ?? this.options.maxTokens,
    };
    if (request.system) wire.system = request.system;
    const temperature = request.temperature ?? this.options.temperature;
    if (temperature !== undefined) wire.temperature = temperature;
    if (request.stop?.length) wire.stop = [...request.stop];
    if (request.seed !== undefined) wire.seed = request.seed;
    return wire;
  }

  /**
   * One logical call: the cache first, else the budget check, the retried transport, the price and the
   * record. With `usable`, a response it refuses is neither replayed from the cache nor written to it.
   */
  private async call(
    wire: WireRequest,
    request: LlmRequest,
    usable?: (response: WireResponse) => boolean,
  ): Promise<CallResult> {
    if (request.signal?.aborted) throw cancelledError(request.signal);
    const { cache, ledger } = this.options;
    ledger?.requirePrice(this.model, priceFor(this.model, this.prices));
    const keyed = {
      provider: this.provider,
      model: this.model,
      baseUrl: this.transport.baseUrl ?? null,
      request: wire,
    };
    const key = cache ? cacheKey(keyed) : '';
    const hit = cache ? await cache.get(key) : undefined;
    const entry = { purpose: request.purpose, candidateId: request.candidateId };
    if (hit && (!usable || usable(hit))) {
      ledger?.record({ ...entry, model: hit.model, usage: hit.usage, costUsd: 0, cached: true });
      return { response: hit, cached: true, costUsd: 0 };
    }
    const reservation = ledger?.reserve(this.estimate(wire));
    try {
      const response = await withRetry(
        (signal) => this.transport.send(wire, signal),
        (error) => classifyError(error, this.provider),
        this.options.retry,
        request.signal,
      );
      const costUsd = costOf(
        priceFor(response.model, this.prices) ? response.model : this.model,
        response.usage,
        this.prices,
      );
      // A cache that cannot be written costs the replay, never the paid response.
      if (cache && (!usable || usable(response))) await cache.set(key, response, keyed).catch(() => undefined);
      ledger?.record({ ...entry, model: response.model, usage: response.usage, costUsd, cached: false });
      return { response, cached: false, costUsd };
    } finally {
      reservation?.release();
    }
  }

  /** Worst case of a call: every input byte a token (byte-level BPE never does worse) and the full output cap. */
  private estimate(wire: WireRequest): Estimate {
    const bytes = (s: string) => Buffer.byteLength(s, 'utf8');
    const input =
      16 +
      bytes(wire.system ?? '') +
      wire.messages.reduce((sum, m) => sum + 8 + bytes(m.content), 0) +
      (wire.schema ? bytes(JSON.stringify(wire.schema.jsonSchema)) : 0);
    return {
      tokens: input + wire.maxTokens,
      usd: costOf(this.model, { inputTokens: input, outputTokens: wire.maxTokens }, this.prices),
    };
  }
}

function joinSystem(system: string | undefined, extra: string): string {
  return system ? `${system}\n\n${extra}` : extra;
}

/** The reply checked against the schema: a native payload, else the first JSON value in the text that fits. */
function checkOutput<T>(schema: z.ZodType<T>, response: WireResponse, wrapped: boolean): Parsed<T> {
  if (response.json !== undefined) return checkValue(schema, response.json, wrapped);
  const { values, problem } = jsonCandidates(response.text);
  let first: Parsed<T> | undefined;
  for (const value of values) {
    const checked = checkValue(schema, value, wrapped);
    if (checked.ok) return checked;
    first ??= checked;
  }
  return first ?? { ok: false, problem };
}
