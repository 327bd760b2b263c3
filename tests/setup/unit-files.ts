// The unit tier's test files: they start no sandbox pool, server, browser, database or CLI process and need no build,
// so they run in seconds (\`npm run test:fast\`) and may share a worker process, its loaded modules, with each other.

/**
 * Unit files that leave no process-wide state behind (no vi.mock, no environment variable or global they change):
 * the whole suite runs them with \`isolate: false\` too (vitest.config.ts), the fast tier with the rest below.
 */
export const SHARED_PROCESS_FILES = [
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
  'tests/episodic-treatments.test.ts',
  'tests/episodic-typed.test.ts',
  'tests/feedback.test.ts',
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
  'tests/queue-expiry.test.ts',
  'tests/recent.test.ts',
  'tests/redteam-rtv-readers.test.ts',
  'tests/report.test.ts',
  'tests/reward-text.test.ts',
  'tests/rollout-timeouts.test.ts',
  'tests/run-cache.test.ts',
  'tests/shards.test.ts',
  'tests/transcripts.test.ts',
  'tests/wrap-long-lines.test.ts',
];

/** Unit files that set process-wide state (and restore it): one process each in the whole suite. */
export const OWN_PROCESS_UNIT_FILES = ['tests/validation-seed-env.test.ts'];
