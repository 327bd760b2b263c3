// The dispatcher takes a module's waiting calls into its next job with their clients in turn (serve/dispatcher.ts):
// one client's backlog for a module delays another client's call by one job at most, never by the whole backlog
// (before, the queue was first come first served, so a client's single step waited behind thousands of another's).
// A call is answered as its result arrives, and a job holding another client's calls yields its worker (after its
// slice) once a client's call waits (red team V20-2: before, a step waited for every call of the job it was in).
import { describe, expect, it } from 'vitest';
import type { SandboxPool, RunRequest, RunResult } from '../sandbox/pool.js';
import { YIELDED_MESSAGE, type Call, type CallResult } from '../sandbox/protocol.js';
import { Dispatcher } from '../serve/dispatcher.js';

interface HeldJob {
  calls: Call[];
  request: RunRequest;
  /** How often the job was asked to yield its worker (RunRequest.onStart's function). */
  asked: number;
  /** Ends the job: each call's result from `result` (by index), else ok. */
  release(result?: (i: number) => CallResult): void;
}

/**
 * A pool of one worker that runs nothing until told: it records each job's calls, starts it at once (onStart) and
 * answers them when released.
 */
function heldPool() {
  const jobs: HeldJob[] = [];
  const ok = (): CallResult => ({ ok: true, value: null, ms: 0 });
  const pool = {
    options: { workers: 1 },
    runTogether: (requests: RunRequest[]) =>
      requests.map(
        (r) =>
          new Promise<RunResult>((resolve) => {
            const calls = r.calls ?? [];
            const job: HeldJob = {
              calls,
              request: r,
              asked: 0,
              release: (result = ok) => {
                r.onEnd?.();
                resolve({ load: {} as RunResult['load'], results: calls.map((_, i) => result(i)), wallMs: 0 });
              },
            };
            jobs.push(job);
            r.onStart?.(() => job.asked++);
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

  it("answer each call as its result arrives, not at its job's end; a failure another call may owe waits", async () => {
    const { pool, jobs } = heldPool();
    const dispatcher = new Dispatcher(pool, 1_000, 1);
    const hostile = dispatcher.submit('m', 'src', calls(3), 'hostile');
    const trainer = dispatcher.submit('m', 'src', [call(7)], 'trainer');
    await tick();
    const job = jobs[0] as HeldJob;
    const at = (seed: number) => job.calls.findIndex((c) => c.seed === seed);
    const answered: string[] = [];
    void trainer.then(() => answered.push('trainer'));
    void hostile.then(() => answered.push('hostile'));
    const timeout: CallResult = { ok: false, code: 'E_TIMEOUT', message: 'ran past', fn: 'call', ms: 1_000 };
    job.request.onResult?.(at(7), { ok: true, value: 'mine', ms: 1 });
    job.request.onResult?.(0, timeout); // the hostile's first: shared job, so it may be the trainer's doing
    await tick();
    expect(answered).toEqual(['trainer']);
    expect(await trainer).toEqual([{ ok: true, value: 'mine', ms: 1 }]);
    job.release((i) => (i === 0 ? timeout : { ok: true, value: null, ms: 0 }));
    await tick();
    await tick();
    // the timed-out call runs again among its client's calls only, not answered with the shared job's failure
    expect(jobs).toHaveLength(2);
    expect((jobs[1] as HeldJob).calls).toHaveLength(1);
    (jobs[1] as HeldJob).release();
    expect((await hostile).map((r) => r.ok)).toEqual([true, true, true]);
  });

  it("yield the worker once another client's call waits, never for the same client's; the rest run later", async () => {
    const { pool, jobs } = heldPool();
    const dispatcher = new Dispatcher(pool, 1_000, 2); // two groups at once, one worker
    const hostile = dispatcher.submit('m', 'src', calls(100), 'hostile');
    await tick();
    const first = jobs[0] as HeldJob;
    expect(first.request.limits?.yieldAfterMs).toBeGreaterThan(0);
    const more = dispatcher.submit('m', 'src', calls(10), 'hostile');
    await tick();
    expect(first.asked).toBe(0); // its own client's calls: batching stays whole
    const trainer = dispatcher.submit('m', 'src', [call(7_777)], 'trainer');
    await tick();
    expect(first.asked).toBe(1);
    // The worker yields after 4 calls: the rest fail unrun with the slice's message and go back to the queue.
    const yielded: CallResult = {
      ok: false,
      code: 'E_TIMEOUT',
      message: `${YIELDED_MESSAGE} was spent`,
      fn: 'call',
      ms: 0,
    };
    first.release((i) => (i < 4 ? { ok: true, value: null, ms: 600 } : yielded));
    let done = false;
    const all = Promise.all([hostile, more, trainer]).then((r) => ((done = true), r));
    for (let i = 1; !done && i < 20; i++) {
      await tick();
      await tick();
      jobs[i]?.release();
    }
    const [h, m, t] = await all;
    expect([...(h ?? []), ...(m ?? []), ...(t ?? [])].every((r) => r.ok)).toBe(true);
    // The trainer's call was not held for the hostile client's 110: the group already waiting (the hostile's 10) was
    // asked to yield as it started, and the trainer's call went into the job after it, first there.
    expect((jobs[1] as HeldJob).asked).toBe(1);
    const withTrainer = jobs.findIndex((j) => j.calls.some((c) => c.seed === 7_777));
    expect(withTrainer).toBe(2);
    expect((jobs[withTrainer] as HeldJob).calls).toHaveLength(97); // the 96 the first job did not reach, after it
    expect((jobs[withTrainer] as HeldJob).calls[0]?.seed).toBe(7_777);
    expect(dispatcher.gate.chargeOf('hostile')).toBeGreaterThan(dispatcher.gate.chargeOf('trainer'));
  });
});
