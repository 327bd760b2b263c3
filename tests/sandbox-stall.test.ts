// The supervisor's deadlines against the host's own stalls: when synchronous work blocks the host's event
// loop past a worker's deadline while its answer is already on the way, the job is not killed and blamed
// (a false E_TIMEOUT), nor is a long job that the blocked host stopped reading for a moment. The kills
// themselves stay tested in budgets.test.ts (whole-job deadline).
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../sandbox/pool.js';
import type { Call } from '../sandbox/protocol.js';
import { envSource } from './helpers/env-source.js';

const pool = new SandboxPool({
  workers: 1,
  graceMs: 200,
  limits: { loadTimeoutMs: 300, callTimeoutMs: 300, sliceMs: 50 },
});
afterAll(() => pool.close());

/** Blocks this thread (the supervisor's) for `ms`, as a long synchronous step of a host would. */
function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}

const calls: Call[] = Array.from({ length: 4 }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));

describe('host stalls', () => {
  it('a job whose answers arrived while the host was blocked past every deadline is not killed', async () => {
    const source = envSource();
    await pool.run({ source, calls }); // warm: compiled and cached
    for (let round = 0; round < 3; round++) {
      const run = pool.run({ source, calls });
      // Once the job is sent (dispatch awaits the worker's readiness, a resolved promise), block past the
      // silence deadline (2 × 300 + 300 + 50 + 200 = 1,150 ms) and the whole-job deadline of 4 calls
      // (2 × 300 + (4 + 1 + 3) × 350 + 200 = 3,600 ms: job-limits.ts) while the worker's answers, ready within
      // milliseconds, wait unread.
      for (let tick = 0; tick < 5; tick++) await null;
      blockFor(4_000);
      const { results } = await run;
      expect(results.filter((r) => !r.ok)).toEqual([]);
    }
  }, 60_000);

  it('a long job whose results outran the pipe while the host was blocked keeps reporting until it ends', async () => {
    // Calls of a few ms returning ~8 kB each, so the job outlasts the silence deadline (2 × 300 + 2,000 + 50
    // + 200 ms) and writes megabytes.
    // The block fills the pipe: a write the worker cannot finish at once queues the rest of the job behind it
    // until the worker's event loop turns.
    const long = new SandboxPool({
      workers: 1,
      graceMs: 200,
      limits: { loadTimeoutMs: 300, callTimeoutMs: 2_000, sliceMs: 50 },
    });
    try {
      const source = envSource({
        generate:
          "let x = 0; for (let i = 0; i < 2e6; i++) x += i; return { prompt: 'p' + x + '.'.repeat(8_000), answer: 1 };",
      });
      const many: Call[] = Array.from({ length: 3_000 }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));
      await long.run({ source, calls: many.slice(0, 2) });
      const run = long.run({ source, calls: many });
      for (let tick = 0; tick < 5; tick++) await null;
      blockFor(1_500);
      const { results } = await run;
      // The worker's kill is the false E_TIMEOUT; a call the worker itself timed out is the loaded machine's, not this
      // bug's.
      expect(results.filter((r) => !r.ok && /killed/.test(r.message)).slice(0, 3)).toEqual([]);
      expect(results.filter((r) => r.ok).length).toBeGreaterThan(2_000);
    } finally {
      await long.close();
    }
  }, 120_000);
});
