// The service's one fair scheduler of sandbox jobs (serve/sandbox-gate.ts): clients served by least charge, a job
// charged by its cost, never more jobs in the pool than its concurrency.
import { describe, expect, it } from 'vitest';
import { SandboxGate } from '../serve/sandbox-gate.js';

/** A job the test finishes by hand, recording when it started. */
function held(log: string[], name: string) {
  let finish = () => {};
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { job: () => (log.push(name), done), finish: () => finish() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('SandboxGate', () => {
  it("lets another client's cheap job go before a client's second costly one, whatever arrived first", async () => {
    const gate = new SandboxGate(1);
    const log: string[] = [];
    const [a1, a2, b1] = [held(log, 'a1'), held(log, 'a2'), held(log, 'b1')];
    const runs = [gate.run('a', 4, a1.job), gate.run('a', 4, a2.job)];
    await tick();
    runs.push(gate.run('b', 1, b1.job));
    expect(log).toEqual(['a1']); // one job in the pool at once
    a1.finish();
    await tick();
    expect(log).toEqual(['a1', 'b1']);
    b1.finish();
    await tick();
    expect(log).toEqual(['a1', 'b1', 'a2']);
    a2.finish();
    await Promise.all(runs);
  });

  it('charges by cost: a client of one-budget jobs gets a turn per budget the costly client spends', async () => {
    const gate = new SandboxGate(1);
    const log: string[] = [];
    const jobs = [
      ...['h1', 'h2'].map((n) => ({ owner: 'heavy', cost: 3, h: held(log, n) })),
      ...['l1', 'l2', 'l3', 'l4', 'l5', 'l6'].map((n) => ({ owner: 'light', cost: 1, h: held(log, n) })),
    ];
    const runs = jobs.map(({ owner, cost, h }) => gate.run(owner, cost, h.job));
    for (const { h } of jobs) {
      await tick();
      h.finish();
    }
    for (let i = 0; i < jobs.length; i++) {
      await tick();
      for (const { h } of jobs) h.finish();
    }
    await Promise.all(runs);
    // Each heavy job is 3 light ones: the light client's third job goes before the heavy client's second.
    expect(log.indexOf('l3')).toBeLessThan(log.indexOf('h2'));
    expect(log.indexOf('h2')).toBeLessThan(log.indexOf('l6'));
  });

  it("frees a job's place when it says it is done (its worker is free), once, before its promise settles", async () => {
    const gate = new SandboxGate(1);
    const log: string[] = [];
    const [a, b, c] = [held(log, 'a'), held(log, 'b'), held(log, 'c')];
    let aDone = () => {};
    const runs = [
      gate.run('x', 1, (done) => ((aDone = done), a.job())),
      gate.run('y', 1, b.job),
      gate.run('z', 1, c.job),
    ];
    await tick();
    expect(log).toEqual(['a']);
    aDone();
    expect(log).toEqual(['a', 'b']); // at once, a's promise still pending
    aDone();
    a.finish();
    await tick();
    expect(log).toEqual(['a', 'b']); // a's second done and its promise free nothing more: b holds the one place
    b.finish();
    await tick();
    expect(log).toEqual(['a', 'b', 'c']);
    c.finish();
    await Promise.all(runs);
  });

  it('passes on a failing job, and its slot serves the next', async () => {
    const gate = new SandboxGate(1);
    await expect(gate.run('a', 1, () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(
      gate.run('a', 1, () => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    await expect(gate.run('b', 1, async () => 7)).resolves.toBe(7);
    expect(gate.waitingCount).toBe(0);
  });
});
