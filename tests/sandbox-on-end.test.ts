// A job's onEnd (sandbox/pool-options.ts): called once when the job leaves its worker with a result, the worker already
// free, before the job's own promise settles its callers, so a job handed to the pool there (the sandbox gate's next)
// starts at once, and safely even where the worker that ran it is being replaced.
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool, type RunRequest } from '../sandbox/pool.js';
import type { Call } from '../sandbox/protocol.js';
import { envSource } from './helpers/env-source.js';

/** A pool that says whether any of its workers holds a job. */
class WatchedPool extends SandboxPool {
  busy(): boolean {
    return [...this.workers].some((w) => w.job !== null);
  }
}

const options = { workers: 1, graceMs: 500, limits: { callTimeoutMs: 1_000, loadTimeoutMs: 2_000 } };
const pool = new WatchedPool(options);
afterAll(() => pool.close());

const calls = (levels: number[]): Call[] => levels.map((level) => ({ op: 'episode', seed: 3, level }));
const request = (onEnd?: () => void): RunRequest => ({
  source: envSource(),
  calls: calls([1]),
  ...(onEnd ? { onEnd } : {}),
});

describe("a pool job's onEnd", () => {
  it("is called once, before the job's callers hear of it; a job given there is on the worker by then", async () => {
    const log: string[] = [];
    let next: Promise<unknown> | undefined;
    const first = pool
      .run(
        request(() => {
          log.push('end');
          next = pool.run(request(() => log.push('next end')));
        }),
      )
      .then((r) => log.push(`then ${r.results[0]?.ok} busy ${pool.busy()}`));
    await first;
    await next;
    expect(log).toEqual(['end', 'then true busy true', 'next end']);
  });

  it('gives a job handed in to a fresh worker where the one that ran the job retires (maxJobsPerWorker)', async () => {
    const retiring = new WatchedPool({ ...options, maxJobsPerWorker: 1 });
    try {
      let next: Promise<{ results: Array<{ ok: boolean }> }> | undefined;
      await retiring.run(request(() => (next = retiring.run(request()))));
      expect((await next)?.results.map((r) => r.ok)).toEqual([true]);
    } finally {
      await retiring.close();
    }
  });

  it('is called for each job travelling together, and for a job settled before it started (budget spent)', async () => {
    const ended: string[] = [];
    const runs = pool.runTogether(['a', 'b', 'c'].map((name) => request(() => ended.push(name))));
    await Promise.all(runs);
    expect(ended).toEqual(['a', 'b', 'c']);
    const spent = await pool.run({
      ...request(() => ended.push('spent')),
      limits: { workBudget: { totalMs: 10, spentMs: 10 } },
    });
    expect(spent.results[0]).toMatchObject({ ok: false, code: 'E_TOO_SLOW' });
    expect(ended).toEqual(['a', 'b', 'c', 'spent']);
  });

  it('is not called for a job the pool rejects (closed): its caller learns of it by the rejection', async () => {
    const closed = new WatchedPool(options);
    await closed.close();
    let ended = 0;
    await expect(closed.run(request(() => ended++))).rejects.toThrow(/closed/);
    expect(ended).toBe(0);
  });
});
