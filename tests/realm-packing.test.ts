// Realm packing (RunRequest.lifetime): a fresh job may run in a realm that earlier jobs of the same lifetime left room
// in, and gets the results a new realm gives; any other job, or one that would pass the lifetime, gets a new realm.
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool, type RunRequest } from '../sandbox/pool.js';
import type { Call, CallResult, EpisodeValue } from '../sandbox/protocol.js';
import { envSource } from './helpers/env-source.js';

const pool = new SandboxPool({ workers: 1 });
afterAll(() => pool.close());

const source = envSource();
const calls = (seeds: number[]): Call[] => seeds.map((seed) => ({ op: 'episode', seed, level: 2 }));
const prompts = (results: CallResult[]) =>
  results.map((r) => (r.ok ? ((r.value as EpisodeValue).instance as { prompt: string }).prompt : r.code));

/** The job's prompts and whether it began a setup of its own (a new realm). */
async function run(request: Omit<RunRequest, 'source'>): Promise<{ prompts: string[]; built: boolean }> {
  const before = pool.setups;
  const result = await pool.run({ source, ...request });
  return { prompts: prompts(result.results), built: pool.setups > before };
}

describe('realm packing', () => {
  it('runs fresh jobs of one lifetime in one realm until one would pass it, as new realms would', async () => {
    const first = await run({ calls: calls([1, 2, 3]), fresh: true, lifetime: 8 });
    const second = await run({ calls: calls([4, 5, 6]), fresh: true, lifetime: 8 });
    const third = await run({ calls: calls([7, 8, 9]), fresh: true, lifetime: 8 });
    expect([first.built, second.built, third.built]).toEqual([true, false, true]);
    const alone = await run({ calls: calls([1, 2, 3, 4, 5, 6, 7, 8, 9]), fresh: true });
    expect([...first.prompts, ...second.prompts, ...third.prompts]).toEqual(alone.prompts);
  });

  it('gives a fresh job without a lifetime, or one of another lifetime, a new realm', async () => {
    await run({ calls: calls([1]), fresh: true, lifetime: 8 });
    expect((await run({ calls: calls([2]), fresh: true })).built).toBe(true);
    await run({ calls: calls([1]), fresh: true, lifetime: 8 });
    expect((await run({ calls: calls([2]), fresh: true, lifetime: 9 })).built).toBe(true);
  });

  it('packs nothing into a realm another kind of job ran in', async () => {
    await run({ calls: calls([1]), fresh: true, lifetime: 8 });
    expect((await run({ calls: calls([2]) })).built).toBe(false);
    expect((await run({ calls: calls([3]), fresh: true, lifetime: 8 })).built).toBe(true);
  });
});
