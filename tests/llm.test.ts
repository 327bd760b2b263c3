// The LLM client layer: the shared contract for every client, then what is particular to each provider,
// and the retry, cost, cache, structured-output and provider-selection parts on their own.
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAnthropicClient } from '../agents/llm/anthropic.js';
import { cacheKey, DiskCache, MemoryCache } from '../agents/llm/cache.js';
import type { WireRequest } from '../agents/llm/contract.js';
import { CostLedger, costOf, priceFor } from '../agents/llm/cost.js';
import { LlmError, parseRetryAfter } from '../agents/llm/errors.js';
import { FakeLlm, reply, type FakeReply } from '../agents/llm/fake.js';
import { createOpenAiClient } from '../agents/llm/openai.js';
import { backoffDelay, withRetry } from '../agents/llm/retry.js';
import { describeProvider, selectProvider, type SelectInput } from '../agents/llm/select.js';
import { parseJsonText, toOutputSchema } from '../agents/llm/structured.js';
import { startFakeAnthropic, type FakeAnthropicServer } from './helpers/fake-anthropic.js';
import { startFakeOpenAi, type FakeOpenAiServer } from './helpers/fake-openai.js';
import { llmContract, type SeenRequest } from './llm-contract.js';

llmContract('openai (real SDK, fake server)', async () => {
  const server = await startFakeOpenAi();
  return {
    model: 'gpt-fake',
    client: (options) =>
      createOpenAiClient({ model: 'gpt-fake', baseUrl: server.baseUrl, apiKey: 'sk-test', ...options }),
    script: (...replies) => server.push(...replies),
    requests: () =>
      server.requests.map(({ body }): SeenRequest => {
        const system = body.messages.find((m: { role: string }) => m.role === 'system')?.content;
        return {
          ...(system === undefined ? {} : { system }),
          messages: body.messages.filter((m: { role: string }) => m.role !== 'system'),
          maxTokens: body.max_tokens,
          ...(body.stop ? { stop: body.stop } : {}),
          native: body.response_format?.type === 'json_schema',
          ...(body.response_format ? { schemaName: body.response_format.json_schema.name } : {}),
        };
      }),
    close: () => server.close(),
  };
});

llmContract('anthropic (real SDK, fake server)', async () => {
  const server = await startFakeAnthropic();
  return {
    model: 'claude-fake',
    client: (options) =>
      createAnthropicClient({ model: 'claude-fake', baseUrl: server.baseUrl, apiKey: 'sk-ant-test', ...options }),
    script: (...replies) => server.push(...replies),
    requests: () =>
      server.requests.map(
        ({ body }): SeenRequest => ({
          ...(body.system === undefined ? {} : { system: body.system }),
          messages: body.messages,
          maxTokens: body.max_tokens,
          ...(body.stop_sequences ? { stop: body.stop_sequences } : {}),
          native: body.tool_choice?.type === 'tool',
          ...(body.tool_choice ? { schemaName: body.tool_choice.name } : {}),
        }),
      ),
    close: () => server.close(),
  };
});

llmContract('fake (in-process)', async () => {
  const queue: FakeReply[] = [];
  const seen: WireRequest[] = [];
  const script = (request: WireRequest) => {
    seen.push(request);
    return queue.shift();
  };
  return {
    model: 'fake-model',
    client: (options) => new FakeLlm(script, options),
    script: (...replies) => queue.push(...replies),
    requests: () =>
      seen.map(
        (q): SeenRequest => ({
          ...(q.system === undefined ? {} : { system: q.system }),
          messages: q.messages,
          maxTokens: q.maxTokens,
          ...(q.stop ? { stop: q.stop } : {}),
          native: q.schema !== undefined,
          ...(q.schema ? { schemaName: q.schema.name } : {}),
        }),
      ),
    close: async () => undefined,
  };
});

const Spec = z.object({ name: z.string(), levels: z.number().int() });
const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

describe('openai client on the wire', () => {
  let server: FakeOpenAiServer;
  beforeEach(async () => {
    server = await startFakeOpenAi();
  });
  afterEach(() => server.close());

  it('sends the bearer key, max_tokens, temperature, seed and a strict json_schema response format', async () => {
    server.push(reply.json({ name: 'x', levels: 3 }));
    const client = createOpenAiClient({ model: 'm', baseUrl: server.baseUrl, apiKey: 'sk-test' });
    await client.structured({ ...ask, schema: Spec, schemaName: 'spec', temperature: 0.2, seed: 7, maxTokens: 99 });
    const { headers, body } = server.requests[0]!;
    expect(headers.authorization).toBe('Bearer sk-test');
    expect(body).toMatchObject({ model: 'm', max_tokens: 99, temperature: 0.2, seed: 7 });
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'spec', strict: true, schema: toOutputSchema(Spec).jsonSchema },
    });
  });

  it('drops to prompt mode when the server rejects response_format, and stays there', async () => {
    server.push(
      reply.status(400, 'response_format json_schema is not supported'),
      reply.text('```json\n{"name":"x","levels":3}\n```'),
      reply.json({ name: 'y', levels: 4 }),
    );
    const client = createOpenAiClient({ model: 'm', baseUrl: server.baseUrl });
    expect((await client.structured({ ...ask, schema: Spec, schemaName: 'spec' })).value).toEqual({
      name: 'x',
      levels: 3,
    });
    expect((await client.structured({ ...ask, schema: Spec, schemaName: 'spec' })).value).toEqual({
      name: 'y',
      levels: 4,
    });
    const [, second, third] = server.requests;
    expect(second!.body.response_format).toBeUndefined();
    expect(second!.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringMatching(/JSON schema/) });
    expect(third!.body.response_format).toBeUndefined();
  });

  it('keeps native mode when the 400 was about something else (prompt mode fails too)', async () => {
    server.push(
      reply.status(400, 'context too long'),
      reply.status(400, 'context too long'),
      reply.json({ name: 'x', levels: 3 }),
    );
    const client = createOpenAiClient({ model: 'm', baseUrl: server.baseUrl });
    await expect(client.structured({ ...ask, schema: Spec, schemaName: 'spec' })).rejects.toMatchObject({
      code: 'E_LLM_BAD_REQUEST',
    });
    await client.structured({ ...ask, schema: Spec, schemaName: 'spec' });
    expect(server.requests.map((r) => r.body.response_format?.type ?? 'prompt')).toEqual([
      'json_schema',
      'prompt',
      'json_schema',
    ]);
  });

  it('really waits the retry-after before retrying', async () => {
    server.push(reply.rateLimit({ seconds: 0.05 }), reply.text('ok'));
    const started = performance.now();
    await createOpenAiClient({ model: 'm', baseUrl: server.baseUrl }).complete(ask);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('reads the cached input tokens from prompt_tokens_details and prices them at the cached price', async () => {
    server.push(reply.text('ok', { inputTokens: 10_000, outputTokens: 100, cachedInputTokens: 8_192 }));
    const ledger = new CostLedger();
    const client = createOpenAiClient({ model: 'gpt-4.1', baseUrl: server.baseUrl, ledger });
    const r = await client.complete(ask);
    expect(r.usage).toEqual({ inputTokens: 10_000, outputTokens: 100, cachedInputTokens: 8_192 });
    // 1,808 uncached at $2/M, 8,192 cached at $0.50/M, 100 out at $8/M.
    expect(r.costUsd).toBeCloseTo((1_808 * 2 + 8_192 * 0.5 + 100 * 8) / 1e6, 12);
    expect(ledger.totals).toMatchObject({ inputTokens: 10_000, cachedInputTokens: 8_192, cacheWriteTokens: 0 });
  });

  it(
    'with a prefix cache on the stand-in, a second prompt sharing a long prefix reports it cached; another ' +
      'schema does not share it',
    async () => {
      const cachingServer = await startFakeOpenAi({
        prefixCache: true,
        script: [reply.text('a'), reply.text('b'), reply.json({ name: 'x', levels: 3 })],
      });
      try {
        const client = createOpenAiClient({ model: 'm', baseUrl: cachingServer.baseUrl });
        const stable = 'The contract. '.repeat(600);
        expect(
          (await client.complete({ messages: [{ role: 'user', content: `${stable}first task` }] })).usage
            .cachedInputTokens,
        ).toBeUndefined();
        const second = await client.complete({ messages: [{ role: 'user', content: `${stable}second task` }] });
        expect(second.usage.cachedInputTokens).toBe(Math.floor(stable.length / 4 / 128) * 128);
        const structured = await client.structured({
          messages: [{ role: 'user', content: `${stable}third task` }],
          schema: Spec,
          schemaName: 'spec',
        });
        expect(structured.usage.cachedInputTokens).toBeUndefined();
      } finally {
        await cachingServer.close();
      }
    },
  );

  it(
    'sends prompt_cache_key from the first stable prefix only when asked (on for OpenAI ' +
      'itself, off behind a base URL)',
    async () => {
      server.push(reply.text('one'), reply.text('two'), reply.text('three'));
      const content = 'contract text, then the task';
      const breaks = { messages: [{ role: 'user' as const, content, cacheBreaks: [13] }] };
      await createOpenAiClient({ model: 'm', baseUrl: server.baseUrl, promptCacheKey: true }).complete(breaks);
      await createOpenAiClient({ model: 'm', baseUrl: server.baseUrl, promptCacheKey: true }).complete({
        messages: [{ role: 'user', content: 'contract text, another task', cacheBreaks: [13] }],
      });
      await createOpenAiClient({ model: 'm', baseUrl: server.baseUrl }).complete(breaks);
      const [first, second, third] = server.requests.map((r) => r.body);
      expect(first.prompt_cache_key).toMatch(/^envforge-[0-9a-f]{24}$/);
      expect(second.prompt_cache_key).toBe(first.prompt_cache_key);
      expect(third.prompt_cache_key).toBeUndefined();
      expect(first.messages).toEqual([{ role: 'user', content }]);
    },
  );

  it('uses max_completion_tokens against OpenAI itself', async () => {
    server.push(reply.text('ok'));
    await createOpenAiClient({ model: 'm', baseUrl: server.baseUrl, maxTokensParam: 'max_completion_tokens' }).complete(
      { ...ask, maxTokens: 5 },
    );
    expect(server.requests[0]!.body).toMatchObject({ max_completion_tokens: 5 });
    expect(server.requests[0]!.body.max_tokens).toBeUndefined();
  });
});

describe('anthropic client on the wire', () => {
  let server: FakeAnthropicServer;
  beforeEach(async () => {
    server = await startFakeAnthropic();
  });
  afterEach(() => server.close());

  it('sends the key, a top-level system prompt and one forced tool with the schema as input_schema', async () => {
    server.push(reply.json({ name: 'x', levels: 3 }));
    const client = createAnthropicClient({ model: 'claude-x', baseUrl: server.baseUrl, apiKey: 'sk-ant-test' });
    await client.structured({ ...ask, system: 'be brief', schema: Spec, schemaName: 'spec' });
    const { headers, body } = server.requests[0]!;
    // SDK 1.x sends the key as a bearer token; older SDKs used x-api-key.
    expect(headers['x-api-key'] ?? headers.authorization).toMatch(/^(Bearer )?sk-ant-test$/);
    expect(headers['anthropic-version']).toBeTruthy();
    expect(body).toMatchObject({ model: 'claude-x', system: 'be brief', tool_choice: { type: 'tool', name: 'spec' } });
    expect(body.tools).toEqual([
      { name: 'spec', description: expect.any(String), input_schema: toOutputSchema(Spec).jsonSchema },
    ]);
  });

  it(
    'marks the stable prefixes cache_control, reads the cache on the next call, and counts and ' +
      'prices reads and writes',
    async () => {
      server.push(reply.text('one'), reply.text('two'));
      const ledger = new CostLedger();
      const client = createAnthropicClient({
        model: 'claude-sonnet-4-test',
        baseUrl: server.baseUrl,
        apiKey: 'k',
        ledger,
      });
      const contract = 'The contract. '.repeat(600);
      const examples = 'An example. '.repeat(400);
      const ask = (task: string) => ({
        messages: [
          {
            role: 'user' as const,
            content: `${contract}${examples}${task}`,
            cacheBreaks: [contract.length, contract.length + examples.length],
          },
        ],
      });
      const first = await client.complete(ask('first task'));
      expect(server.requests[0]!.body.messages[0].content).toEqual([
        { type: 'text', text: contract, cache_control: { type: 'ephemeral' } },
        { type: 'text', text: examples, cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'first task' },
      ]);
      const tokens = (text: string) => Math.ceil(text.length / 4);
      expect(first.usage).toEqual({
        inputTokens: tokens(`${contract}${examples}first task`),
        outputTokens: 1,
        cacheWriteTokens: tokens(contract + examples),
      });
      const second = await client.complete(ask('second task'));
      expect(second.usage).toMatchObject({ cachedInputTokens: tokens(contract + examples) });
      expect(second.usage.cacheWriteTokens).toBeUndefined();
      const plain = second.usage.inputTokens - tokens(contract + examples);
      expect(second.costUsd).toBeCloseTo((plain * 3 + tokens(contract + examples) * 0.3 + 1 * 15) / 1e6, 12);
      expect(ledger.totals).toMatchObject({
        cachedInputTokens: tokens(contract + examples),
        cacheWriteTokens: tokens(contract + examples),
      });
    },
  );

  it('keeps at most four cache breakpoints, the last ones', async () => {
    server.push(reply.text('ok'));
    const client = createAnthropicClient({ model: 'c', baseUrl: server.baseUrl, apiKey: 'k' });
    await client.complete({ messages: [{ role: 'user', content: 'abcdefgh', cacheBreaks: [1, 2, 3, 4, 5, 6] }] });
    const blocks = server.requests[0]!.body.messages[0].content as Array<{ text: string; cache_control?: unknown }>;
    expect(blocks.filter((b) => b.cache_control).map((b) => b.text)).toEqual(['abc', 'd', 'e', 'f']);
    expect(blocks.map((b) => b.text).join('')).toBe('abcdefgh');
  });

  it('retries 529 overloaded', async () => {
    server.push(reply.serverError(529), reply.text('ok'));
    const client = createAnthropicClient({
      model: 'c',
      baseUrl: server.baseUrl,
      apiKey: 'k',
      retry: { sleep: async () => undefined },
    });
    expect((await client.complete(ask)).text).toBe('ok');
  });

  it('takes a large maxTokens without the SDK demanding streaming', async () => {
    server.push(reply.text('ok'));
    const client = createAnthropicClient({ model: 'c', baseUrl: server.baseUrl, apiKey: 'k' });
    expect((await client.complete({ ...ask, maxTokens: 64_000 })).text).toBe('ok');
  });
});

describe('fake client', () => {
  it('answers 400 with a clear message once its script runs out', async () => {
    const llm = new FakeLlm([reply.text('one')]);
    await llm.complete(ask);
    await expect(llm.complete(ask)).rejects.toMatchObject({
      code: 'E_LLM_BAD_REQUEST',
      message: expect.stringMatching(/no reply scripted/),
    });
    expect(llm.requests).toHaveLength(2);
  });
});

describe('retry', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it.each([
    [{ 'retry-after': '2' }, 2000],
    [{ 'retry-after': '0.05' }, 50],
    [{ 'retry-after-ms': '120', 'retry-after': '9' }, 120],
    [{ 'retry-after': 'Tue, 01 Jan 2030 00:00:03 GMT' }, 3000],
    [{ 'retry-after': 'Mon, 31 Dec 2029 00:00:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('reads %j as %s ms', (headers, expected) => {
    expect(parseRetryAfter(new Headers(headers), now)).toBe(expected);
  });

  it('backs off with full jitter under a cap', () => {
    expect(backoffDelay(1, { baseDelayMs: 100, random: () => 0.999 })).toBe(99);
    expect(backoffDelay(4, { baseDelayMs: 100, random: () => 0.5 })).toBe(400);
    expect(backoffDelay(20, { baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.5 })).toBe(500);
  });

  it('does not wait out a retry-after longer than the cap', async () => {
    let calls = 0;
    const error = new LlmError('E_LLM_RATE_LIMIT', 'quota', { retryAfterMs: 3_600_000 });
    await expect(
      withRetry(
        async () => {
          calls++;
          throw error;
        },
        (e) => e as LlmError,
        { maxRetryAfterMs: 60_000 },
      ),
    ).rejects.toBe(error);
    expect(calls).toBe(1);
  });

  it('abandons an attempt that ignores its abort signal', async () => {
    const never = () => new Promise<never>(() => undefined);
    const attempt = withRetry(never, (e) => e as LlmError, {
      timeoutMs: 20,
      maxAttempts: 2,
      sleep: async () => undefined,
    });
    await expect(attempt).rejects.toMatchObject({ code: 'E_LLM_TIMEOUT', attempts: 2 });
  });
});

describe('cost', () => {
  it('prices dated snapshots and router-prefixed names by their base model', () => {
    expect(priceFor('gpt-4o-mini-2024-07-18')).toEqual(priceFor('gpt-4o-mini'));
    expect(priceFor('openai/gpt-4o')).toEqual(priceFor('gpt-4o'));
    expect(priceFor('claude-opus-4-5-20251101')).toEqual(priceFor('claude-opus-4-5'));
    expect(priceFor('qwen2.5-coder:7b')).toBeUndefined();
    expect(costOf('qwen2.5-coder:7b', { inputTokens: 1e6, outputTokens: 1e6 })).toBe(0);
    expect(
      costOf('local', { inputTokens: 1e6, outputTokens: 5e5 }, { local: { inputPerMTok: 1, outputPerMTok: 4 } }),
    ).toBe(3);
  });

  it("prices cache reads and writes apart from the rest of the input, at the table's cached prices", () => {
    expect(priceFor('claude-sonnet-4-20250514')).toEqual({
      inputPerMTok: 3,
      outputPerMTok: 15,
      cachedInputPerMTok: 0.3,
      cacheWritePerMTok: 3.75,
    });
    expect(costOf('gpt-4o', { inputTokens: 2e6, outputTokens: 0, cachedInputTokens: 1e6 })).toBe(2.5 + 1.25);
    expect(
      costOf('claude-sonnet-4', { inputTokens: 3e6, outputTokens: 0, cachedInputTokens: 1e6, cacheWriteTokens: 1e6 }),
    ).toBeCloseTo(3 + 0.3 + 3.75, 10);
    // A price without cached rates bills cached input as input.
    expect(
      costOf(
        'local',
        { inputTokens: 1e6, outputTokens: 0, cachedInputTokens: 5e5 },
        { local: { inputPerMTok: 1, outputPerMTok: 1 } },
      ),
    ).toBe(1);
  });

  it('sums cached input per purpose, and restores a snapshot written before cached input was counted', () => {
    const ledger = new CostLedger({
      previous: {
        total: { calls: 1, cachedCalls: 0, inputTokens: 10, outputTokens: 5, costUsd: 0.1 },
        byPurpose: { reviewer: { calls: 1, cachedCalls: 0, inputTokens: 10, outputTokens: 5, costUsd: 0.1 } },
        byCandidate: {},
        byModel: {},
      } as never,
    });
    ledger.record({
      purpose: 'reviewer',
      model: 'm',
      usage: { inputTokens: 100, outputTokens: 1, cachedInputTokens: 64 },
      costUsd: 0.01,
      cached: false,
    });
    expect(ledger.snapshot().byPurpose['reviewer']).toEqual({
      calls: 2,
      cachedCalls: 0,
      inputTokens: 110,
      outputTokens: 6,
      cachedInputTokens: 64,
      cacheWriteTokens: 0,
      costUsd: 0.11,
    });
  });

  it('carries a batch ledger across a resume and reports what is left', () => {
    const first = new CostLedger({ batchId: 'b', budget: { maxUsd: 1, maxTokens: 10_000 } });
    first.record({
      purpose: 'generator',
      candidateId: 'c1',
      model: 'm',
      usage: { inputTokens: 1000, outputTokens: 500 },
      costUsd: 0.25,
      cached: false,
    });
    const resumed = new CostLedger({ budget: first.budget, previous: first.snapshot() });
    resumed.record({
      purpose: 'generator',
      candidateId: 'c1',
      model: 'm',
      usage: { inputTokens: 1000, outputTokens: 500 },
      costUsd: 0,
      cached: true,
    });
    expect(resumed.snapshot()).toMatchObject({
      batchId: 'b',
      total: { calls: 2, cachedCalls: 1, inputTokens: 1000, costUsd: 0.25 },
    });
    const held = resumed.reserve({ tokens: 1000, usd: 0.5 });
    expect(resumed.remaining()).toEqual({ usd: 0.25, tokens: 7500 });
    expect(() => resumed.reserve({ tokens: 1, usd: 0.3 })).toThrow(expect.objectContaining({ code: 'E_LLM_BUDGET' }));
    held.release();
    expect(resumed.remaining()).toEqual({ usd: 0.75, tokens: 8500 });
  });

  it(
    'refuses every call to an unpriced model under a dollar budget alone, cached or not; a ' +
      'token budget lets it run',
    async () => {
      const cache = new MemoryCache();
      const warm = new FakeLlm([reply.text('warm')], {
        model: 'local-model',
        cache,
        ledger: new CostLedger({ budget: { maxUsd: 1, maxTokens: 1e9 } }),
      });
      await warm.complete({ messages: [{ role: 'user', content: 'hi' }] });
      const ledger = new CostLedger({ budget: { maxUsd: 1 } });
      const llm = new FakeLlm([reply.text('never')], { model: 'local-model', cache, ledger });
      await expect(llm.complete({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
        code: 'E_LLM_BUDGET',
        message: expect.stringMatching(
          /no price is known for the model "local-model".*envforge\.config\.json.*--max-tokens/,
        ),
      });
      expect(llm.requests).toHaveLength(0);
      expect(ledger.snapshot().total.calls).toBe(0);
      const priced = new FakeLlm([reply.text('paid')], {
        model: 'local-model',
        cache: false,
        prices: { 'local-model': { inputPerMTok: 1, outputPerMTok: 1 } },
        ledger: new CostLedger({ budget: { maxUsd: 1 } }),
      });
      expect((await priced.complete({ messages: [{ role: 'user', content: 'hi' }] })).text).toBe('paid');
    },
  );
});

describe('cache', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'envforge-cache-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const response = { text: 't', usage: { inputTokens: 1, outputTokens: 2 }, model: 'm', finishReason: 'stop' };

  it('keys equal requests equally whatever their key order', () => {
    expect(cacheKey({ a: 1, b: { c: 2, d: 3 } })).toBe(cacheKey({ b: { d: 3, c: 2 }, a: 1 }));
    expect(cacheKey({ a: 1 })).not.toBe(cacheKey({ a: 2 }));
  });

  it('writes atomically, leaving no temporary files, and reads back', async () => {
    const cache = new DiskCache(dir);
    const key = cacheKey({ q: 1 });
    await Promise.all(Array.from({ length: 8 }, () => cache.set(key, response)));
    expect(await cache.get(key)).toEqual(response);
    expect(readdirSync(join(dir, key.slice(0, 2)))).toEqual([`${key}.json`]);
  });

  it('treats a corrupt or foreign entry as a miss', async () => {
    const key = cacheKey({ q: 2 });
    mkdirSync(join(dir, key.slice(0, 2)));
    writeFileSync(join(dir, key.slice(0, 2), `${key}.json`), '{"key": "trunc');
    expect(await new DiskCache(dir).get(key)).toBeUndefined();
    writeFileSync(join(dir, key.slice(0, 2), `${key}.json`), JSON.stringify({ key: 'other', response }));
    expect(await new DiskCache(dir).get(key)).toBeUndefined();
  });
});

describe('structured output helpers', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['Here you go:\n```json\n{"a":1}\n```\nDone.', { a: 1 }],
    ['The answer is {"a": [1, 2]} as requested.', { a: [1, 2] }],
    ['Sure! {"a": "x}"} (note: {b} is a placeholder)', { a: 'x}' }],
    ['```\n{"a":1}\n```', { a: 1 }],
  ])('parses %j', (text, value) => {
    expect(parseJsonText(text)).toEqual({ ok: true, value });
  });

  it('judges every JSON value in prose against the schema: a stray example before the answer is fine', async () => {
    const llm = new FakeLlm([reply.text('Format: {"x": 1}. My answer:\n{"name": "ok", "n": 3}\nThanks!')], {
      nativeStructured: false,
    });
    const out = await llm.structured({
      messages: [{ role: 'user', content: 'q' }],
      schema: z.object({ name: z.string(), n: z.number() }),
      schemaName: 'thing',
    });
    expect(out.value).toEqual({ name: 'ok', n: 3 });
    expect(llm.requests).toHaveLength(1);
  });

  it('marks a schema with optional fields as not strict-compatible', () => {
    expect(toOutputSchema(z.object({ a: z.string() })).strict).toBe(true);
    expect(toOutputSchema(z.object({ a: z.string().optional() })).strict).toBe(false);
  });
});

describe('provider selection', () => {
  let cwd: string;
  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'envforge-select-'));
  });
  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  const writeConfig = (config: object, name = 'envforge.config.json') =>
    writeFileSync(join(cwd, name), JSON.stringify(config));
  const select = (input: SelectInput) => selectProvider({ cwd, env: {}, ...input }).description;

  it('with nothing configured, says none', () => {
    expect(select({})).toEqual({ provider: 'none', source: 'none' });
    expect(() => selectProvider({ cwd, env: {} }).create()).toThrow(/No LLM is configured/);
  });

  it('prefers flags over env over the config file', () => {
    writeConfig({ provider: 'anthropic', model: 'claude-from-config' });
    const env = { ENVFORGE_PROVIDER: 'openai', ENVFORGE_MODEL: 'gpt-from-env', OPENAI_API_KEY: 'k' };
    expect(select({})).toEqual({ provider: 'anthropic', model: 'claude-from-config', source: 'config' });
    expect(select({ env })).toEqual({ provider: 'openai', model: 'gpt-from-env', source: 'env' });
    expect(
      select({ env, flags: { provider: 'openai', model: 'gpt-from-flag', baseUrl: 'http://127.0.0.1:9/v1' } }),
    ).toEqual({
      provider: 'openai',
      model: 'gpt-from-flag',
      baseUrl: 'http://127.0.0.1:9/v1',
      source: 'flag',
    });
    expect(select({ env, flags: { provider: 'offline' } })).toEqual({ provider: 'offline', source: 'flag' });
  });

  it('builds no LLM client for the offline provider (the CLI uses the offline author instead)', () => {
    const selection = selectProvider({ cwd, env: {}, flags: { provider: 'offline' } });
    expect(() => selection.create()).toThrow(/the offline author is not an LLM client/);
    expect(describeProvider(selection.description)).toBe('LLM: offline author (from flag)');
  });

  it('takes a model only from a layer that names no provider or the chosen one', () => {
    writeConfig({ provider: 'anthropic', model: 'claude-from-config' });
    expect(select({ flags: { provider: 'openai' }, env: { OPENAI_API_KEY: 'k' } })).toMatchObject({
      provider: 'openai',
      model: 'gpt-4.1-mini',
    });
  });

  it('reads a base URL as an OpenAI-compatible server and needs a model for it', () => {
    const selection = selectProvider({ cwd, env: { ENVFORGE_BASE_URL: 'http://127.0.0.1:11434/v1' } });
    expect(selection.description).toEqual({ provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', source: 'env' });
    expect(() => selection.create()).toThrow(/--model/);
    expect(selection.create({ model: 'qwen2.5-coder' }).model).toBe('qwen2.5-coder');
  });

  it('infers the provider from an API key only when nothing names one', () => {
    expect(select({ env: { ANTHROPIC_API_KEY: 'k' } })).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      source: 'env',
    });
    writeConfig({ provider: 'anthropic' });
    expect(select({ env: { OPENAI_API_KEY: 'k' } })).toMatchObject({ provider: 'anthropic', source: 'config' });
  });

  it('reads --config PATH with prices and cache settings, and rejects bad ones', () => {
    writeConfig(
      {
        provider: 'openai',
        model: 'my-model',
        prices: { 'my-model': { inputPerMTok: 1, outputPerMTok: 2 } },
        cache: { dir: 'c' },
        other: 1,
      },
      'alt.json',
    );
    const s = selectProvider({ cwd, env: { OPENAI_API_KEY: 'k' }, flags: { config: 'alt.json' } });
    expect(s.prices['my-model']).toEqual({ inputPerMTok: 1, outputPerMTok: 2 });
    expect(s.cache).toEqual({ enabled: true, dir: join(cwd, 'c') });
    expect(selectProvider({ cwd, env: {}, flags: { config: 'alt.json', noCache: true } }).cache.enabled).toBe(false);
    expect(() => selectProvider({ cwd, env: {}, flags: { config: 'missing.json' } })).toThrow(/no such file/);
    expect(() => selectProvider({ cwd, env: {}, flags: { provider: 'gemini' } })).toThrow(/unknown provider/);
    writeConfig({ provider: 'gemini' });
    expect(() => selectProvider({ cwd, env: {} })).toThrow(/invalid LLM settings/);
  });

  it('builds a working client from the selection', async () => {
    const server = await startFakeOpenAi({ script: [reply.text('hello from the selection')] });
    try {
      const s = selectProvider({ cwd, env: {}, flags: { baseUrl: server.baseUrl, model: 'local', noCache: true } });
      expect(describeProvider(s.description)).toBe(`LLM: openai local at ${server.baseUrl} (from flag)`);
      expect((await s.create().complete(ask)).text).toBe('hello from the selection');
    } finally {
      await server.close();
    }
  });
});
