// Calls packed for the pipe (sandbox/packed-calls.ts) and for the crossing into the isolate (crossing.ts:
// crossingArgs): only plain episode calls are packed, unpacking gives back what the worker reads of them,
// and packed calls run exactly as the same calls sent as objects.
import { afterAll, describe, expect, it } from 'vitest';
import { packCalls, unpackCalls } from '../sandbox/packed-calls.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { Call, CallResult, EpisodeValue } from '../sandbox/protocol.js';
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
  const withoutMs = (r: CallResult) =>
    r.ok ? { ...r, ms: 0, value: { ...(r.value as object), ms: null } } : { ...r, ms: 0 };
  /** A call whose response is not a string: the whole crossing then goes into the isolate as JSON objects. */
  const unpackable = { op: 'episode', seed: 5, level: 1, responses: [7 as unknown as string] } satisfies Call;

  it('returns what the same calls return when they cross as objects', async () => {
    const source = envSource();
    const plain: Call[] = Array.from({ length: 40 }, (_, i) => ({ op: 'episode', seed: i * 7919, level: (i % 3) + 1 }));
    const withResponses: Call[] = plain.map((c, i) =>
      i % 5 === 0 ? { ...c, responses: ['<answer>1</answer>', 'no'] } : c,
    );
    for (const calls of [plain, withResponses]) {
      expect(packCalls(calls)).not.toBeNull();
      // keepInstance: true keeps the calls from being packed for the pipe, not for the isolate; the last variant
      // crosses as objects.
      const variants = [calls, calls.map((c) => ({ ...c, keepInstance: true })), [...calls, unpackable]];
      const runs = await Promise.all(variants.map((c) => pool.run({ source, calls: c })));
      const [packed, ...others] = runs.map((run) => run.results.slice(0, calls.length).map(withoutMs));
      expect(packed?.every((r) => r.ok)).toBe(true);
      for (const other of others) expect(packed).toEqual(other);
    }
  });

  it('carries responses into the isolate exactly, and leaves out only the instances not asked for', async () => {
    // verify echoes the response it was given, so the feedback shows what crossed.
    const source = envSource({ verify: "return { score: 0, feedback: typeof response + ':' + response };" });
    const tricky = [
      '',
      '"quoted" \\ back\\slash',
      'line\nbreak\ttab',
      'ünïcödé ✓ 漢字 🙂',
      '\ud800 lone',
      '\u0000nul',
      '</answer><answer>',
    ];
    const calls: Call[] = tricky.map((r, i) => ({
      op: 'episode',
      seed: i,
      level: 1,
      responses: [r, r.toUpperCase()],
      keepInstance: i % 2 === 0,
    }));
    for (const variant of [calls, [...calls, unpackable]]) {
      const { results } = await pool.run({ source, calls: variant });
      calls.forEach((call, i) => {
        const value = (results[i] as Extract<CallResult, { ok: true }>).value as EpisodeValue;
        expect(
          value.verdicts.slice(1).map((v) => (v.ok ? (v.value as { feedback: string }).feedback : v.code)),
        ).toEqual((call.responses ?? []).map((r) => `string:${r}`));
        expect(value.instance === null).toBe(!call.keepInstance);
      });
    }
  });
});
