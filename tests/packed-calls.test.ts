// Calls packed for the pipe (sandbox/packed-calls.ts) and for the crossing into the isolate (worker.ts:
// crossingArgs): only plain episode calls are packed, unpacking gives back what the worker reads of them,
// and packed calls run exactly as the same calls sent as objects.
import { afterAll, describe, expect, it } from 'vitest';
import { packCalls, unpackCalls } from '../sandbox/packed-calls.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult } from '../sandbox/protocol.js';
import { envSource } from './helpers/env-source.js';

const pool = new SandboxPool({ workers: 1 });
afterAll(() => pool.close());

describe('packCalls', () => {
  it('packs plain episodes and gives back their seed, level and responses', () => {
    const calls: Call[] = [
      { op: 'episode', seed: 0, level: 1 },
      { op: 'episode', seed: -0.5, level: Number.NaN, responses: [] },
      { op: 'episode', seed: 2 ** 53 + 2, level: 3, responses: ['a', '<answer>1</answer>'] },
    ];
    const packed = packCalls(calls);
    expect(packed?.seeds).toBeInstanceOf(Float64Array);
    expect(unpackCalls(packed as NonNullable<typeof packed>)).toEqual(calls);
    // Without responses anywhere, none cross.
    expect(packCalls([{ op: 'episode', seed: 1, level: 1, responses: [] }])?.responses).toBeUndefined();
  });

  it('leaves calls that carry anything else as objects', () => {
    const plain: Call = { op: 'episode', seed: 1, level: 1 };
    const others: Call[] = [
      { op: 'rollout', seed: 1, level: 1 },
      { ...plain, keepInstance: false },
      { ...plain, keepInstance: true },
      { ...plain, seed: '1' as unknown as number },
      { ...plain, responses: 'x' as unknown as string[] },
    ];
    for (const other of others) expect(packCalls([plain, other]), JSON.stringify(other)).toBeNull();
  });
});

describe('packed calls in a job', () => {
  it('returns what the same calls return when they cross as objects', async () => {
    const source = envSource();
    const plain: Call[] = Array.from({ length: 40 }, (_, i) => ({ op: 'episode', seed: i * 7919, level: (i % 3) + 1 }));
    // With responses, calls are packed for the pipe but cross into the isolate as objects.
    const withResponses: Call[] = plain.map((c, i) => (i % 5 === 0 ? { ...c, responses: ['<answer>1</answer>', 'no'] } : c));
    const withoutMs = (r: CallResult) => (r.ok ? { ...r, ms: 0, value: { ...(r.value as object), ms: null } } : { ...r, ms: 0 });
    for (const calls of [plain, withResponses]) {
      expect(packCalls(calls)).not.toBeNull();
      // keepInstance: true changes nothing the worker does but keeps the calls from being packed for the pipe
      // and from crossing into the isolate packed.
      const variants = [calls, calls.map((c) => ({ ...c, keepInstance: true }))];
      const runs = await Promise.all(variants.map((c) => pool.run({ source, calls: c })));
      const [packed, ...others] = runs.map((run) => run.results.map(withoutMs));
      expect(packed?.every((r) => r.ok)).toBe(true);
      for (const other of others) expect(packed).toEqual(other);
    }
  });
});
