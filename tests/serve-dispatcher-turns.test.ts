// The dispatcher takes a module's waiting calls into its next job with their clients in turn (serve/dispatcher.ts):
// one client's backlog for a module delays another client's call by one job at most, never by the whole backlog
// (before, the queue was first come first served, so a client's single step waited behind thousands of another's).
import { describe, expect, it } from 'vitest';
import type { SandboxPool, RunRequest, RunResult } from '../sandbox/pool.js';
import type { Call } from '../sandbox/protocol.js';
import { Dispatcher } from '../serve/dispatcher.js';

/** A pool of one worker that runs nothing until told: it records each job's calls and answers them when released. */
function heldPool() {
  const jobs: Array<{ calls: Call[]; release(): void }> = [];
  const pool = {
    options: { workers: 1 },
    runTogether: (requests: RunRequest[]) =>
      requests.map(
        (r) =>
          new Promise<RunResult>((resolve) => {
            const calls = r.calls ?? [];
            const results = calls.map(() => ({ ok: true as const, value: null, ms: 0 }));
            jobs.push({ calls, release: () => resolve({ load: {} as RunResult['load'], results, wallMs: 0 }) });
          }),
      ),
  };
  return { pool: pool as unknown as SandboxPool, jobs };
}

const call = (n: number) => ({ call: { op: 'generate', seed: n, level: 1 } as unknown as Call, chars: 10 });
const calls = (n: number) => Array.from({ length: n }, (_, i) => call(i));
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("a module's waiting calls", () => {
  it("go into the next job with their clients in turn: a backlog never holds back another client's call", async () => {
    const { pool, jobs } = heldPool();
    const dispatcher = new Dispatcher(pool, 1_000, 1); // one group at a time
    const hostile = dispatcher.submit('m', 'src', calls(300), 'hostile');
    await tick();
    expect(jobs.map((j) => j.calls.length)).toEqual([256]); // a full job runs; 44 wait
    const more = dispatcher.submit('m', 'src', calls(600), 'hostile');
    const trainer = dispatcher.submit('m', 'src', [call(7_777)], 'trainer');
    await tick();
    (jobs[0] as { release(): void }).release();
    await tick();
    await tick();
    // The next job holds the trainer's call beside the hostile client's backlog, not three jobs later.
    expect(jobs.length).toBe(2);
    expect((jobs[1] as { calls: Call[] }).calls.map((c) => c.seed)).toContain(7_777);
    expect((jobs[1] as { calls: Call[] }).calls).toHaveLength(256);
    let answered = false;
    void trainer.then(() => (answered = true));
    (jobs[1] as { release(): void }).release();
    await tick();
    expect(answered).toBe(true);
    // Every call is still answered.
    const all = Promise.all([hostile, more]);
    let done = false;
    void all.then(() => (done = true));
    for (let i = 2; !done && i < 10; i++) {
      await tick();
      jobs[i]?.release();
      await tick();
    }
    expect((await all).flat()).toHaveLength(900);
  });
});
