// SandboxPool.close() settles whatever state its workers are in: a worker whose process could not be started (the
// system refused the fork: EAGAIN under a process limit, ENOENT) emits 'error' and never 'exit', so waiting for its
// exit would leave close() pending forever and a script's top-level `await pool.close()` unsettled.
import { describe, expect, it } from 'vitest';
import { SandboxPool } from '../sandbox/pool.js';
import { envSource } from './helpers/env-source.js';

describe('SandboxPool.close()', () => {
  it('settles when a worker was never started (its fork failed), and the job is rejected, not lost', async () => {
    const pool = new SandboxPool({ workers: 1, graceMs: 500, limits: { callTimeoutMs: 1_000, loadTimeoutMs: 2_000 } });
    const execPath = process.execPath;
    process.execPath = '/nonexistent/envforge-test-node'; // fork spawns process.execPath: this spawn fails (ENOENT)
    let job: Promise<unknown>;
    try {
      job = pool.run({ source: envSource(), calls: [{ op: 'episode', seed: 1, level: 1 }] });
    } finally {
      process.execPath = execPath;
    }
    const settled = job.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await pool.close(); // before the fix: pending forever (the worker's 'exit' never comes)
    expect(await settled).toMatch(/closed|could not start|spawn/);
  });
});
