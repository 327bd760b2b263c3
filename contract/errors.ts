// The error classes envforge throws across its own boundaries; failures of untrusted code are never
// thrown but returned as data with a code from codes.ts.
import type { Code } from './codes.js';

/** Base class: every envforge error carries a machine-readable code. */
export class EnvforgeError extends Error {
  readonly code: Code;
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The caller asked for something impossible: bad flag, missing file, unknown environment. CLI exit 2. */
export class UsageError extends EnvforgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_USAGE', message, options);
  }
}

/** The sandbox itself failed (could not start a worker, was closed): not the candidate's fault. */
export class SandboxError extends EnvforgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_SANDBOX', message, options);
  }
}
