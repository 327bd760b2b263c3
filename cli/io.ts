// Output and failure plumbing shared by the CLI commands, so commands are testable in-process.

export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** Where interactive commands (play) read lines; process.stdin when absent. */
  input?: NodeJS.ReadableStream;
  /** Set by a command that finished but must report failure (e.g. a rejected candidate). */
  exitCode?: number;
}

export function processIo(): Io {
  return {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  };
}

/** A command-level failure: printed without a stack trace, with its exit code (1 failure, 2 usage). */
export class CliFailure extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}
