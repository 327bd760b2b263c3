// Test runner settings: tests live in tests/, sandbox tests spawn worker processes and need time.
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './tests/setup/sequencer.js';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
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
    maxWorkers: 2,
    // The run's shared folder (tests/helpers/run-cache.ts: the seeded libraries, shared validation reports).
    globalSetup: ['tests/setup/runtime-banner.ts', 'tests/setup/run-cache.ts'],
    // Longest files first (tests/setup/durations.json), so the last file to start is a short one.
    sequence: { sequencer: LongestFirstSequencer },
  },
});
