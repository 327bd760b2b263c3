// The validation log (validators/validation-log.ts), which measures the suite's work: one line a validation where
// ENVFORGE_VALIDATION_LOG names a file, under the tag the run set, and nothing without it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { ValidationReport } from '../validators/report.js';
import { logValidation } from '../validators/validation-log.js';

const report = { hash: 'abc', validationSeed: 11, verdict: 'admit', ms: 5 } as ValidationReport;
const saved = { log: process.env.ENVFORGE_VALIDATION_LOG, tag: process.env.ENVFORGE_VALIDATION_LOG_TAG };
afterEach(() => {
  for (const [name, value] of [
    ['ENVFORGE_VALIDATION_LOG', saved.log],
    ['ENVFORGE_VALIDATION_LOG_TAG', saved.tag],
  ] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
});

it('appends one line a validation: module, seed, a digest of the options, verdict, the tag', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'envforge-vlog-')), 'log.jsonl');
  process.env.ENVFORGE_VALIDATION_LOG = file;
  process.env.ENVFORGE_VALIDATION_LOG_TAG = 'tests/x.test.ts';
  logValidation({}, report);
  logValidation({ options: { seedsPerLevel: 6 } }, report);
  logValidation({ options: { seedsPerLevel: 6 }, novelty: {} }, report);
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  expect(lines).toHaveLength(3);
  expect(lines[0]).toMatchObject({ hash: 'abc', seed: 11, verdict: 'admit', novelty: false, tag: 'tests/x.test.ts' });
  expect(lines[1].options).not.toBe(lines[0].options);
  expect(lines[2]).toMatchObject({ options: lines[1].options, novelty: true });
});

it('writes nothing once ENVFORGE_VALIDATION_LOG is unset', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'envforge-vlog-')), 'log.jsonl');
  process.env.ENVFORGE_VALIDATION_LOG = file;
  logValidation({}, report);
  delete process.env.ENVFORGE_VALIDATION_LOG;
  expect(() => logValidation({}, report)).not.toThrow();
  expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(1);
});
