// Instrumentation for measuring the test suite: with ENVFORGE_VALIDATION_LOG naming a file, each validation appends
// one JSON line (the module's hash, validation seed, a digest of its options, verdict, milliseconds, the process and
// the ENVFORGE_VALIDATION_LOG_TAG it ran under), so a run can count validations repeated within and across files.
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import type { ValidationReport } from './report.js';

/** What of a validation's request decides its report besides the module (the pool does not). */
export interface LoggedRequest {
  options?: unknown;
  include?: unknown;
  novelty?: unknown;
  reviewer?: unknown;
}

/** Appends the validation's line where ENVFORGE_VALIDATION_LOG says; nothing when it is unset. */
export function logValidation(request: LoggedRequest, report: ValidationReport): void {
  const file = process.env.ENVFORGE_VALIDATION_LOG;
  if (!file) return;
  const options = createHash('sha256')
    .update(JSON.stringify([request.options ?? null, request.include ?? null]))
    .digest('hex')
    .slice(0, 12);
  const line = {
    hash: report.hash,
    seed: report.validationSeed,
    options,
    novelty: request.novelty !== undefined,
    reviewer: request.reviewer !== undefined,
    verdict: report.verdict,
    ms: report.ms,
    pid: process.pid,
    tag: process.env.ENVFORGE_VALIDATION_LOG_TAG ?? null,
  };
  appendFileSync(file, `${JSON.stringify(line)}\n`);
}
