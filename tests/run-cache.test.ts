// The test suite's once-per-run work (tests/helpers/run-cache.ts): a value is computed once and read after, a
// refused value is computed again, and a lock left by a process that ended is taken over.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { once, reportKey, runDir } from './helpers/run-cache.js';

const key = (name: string) => `run-cache-test-${name}-${process.pid}`;

describe('once', () => {
  it('computes a value once and gives every later caller the same value', async () => {
    let computed = 0;
    expect(await once(key('a'), async () => ({ n: ++computed }))).toEqual({ n: 1 });
    expect(await once(key('a'), async () => ({ n: ++computed }))).toEqual({ n: 1 });
    expect(computed).toBe(1);
  });

  it('computes again after a value it was told not to keep', async () => {
    const rejected = await once(
      key('b'),
      async () => ({ verdict: 'reject' }),
      5_000,
      (v) => v.verdict === 'admit',
    );
    expect(rejected).toEqual({ verdict: 'reject' });
    expect(
      await once(
        key('b'),
        async () => ({ verdict: 'admit' }),
        5_000,
        (v) => v.verdict === 'admit',
      ),
    ).toEqual({ verdict: 'admit' });
  });

  it('takes over a lock whose process has ended', async () => {
    const lock = join(runDir(), `${key('c')}.lock`);
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), '2147483646'); // no such process
    expect(await once(key('c'), async () => 'computed here', 5_000)).toBe('computed here');
  });

  it('waits for a lock held by a live process, and says so when the wait runs out', async () => {
    const lock = join(runDir(), `${key('d')}.lock`);
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(process.pid));
    await expect(once(key('d'), async () => 'never', 600)).rejects.toThrow(/waited 600 ms for run-cache-test-d/);
  });
});

describe('reportKey', () => {
  const episodic = { randomPerLevel: 4, finishAloneSamples: 16 } as never;
  const pool = {} as never; // not part of the key
  it('is one key for one validation, whatever order its options are written in', () => {
    expect(reportKey('a', { pool, validationSeed: 11, options: { episodic, seedsPerLevel: 6 } })).toBe(
      reportKey('a', { options: { seedsPerLevel: 6, episodic }, validationSeed: 11, pool }),
    );
  });
  it('tells apart another source, validation seed or option', () => {
    const keys = [
      reportKey('a', { pool, validationSeed: 11 }),
      reportKey('b', { pool, validationSeed: 11 }),
      reportKey('a', { pool, validationSeed: 22 }),
      reportKey('a', { pool, validationSeed: 11, options: { seedsPerLevel: 6 } }),
      reportKey('a', { pool, validationSeed: 11, options: { seedsPerLevel: 7 } }),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });
});
