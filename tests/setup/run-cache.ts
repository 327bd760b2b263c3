// Vitest global setup: one folder per test run, where tests/helpers/run-cache.ts keeps work the test files share
// (the seeded libraries, validation reports) and Node keeps compiled code for the processes the tests start
// (the CLI, sandbox workers: each loads the same modules), removed when the run ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RUN_DIR_VARIABLE } from '../helpers/run-cache.js';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'envforge-testrun-'));
  process.env[RUN_DIR_VARIABLE] = dir;
  // Node's on-disk compile cache (module.enableCompileCache) for every process of the run: a CLI start compiles
  // its modules once per run, not once per command (about a quarter of its start-up CPU).
  process.env.NODE_COMPILE_CACHE ??= join(dir, 'node-compile-cache');
  return () => rmSync(dir, { recursive: true, force: true });
}
