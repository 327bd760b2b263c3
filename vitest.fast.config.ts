// The fast tier (`npm run test:fast`): unit tests that start no sandbox pool, server, browser, database or CLI
// process and need no build, for a maintainer before each commit (about 10 s on 2 cores). The whole
// suite stays `npm test` (CI). A file joins tests/setup/unit-files.ts when it runs in a second or two without dist/.
import { defineConfig } from 'vitest/config';
import { OWN_PROCESS_UNIT_FILES, SHARED_PROCESS_FILES } from './tests/setup/unit-files.js';
import { ROOT_OPTIONS, SUITE_OPTIONS } from './vitest.config.js';

export default defineConfig({
  test: {
    ...ROOT_OPTIONS,
    ...SUITE_OPTIONS,
    // Pure unit files share their workers' module graph instead of each loading it anew: the tier's CPU
    // 20-24 s -> 12-14 s (measured twice each under load 28). A file here must leave no global state behind.
    isolate: false,
    include: [...SHARED_PROCESS_FILES, ...OWN_PROCESS_UNIT_FILES],
  },
});
