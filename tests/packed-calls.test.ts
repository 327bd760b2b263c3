// Calls packed for the pipe (sandbox/packed-calls.ts): only plain episode calls are packed, unpacking gives
// back what the worker reads of them, and a packed job runs exactly as the same calls sent as objects.
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
      { ...plain, keep: true },
      { ...plain, sameAs: 0 },
      { ...plain, seed: '1' as unknown as number },
      { ...plain, responses: 'x' as unknown as string[] },
    ];
    for (const other of others) expect(packCalls([plain, other]), JSON.stringify(other)).toBeNull();
  });
});

describe('a packed job', () => {
  it('returns what the same calls return when they cross as objects', async () => {
    const source = envSource();
    const calls: Call[] = Array.from({ length: 40 }, (_, i) => ({ op: 'episode', seed: i * 7919, level: (i % 3) + 1, ...(i % 5 === 0 ? { responses: ['<answer>1</answer>', 'no'] } : {}) }));
    expect(packCalls(calls)).not.toBeNull();
    // keepInstance: true changes nothing the worker does, but keeps the calls from being packed.
    const asObjects = calls.map((c) => ({ ...c, keepInstance: true }));
    expect(packCalls(asObjects)).toBeNull();
    const withoutMs = (r: CallResult) => (r.ok ? { ...r, ms: 0, value: { ...(r.value as object), ms: null } } : { ...r, ms: 0 });
    const [packed, objects] = await Promise.all([pool.run({ source, calls }), pool.run({ source, calls: asObjects })]);
    expect(packed.results.every((r) => r.ok)).toBe(true);
    expect(packed.results.map(withoutMs)).toEqual(objects.results.map(withoutMs));
  });
});
