// Test runner settings: tests live in tests/, sandbox tests spawn worker processes and need time.
import { configDefaults, defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './tests/setup/sequencer.js';
import { SHARED_PROCESS_FILES } from './tests/setup/unit-files.js';

/** What every test file runs under, in the whole suite and in the fast tier (vitest.fast.config.ts). */
export const SUITE_OPTIONS = {
  // A timeout is for a hang, not a speed check: a whole-batch or validation test that takes 15 s on a quiet 2-core
  // machine took past 60 s at load 10 (a shared CI runner); three minutes still ends a hung test.
  testTimeout: 180_000,
  hookTimeout: 180_000,
  // Validations that name no seed use one recorded seed (validators/seeds.ts), so a verdict cannot change between
  // CI runs; ENVFORGE_RANDOM_SEEDS=1 draws fresh ones (a maintainer's hunt for seeds where a check misjudges).
  env: process.env.ENVFORGE_RANDOM_SEEDS ? {} : { ENVFORGE_VALIDATION_SEED: '11' },
  pool: 'forks',
  // Two test files at a time, also on 2 cores: many files wait on child processes, servers and sockets,
  // and the timing-dependent tests keep margins for a loaded machine (the suite passed under load 10).
  // Each project names it: a project does not inherit it, and one worker would run its files one by one.
  maxWorkers: 2,
  // A measurement of the run's work (docs/testing.md): each validation logged under the test file that asked for it.
  setupFiles: process.env.ENVFORGE_VALIDATION_LOG ? ['tests/setup/validation-log.ts'] : [],
} as const;

/** What the run as a whole has once (not per project): its global setup and the order its files start in. */
export const ROOT_OPTIONS = {
  maxWorkers: 2,
  // The run's shared folder (tests/helpers/run-cache.ts: the seeded libraries, shared validation reports). Only
  // here, at the root: a project that named it too would make a folder of its own (tests/setup/run-cache.ts).
  globalSetup: ['tests/setup/runtime-banner.ts', 'tests/setup/run-cache.ts'],
  // Longest files first (tests/setup/durations.json), so the last file to start is a short one; the files that
  // share a process after the others, in a row, so that each worker goes on from one to the next.
  sequence: { sequencer: LongestFirstSequencer },
};

export default defineConfig({
  test: {
    ...ROOT_OPTIONS,
    // One run, two projects: the unit files that leave no process-wide state behind share their workers'
    // loaded modules (`isolate: false`, as in the fast tier: about 40% less CPU for them); every other file
    // runs in a fresh process of its own.
    projects: [
      { test: { ...SUITE_OPTIONS, name: 'shared', include: SHARED_PROCESS_FILES, isolate: false } },
      {
        test: {
          ...SUITE_OPTIONS,
          name: 'isolated',
          include: ['tests/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SHARED_PROCESS_FILES],
        },
      },
    ],
  },
});
