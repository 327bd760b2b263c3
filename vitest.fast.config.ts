// The fast tier (`npm run test:fast`): unit tests that start no sandbox pool, server, browser, database or CLI
// process and need no build, for a maintainer before each commit (about 10 s on 2 cores). The whole
// suite stays `npm test` (CI). A file joins this list when it runs in a second or two without dist/.
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

export default defineConfig({
  test: {
    ...base.test,
    // Pure unit files share their workers' module graph instead of each loading it anew: the tier's CPU
    // 20-24 s -> 12-14 s (measured twice each under load 28). A file here must leave no global state behind.
    isolate: false,
    // The whole suite's global setup and limits, with this list in place of its pattern.
    include: [
      'tests/architecture.test.ts',
      'tests/check-forms.test.ts',
      'tests/checks-rules.test.ts',
      'tests/code-author.test.ts',
      'tests/codes.test.ts',
      'tests/episode-journal.test.ts',
      'tests/episodic-adversaries-progress.test.ts',
      'tests/episodic-adversaries-rt4.test.ts',
      'tests/episodic-adversary-library.test.ts',
      'tests/episodic-author.test.ts',
      'tests/episodic-readers.test.ts',
      'tests/episodic-stated-rules.test.ts',
      'tests/episodic-typed.test.ts',
      'tests/feedback.test.ts',
      'tests/group-by.test.ts',
      'tests/instance-names.test.ts',
      'tests/instance.test.ts',
      'tests/json-depth.test.ts',
      'tests/judged-options.test.ts',
      'tests/judgement-principles.test.ts',
      'tests/leak-lists.test.ts',
      'tests/leak-words.test.ts',
      'tests/library.test.ts',
      'tests/metamorphic.test.ts',
      'tests/novelty.test.ts',
      'tests/number-edits.test.ts',
      'tests/probe-forms.test.ts',
      'tests/prompt-layout.test.ts',
      'tests/prompt-profiles.test.ts',
      'tests/prompts.test.ts',
      'tests/prose.test.ts',
      'tests/recent.test.ts',
      'tests/redteam-rtv-readers.test.ts',
      'tests/report.test.ts',
      'tests/reward-text.test.ts',
      'tests/rollout-timeouts.test.ts',
      'tests/run-cache.test.ts',
      'tests/shards.test.ts',
      'tests/transcripts.test.ts',
      'tests/validation-seed-env.test.ts',
      'tests/wrap-long-lines.test.ts',
    ],
  },
});
