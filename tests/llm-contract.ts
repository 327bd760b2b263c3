// The LlmClient contract as one shared suite: the openai and anthropic clients (real SDKs against fake
// servers on 127.0.0.1) and the in-process fake all run it, so they behave the same under every fault.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DiskCache } from '../agents/llm/cache.js';
import type { LlmClient, LlmMessage } from '../agents/llm/contract.js';
import type { ClientOptions } from '../agents/llm/core.js';
import { CostLedger } from '../agents/llm/cost.js';
import { LlmError, type LlmErrorCode } from '../agents/llm/errors.js';
import { reply, type FakeReply } from '../agents/llm/fake.js';

/** A request as it reached the wire, in one shape for every protocol. */
export interface SeenRequest {
  system?: string | undefined;
  messages: LlmMessage[];
  maxTokens?: number | undefined;
  stop?: string[] | undefined;
  /** The request asked for native structured output (response_format json_schema / forced tool). */
  native: boolean;
  schemaName?: string | undefined;
}

export interface LlmHarness {
  /** The model name the harness's clients use (priced in the tests through `prices`). */
  model: string;
  client(options?: ClientOptions): LlmClient;
  script(...replies: FakeReply[]): void;
  requests(): SeenRequest[];
  close(): Promise<void>;
}

const Spec = z.object({ name: z.string().regex(/^[a-z-]+$/), levels: z.number().int().min(3).max(20) });
const good = { name: 'interval-merge', levels: 10 };
const ask = (content = 'Propose one spec.') => ({ messages: [{ role: 'user' as const, content }] });
/**
 * Aborts `controller` once the server has seen a request, then after `afterMs`: never too early on a loaded machine.
 */
function abortOnceSent(h: LlmHarness, controller: AbortController, afterMs = 0): void {
  const poll = setInterval(() => {
    if (h.requests().length === 0) return;
    clearInterval(poll);
    setTimeout(() => controller.abort(), afterMs);
  }, 5);
  poll.unref();
}

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof LlmError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

async function expectCode(promise: Promise<unknown>, code: LlmErrorCode): Promise<LlmError> {
  const error = await failure(promise);
  expect(error.code).toBe(code);
  return error;
}

export function llmContract(name: string, make: () => Promise<LlmHarness>): void {
  describe(`${name} (LlmClient contract)`, () => {
    let h: LlmHarness;
    let sleeps: number[];
    let dirs: string[];
    const price = { inputPerMTok: 1, outputPerMTok: 2 };
    /** Fast, observable retries: sleeps are recorded and skipped, jitter is fixed at 0.5. */
    const fast = (extra: ClientOptions = {}): ClientOptions => ({
      prices: { [h.model]: price },
      ...extra,
      retry: {
        sleep: async (ms) => void sleeps.push(ms),
        random: () => 0.5,
        timeoutMs: 5_000,
        maxAttempts: 3,
        ...extra.retry,
      },
    });
    const tempDir = () => {
      const dir = mkdtempSync(join(tmpdir(), 'envforge-llm-cache-'));
      dirs.push(dir);
      return dir;
    };

    beforeEach(async () => {
      h = await make();
      sleeps = [];
      dirs = [];
    });
    afterEach(async () => {
      await h.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    describe('completion', () => {
      it('returns the text with usage, cost, model and finish reason', async () => {
        h.script(reply.text('Hello there.', { inputTokens: 1000, outputTokens: 500 }));
        const r = await h.client(fast()).complete(ask('Say hello.'));
        expect(r).toEqual({
          text: 'Hello there.',
          usage: { inputTokens: 1000, outputTokens: 500 },
          costUsd: 0.002,
          model: h.model,
          cached: false,
          finishReason: 'stop',
        });
      });

      it('puts the system prompt, the conversation, maxTokens and stop sequences on the wire', async () => {
        h.script(reply.text('ok'));
        const messages: LlmMessage[] = [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'reply' },
          { role: 'user', content: 'second' },
        ];
        await h
          .client(fast())
          .complete({ system: 'You write environments.', messages, maxTokens: 321, stop: ['</answer>'] });
        expect(h.requests()).toEqual([
          { system: 'You write environments.', messages, maxTokens: 321, stop: ['</answer>'], native: false },
        ]);
      });

      it('reports output cut off at the token limit as finishReason length, not an error', async () => {
        h.script(reply.truncated('export function gen'));
        const r = await h.client(fast()).complete(ask());
        expect(r.finishReason).toBe('length');
        expect(r.text).toBe('export function gen');
      });
    });

    describe('structured output', () => {
      it('asks for the schema natively and returns the parsed value', async () => {
        h.script(reply.json(good, { inputTokens: 100, outputTokens: 10 }));
        const r = await h.client(fast()).structured({ ...ask(), schema: Spec, schemaName: 'spec' });
        expect(r.value).toEqual(good);
        expect(r.usage).toEqual({ inputTokens: 100, outputTokens: 10 });
        expect(h.requests().map((q) => [q.native, q.schemaName])).toEqual([[true, 'spec']]);
      });

      it('wraps a non-object schema for the wire and unwraps the value', async () => {
        h.script(reply.json({ value: [3, 1, 2] }));
        const r = await h.client(fast()).structured({ ...ask(), schema: z.array(z.number()), schemaName: 'numbers' });
        expect(r.value).toEqual([3, 1, 2]);
      });

      it('re-asks with the parse error after broken JSON, then accepts good JSON and sums the usage', async () => {
        h.script(
          reply.text('{"name": oops', { inputTokens: 10, outputTokens: 5 }),
          reply.json(good, { inputTokens: 20, outputTokens: 7 }),
        );
        const r = await h.client(fast()).structured({ ...ask(), schema: Spec, schemaName: 'spec' });
        expect(r.value).toEqual(good);
        expect(r.usage).toEqual({ inputTokens: 30, outputTokens: 12 });
        const second = h.requests()[1]!;
        expect(second.messages.at(-2)).toEqual({ role: 'assistant', content: '{"name": oops' });
        expect(second.messages.at(-1)?.content).toMatch(/not valid JSON/);
      });

      it('re-asks with the zod error when the JSON does not match the schema', async () => {
        h.script(reply.json({ name: 'Bad Name', levels: 99 }), reply.json(good));
        const r = await h.client(fast()).structured({ ...ask(), schema: Spec, schemaName: 'spec' });
        expect(r.value).toEqual(good);
        const reask = h.requests()[1]!.messages.at(-1)!.content;
        expect(reask).toMatch(/does not match the schema/);
        expect(reask).toMatch(/levels/);
      });

      it('re-asks after truncated JSON, saying it was cut off', async () => {
        h.script(reply.truncated('{"name": "interval-me'), reply.json(good));
        const r = await h.client(fast()).structured({ ...ask(), schema: Spec, schemaName: 'spec' });
        expect(r.value).toEqual(good);
        expect(h.requests()[1]!.messages.at(-1)!.content).toMatch(/cut off/);
      });

      it('fails with E_LLM_BAD_OUTPUT after bounded re-asks, carrying what was spent', async () => {
        h.script(reply.garbage(), reply.garbage(), reply.garbage(), reply.json(good));
        const client = h.client(fast({ structuredAttempts: 3 }));
        const error = await expectCode(
          client.structured({ ...ask(), schema: Spec, schemaName: 'spec' }),
          'E_LLM_BAD_OUTPUT',
        );
        expect(h.requests()).toHaveLength(3);
        expect(error.usage?.outputTokens).toBeGreaterThan(0);
        expect(error.costUsd).toBeGreaterThan(0);
        expect(error.output).toContain('oops');
      });
    });

    describe('retries', () => {
      it('retries a 429 after exactly the retry-after seconds', async () => {
        h.script(reply.rateLimit({ seconds: 0.05 }), reply.text('ok'));
        const r = await h.client(fast()).complete(ask());
        expect(r.text).toBe('ok');
        expect(sleeps).toEqual([50]);
        expect(h.requests()).toHaveLength(2);
      });

      it('prefers retry-after-ms', async () => {
        h.script(reply.rateLimit({ ms: 20, seconds: 9 }), reply.text('ok'));
        await h.client(fast()).complete(ask());
        expect(sleeps).toEqual([20]);
      });

      it('retries 5xx with full-jitter exponential backoff', async () => {
        h.script(reply.serverError(500), reply.serverError(503), reply.text('ok'));
        const r = await h.client(fast({ retry: { baseDelayMs: 100 } })).complete(ask());
        expect(r.text).toBe('ok');
        expect(sleeps).toEqual([50, 100]); // 0.5 × 100·2⁰, 0.5 × 100·2¹
      });

      it('retries a reset connection', async () => {
        h.script(reply.reset(), reply.text('ok'));
        expect((await h.client(fast()).complete(ask())).text).toBe('ok');
        expect(h.requests()).toHaveLength(2);
      });

      it('recovers when a hang past the timeout is followed by an answer', async () => {
        h.script(reply.hang(), reply.text('ok'));
        expect((await h.client(fast({ retry: { timeoutMs: 1_000 } })).complete(ask())).text).toBe('ok');
      });

      it('gives up with E_LLM_TIMEOUT after the bounded attempts when the server hangs', async () => {
        h.script(reply.hang(), reply.hang(), reply.hang());
        const error = await expectCode(
          h.client(fast({ retry: { timeoutMs: 200, maxAttempts: 2 } })).complete(ask()),
          'E_LLM_TIMEOUT',
        );
        expect(error.attempts).toBe(2);
        expect(h.requests()).toHaveLength(2);
      });

      it('gives up with E_LLM_RATE_LIMIT when every attempt is rate limited', async () => {
        h.script(reply.rateLimit(), reply.rateLimit(), reply.rateLimit(), reply.text('too late'));
        const error = await expectCode(h.client(fast()).complete(ask()), 'E_LLM_RATE_LIMIT');
        expect(error.attempts).toBe(3);
        expect(h.requests()).toHaveLength(3);
      });

      it('does not retry an authentication error', async () => {
        h.script(reply.status(401, 'invalid x-api-key'), reply.text('never'));
        await expectCode(h.client(fast()).complete(ask()), 'E_LLM_AUTH');
        expect(h.requests()).toHaveLength(1);
      });
    });

    describe('cancellation', () => {
      it('cancels a call in flight with E_LLM_CANCELLED and no retry', async () => {
        h.script(reply.hang(), reply.text('never'));
        const controller = new AbortController();
        abortOnceSent(h, controller); // in flight: the server holds the request
        await expectCode(h.client(fast()).complete({ ...ask(), signal: controller.signal }), 'E_LLM_CANCELLED');
        expect(h.requests()).toHaveLength(1);
      });

      it('sends nothing for an already aborted signal', async () => {
        h.script(reply.text('never'));
        await expectCode(h.client(fast()).complete({ ...ask(), signal: AbortSignal.abort() }), 'E_LLM_CANCELLED');
        expect(h.requests()).toHaveLength(0);
      });

      it('cancels during a retry-after wait', async () => {
        h.script(reply.rateLimit({ seconds: 30 }), reply.text('never'));
        const controller = new AbortController();
        abortOnceSent(h, controller, 50); // the first request was answered 429: the client is in its 30 s wait
        const client = h.client({ retry: { timeoutMs: 5_000 } }); // the real sleep
        await expectCode(client.complete({ ...ask(), signal: controller.signal }), 'E_LLM_CANCELLED');
        expect(h.requests()).toHaveLength(1); // an uncancelled 30 s wait would have sent the second request
      });
    });

    describe('accounting and budget', () => {
      it('records tokens and dollars per purpose and per candidate', async () => {
        h.script(
          reply.text('spec', { inputTokens: 1000, outputTokens: 100 }),
          reply.json(good, { inputTokens: 2000, outputTokens: 200 }),
          reply.text('fixed', { inputTokens: 3000, outputTokens: 300 }),
        );
        const ledger = new CostLedger({ batchId: 'b1' });
        const client = h.client(fast({ ledger }));
        await client.complete({ ...ask(), purpose: 'architect' });
        await client.structured({
          ...ask(),
          schema: Spec,
          schemaName: 'spec',
          purpose: 'generator',
          candidateId: 'c1',
        });
        await client.complete({ ...ask(), purpose: 'repair', candidateId: 'c1' });
        const s = ledger.snapshot();
        expect(s.total).toMatchObject({ calls: 3, cachedCalls: 0, inputTokens: 6000, outputTokens: 600 });
        expect(s.total.costUsd).toBeCloseTo(0.0072, 10);
        expect(s.byPurpose['architect']).toMatchObject({ calls: 1, inputTokens: 1000 });
        expect(s.byCandidate['c1']).toMatchObject({ calls: 2, inputTokens: 5000, outputTokens: 500 });
        expect(s.byCandidate['c1']!.costUsd).toBeCloseTo(0.006, 10);
      });

      it('refuses a call that could pass the budget, before sending it', async () => {
        h.script(reply.text('never'));
        const ledger = new CostLedger({ budget: { maxUsd: 0.0001 } });
        const client = h.client(fast({ ledger, maxTokens: 1000 })); // up to 1000 output tokens × $2/M = $0.002
        await expectCode(client.complete(ask()), 'E_LLM_BUDGET');
        expect(h.requests()).toHaveLength(0);
      });
    });

    describe('cache', () => {
      it('serves a repeated request from disk: identical, free, and across client instances', async () => {
        h.script(
          reply.text('cached answer', { inputTokens: 1000, outputTokens: 1000 }),
          reply.text('a different answer'),
        );
        const dir = tempDir();
        const request = { ...ask('same prompt'), system: 'sys', maxTokens: 64, temperature: 0 };
        const first = await h.client(fast({ cache: new DiskCache(dir) })).complete(request);
        const ledger = new CostLedger({ budget: { maxUsd: 0 } }); // a replay needs no budget
        const again = await h.client(fast({ cache: new DiskCache(dir), ledger })).complete(request);
        expect(first.cached).toBe(false);
        expect(first.costUsd).toBeGreaterThan(0);
        expect(again).toEqual({ ...first, cached: true, costUsd: 0 });
        expect(h.requests()).toHaveLength(1);
        expect(ledger.totals).toMatchObject({ calls: 1, cachedCalls: 1, costUsd: 0, inputTokens: 0 });
      });

      it('never caches a response that failed its schema: a repeat asks again, a good answer is cached', async () => {
        h.script(reply.garbage(), reply.json(good), reply.json(good));
        const dir = tempDir();
        const request = { ...ask(), schema: Spec, schemaName: 'spec' };
        const first = await h.client(fast({ cache: new DiskCache(dir) })).structured(request);
        expect(first).toMatchObject({ value: good, cached: false });
        expect(h.requests()).toHaveLength(2); // the garbage, then the re-ask
        const again = await h.client(fast({ cache: new DiskCache(dir) })).structured(request);
        expect(again).toMatchObject({ value: good, cached: false });
        expect(h.requests()).toHaveLength(3); // the failed first answer was not replayed
        const third = await h.client(fast({ cache: new DiskCache(dir) })).structured(request);
        expect(third).toMatchObject({ value: good, cached: true, costUsd: 0 });
        expect(h.requests()).toHaveLength(3);
      });

      it('never replays a cached failure (as a cache from an older version may hold)', async () => {
        h.script(reply.json(good));
        const stale = {
          text: 'Sorry, no JSON today.',
          usage: { inputTokens: 1, outputTokens: 1 },
          model: 'm',
          finishReason: 'stop',
        };
        const written: unknown[] = [];
        const cache = {
          get: async () => stale,
          set: async (_key: string, response: unknown) => void written.push(response),
        };
        const value = await h.client(fast({ cache })).structured({ ...ask(), schema: Spec, schemaName: 'spec' });
        expect(value).toMatchObject({ value: good, cached: false });
        expect(h.requests()).toHaveLength(1);
        expect(written).toHaveLength(1);
      });

      it('keys on the full request: other parameters miss', async () => {
        h.script(reply.text('one'), reply.text('two'), reply.text('three'));
        const client = h.client(fast({ cache: new DiskCache(tempDir()) }));
        await client.complete({ ...ask(), seed: 1 });
        expect((await client.complete({ ...ask(), seed: 2 })).text).toBe('two');
        expect((await client.complete({ ...ask(), seed: 1, maxTokens: 10 })).text).toBe('three');
      });

      it('sends every request when the cache is off', async () => {
        h.script(reply.text('one'), reply.text('two'));
        const client = h.client(fast({ cache: false }));
        expect((await client.complete(ask())).text).toBe('one');
        expect((await client.complete(ask())).cached).toBe(false);
        expect(h.requests()).toHaveLength(2);
      });
    });
  });
}
