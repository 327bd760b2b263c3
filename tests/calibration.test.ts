// Solver calibration over a real sandbox with a scripted solver: pass rates per level, the learnable band,
// solver failures as failed samples, distinct seeds per sample, and budget/cancel errors that propagate.
import { afterAll, describe, expect, it } from 'vitest';
import type { WireRequest } from '../agents/llm/contract.js';
import { MemoryCache } from '../agents/llm/cache.js';
import { calibrate, DEFAULT_CALIBRATION_OPTIONS } from '../pipeline/calibration.js';
import { SandboxPool } from '../sandbox/pool.js';
import { envSource } from './helpers/env-source.js';
import { CostLedger } from '../agents/llm/cost.js';
import { FakeLlm, reply, type FakeReply } from '../agents/llm/fake.js';

const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());

/** Three levels; the prompt names its level so the scripted solver can behave per level. */
const source = envSource({
  generate:
    "const a = rng.int(1, 1000 * level); return { prompt: 'Level ' + level + ': What is ' + a + ' + 1? " +
    "Answer as <answer>N</answer>.', answer: a + 1 };",
});

const parse = (request: WireRequest) => {
  const text = request.messages.at(-1)?.content ?? '';
  const match = /^Level (\d+): What is (\d+) \+ 1\?/.exec(text);
  if (!match) throw new Error(`unexpected prompt: ${text}`);
  return { level: Number(match[1]), a: Number(match[2]), seed: request.seed ?? -1 };
};
const right = (request: WireRequest) => reply.text(`<answer>${parse(request).a + 1}</answer>`);
const wrong = (request: WireRequest) => reply.text(`<answer>${parse(request).a + 2}</answer>`);

/** Right at level 1, right on even seeds at level 2 (half of seeds 0..3), wrong at level 3. */
const graded = (request: WireRequest): FakeReply => {
  const { level, seed } = parse(request);
  if (level === 1) return right(request);
  if (level === 2) return seed % 2 === 0 ? right(request) : wrong(request);
  return wrong(request);
};

describe('calibrate', () => {
  it('measures pass rates per level and admits on a learnable level', async () => {
    const ledger = new CostLedger();
    const solver = new FakeLlm(graded, { ledger });
    const result = await calibrate(solver, pool, source, 3, {}, { candidateId: 'adder' });
    expect(result.curve.map((c) => c.passRate)).toEqual([1, 0.5, 0]);
    expect(result.curve.map((c) => c.meanScore)).toEqual([1, 0.5, 0]);
    expect(result.curve.map((c) => c.samples)).toEqual([4, 4, 4]);
    expect(result.learnableLevels).toEqual([2]);
    expect(result.entryLevel).toBe(2);
    expect(result.admitted).toBe(true);
    expect(result.calls).toBe(12);
    expect(result.errors).toEqual([]);
    expect(solver.requests).toHaveLength(12);
    expect(solver.requests.every((r) => r.maxTokens === DEFAULT_CALIBRATION_OPTIONS.maxTokens)).toBe(true);
    const snapshot = ledger.snapshot();
    expect(snapshot.byPurpose['solver']).toMatchObject({ calls: 12 });
    expect(snapshot.byCandidate['adder']).toMatchObject({ calls: 12 });
  });

  it('admits nothing when the solver always succeeds (every level too easy)', async () => {
    const result = await calibrate(new FakeLlm(right), pool, source, 3);
    expect(result.curve.map((c) => c.passRate)).toEqual([1, 1, 1]);
    expect(result.learnableLevels).toEqual([]);
    expect(result.entryLevel).toBeNull();
    expect(result.admitted).toBe(false);
  });

  it('admits nothing when the solver always fails (every level too hard)', async () => {
    const result = await calibrate(new FakeLlm(wrong), pool, source, 3);
    expect(result.curve.map((c) => c.passRate)).toEqual([0, 0, 0]);
    expect(result.admitted).toBe(false);
    expect(result.entryLevel).toBeNull();
  });

  it('honours the band bounds inclusively and the sample count', async () => {
    const result = await calibrate(new FakeLlm(graded), pool, source, 3, { samplesPerLevel: 2, band: [0.5, 1] });
    expect(result.curve.map((c) => c.samples)).toEqual([2, 2, 2]);
    expect(result.curve.map((c) => c.passRate)).toEqual([1, 0.5, 0]);
    expect(result.learnableLevels).toEqual([1, 2]);
    expect(result.entryLevel).toBe(1);
  });

  it('counts solver errors as failed samples and tallies them', async () => {
    // Seed 1 always gets a non-retryable 400; the rest are answered correctly.
    const solver = new FakeLlm((request) =>
      request.seed === 1 ? reply.status(400, 'context too long') : right(request),
    );
    const result = await calibrate(solver, pool, source, 3);
    expect(result.curve.map((c) => c.passRate)).toEqual([0.75, 0.75, 0.75]);
    expect(result.curve.map((c) => c.errors)).toEqual([1, 1, 1]);
    expect(result.errors).toHaveLength(3);
    expect(result.errors.every((e) => e.source === 'solver' && e.code === 'E_LLM_BAD_REQUEST' && e.seed === 1)).toBe(
      true,
    );
    expect(result.calls).toBe(12);
    expect(result.learnableLevels).toEqual([1, 2, 3]);
  });

  it('asks k samples with distinct seeds, so each is its own cache entry', async () => {
    // A fixed prompt per level: only the seed tells the samples apart.
    const fixed = envSource({
      generate: "return { prompt: 'Level ' + level + ': What is 5 + 1? Answer as <answer>N</answer>.', answer: 6 };",
    });
    const cache = new MemoryCache();
    const solver = new FakeLlm(graded, { cache });
    const result = await calibrate(solver, pool, fixed, 2, { samplesPerLevel: 4, concurrency: 2 });
    expect(solver.requests).toHaveLength(8);
    for (const level of [1, 2]) {
      const seeds = solver.requests
        .filter((r) => parse(r).level === level)
        .map((r) => r.seed)
        .sort();
      expect(seeds).toEqual([0, 1, 2, 3]);
    }
    expect(result.curve.map((c) => c.passRate)).toEqual([1, 0.5]);
    // Again: every sample is a cache hit, and the curve is the same.
    const again = await calibrate(solver, pool, fixed, 2, { samplesPerLevel: 4, concurrency: 2 });
    expect(solver.requests).toHaveLength(8);
    expect(again.curve).toEqual(result.curve);
  });

  it('propagates a budget error', async () => {
    const ledger = new CostLedger({ budget: { maxTokens: 10 } });
    const solver = new FakeLlm(right, { ledger });
    await expect(calibrate(solver, pool, source, 3)).rejects.toMatchObject({ code: 'E_LLM_BUDGET' });
    expect(solver.requests).toHaveLength(0);
  });

  it('propagates cancellation', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      calibrate(new FakeLlm(right), pool, source, 3, {}, { signal: controller.signal }),
    ).rejects.toMatchObject({ code: 'E_LLM_CANCELLED' });
  });

  it('counts an instance that cannot be generated as a failed sample', async () => {
    const broken = envSource({
      generate:
        "if (level === 3) throw new Error('no level 3'); const a = rng.int(1, 10); return { prompt: 'Level ' " +
        "+ level + ': What is ' + a + ' + 1?', answer: a + 1 };",
    });
    const solver = new FakeLlm(right);
    const result = await calibrate(solver, pool, broken, 3);
    expect(result.curve.map((c) => c.passRate)).toEqual([1, 1, 0]);
    expect(result.calls).toBe(8);
    expect(result.errors.filter((e) => e.source === 'episode')).toHaveLength(4);
    expect(result.learnableLevels).toEqual([]);
  });
});
