// Test runner settings: tests live in tests/, sandbox tests spawn worker processes and need time.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two test files at a time, also on 2 cores: many files wait on child processes, servers and sockets,
    // and the timing-dependent tests keep margins for a loaded machine (the suite passed under load 10).
    maxWorkers: 2,
    globalSetup: ['tests/setup/runtime-banner.ts'],
  },
});
