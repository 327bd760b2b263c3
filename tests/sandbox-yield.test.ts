// A job's results stream to its caller as its calls finish (RunRequest.onResult), and a job with a time slice
// (limits.yieldAfterMs) hands its worker back when asked (RunRequest.onStart's function), its calls not reached failing
// unrun with YIELDED_MESSAGE: the reward service's shared jobs (serve/dispatcher.ts; red team V20-2) answer a call
// without waiting for the rest of its job, and stop holding a worker once another client's call waits.
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../sandbox/pool.js';
import { YIELDED_MESSAGE, type Call, type CallResult } from '../sandbox/protocol.js';
import { isYielded } from '../serve/job-attribution.js';
import { envSource } from './helpers/env-source.js';

const pool = new SandboxPool({ workers: 1, graceMs: 2_000, limits: { callTimeoutMs: 5_000, loadTimeoutMs: 5_000 } });
afterAll(() => pool.close());

/** Each instance costs a few milliseconds of work, so a job of many calls runs past any small slice. */
const slow = envSource({
  generate:
    'let x = 0; for (let i = 0; i < 2e6; i++) x = (x + i) % 1009; return { prompt: "p" + x, answer: x + level };',
});
const calls = (n: number): Call[] => Array.from({ length: n }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));

describe('a job with a time slice', () => {
  it('runs whole when never asked to yield', async () => {
    const run = await pool.run({ source: slow, calls: calls(40), limits: { yieldAfterMs: 1 } });
    expect(run.results.every((r) => r.ok)).toBe(true);
  });

  it('hands its worker back when asked, once a call finished: the rest fail unrun, marked as yielded', async () => {
    const streamed: number[] = [];
    let ended = false;
    const run = await pool.run({
      source: slow,
      calls: calls(200),
      limits: { yieldAfterMs: 1 },
      onStart: (askToYield) => askToYield(),
      onResult: (i) => !ended && streamed.push(i),
    });
    ended = true;
    const done = run.results.findIndex((r) => !r.ok);
    expect(done).toBeGreaterThan(0); // at least one call ran
    expect(done).toBeLessThan(200);
    const rest = run.results.slice(done);
    expect(rest.every((r) => isYielded(r))).toBe(true);
    expect((rest[0] as Extract<CallResult, { ok: false }>).message.startsWith(YIELDED_MESSAGE)).toBe(true);
    // Every result was told as it arrived, before the job ended, by its call's index.
    expect(streamed.toSorted((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i));
  });

  it('streams results before its job ends: the first is told while later calls still run', async () => {
    let count = 0;
    let toldByTheNextTurn = -1;
    const run = await pool.run({
      source: slow,
      calls: calls(150),
      onResult: (i) => {
        count++;
        if (i === 0) setImmediate(() => (toldByTheNextTurn = count));
      },
    });
    expect(run.results.every((r) => r.ok)).toBe(true);
    expect(count).toBe(150);
    // The first result came in a message of its own (the worker streams each crossing's), not with all the others.
    expect(toldByTheNextTurn).toBeGreaterThan(0);
    expect(toldByTheNextTurn).toBeLessThan(150);
  });
});
