// The supervisor's silence deadline judges the worker's work, not the host's clock: a worker held off its core
// past the deadline is waited for, and one that works through the deadline without a word is still killed.
import { describe, expect, it } from 'vitest';
import { SandboxPool } from '../sandbox/pool.js';
import type { Call } from '../sandbox/protocol.js';
import { envSource } from './helpers/env-source.js';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a worker that waited for a core past its silence deadline', () => {
  it('is not killed E_TIMEOUT when it used little CPU meanwhile; a wedged worker still is', async () => {
    // Silence budget: two loads, one call and its slice, grace (3.2 s).
    const one = new SandboxPool({ workers: 1, graceMs: 100 });
    try {
      const busy = envSource({
        generate: "let x = 0; for (let i = 0; i < 1e6; i++) x += i % 7; return { prompt: 'p' + x };",
      });
      await one.run({ source: busy, calls: [{ op: 'episode', seed: 0, level: 1 }] });
      const [pid] = one.workerPids();
      const calls: Call[] = Array.from({ length: 100 }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));
      const run = one.run({ source: busy, calls });
      // A loaded host's scheduler keeps the worker off its core for longer than one silence budget.
      await pause(150);
      process.kill(pid as number, 'SIGSTOP');
      await pause(6_000);
      process.kill(pid as number, 'SIGCONT');
      const { results } = await run;
      expect(results.filter((r) => !r.ok)).toEqual([]);
      // Held off for good: waited for a bounded number of times, then killed. Ten times the calls, so the job is still
      // running when the worker is stopped however fast the machine (a job done first has nothing to kill).
      const many: Call[] = Array.from({ length: 1_000 }, (_, i) => ({ op: 'episode', seed: i, level: 1 }));
      const held = one.run({ source: busy, calls: many });
      await pause(150);
      process.kill(one.workerPids()[0] as number, 'SIGSTOP');
      const wedged = await held;
      expect(wedged.results.some((r) => !r.ok && r.code === 'E_TIMEOUT')).toBe(true);
    } finally {
      await one.close();
    }
  }, 60_000);
});
