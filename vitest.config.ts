// Test runner settings: tests live in tests/, sandbox tests spawn worker processes and need time.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['tests/setup/runtime-banner.ts'],
  },
});
