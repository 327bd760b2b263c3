// Output and failure plumbing shared by the CLI commands, so commands are testable in-process. Every line the
// process writes goes through terminalSafe (contract/text.ts): module text is data, never a terminal command.
import type { Printed } from '../contract/printed.js';
import { terminalSafe } from '../contract/text.js';

export { block, concat, json, labelled, line, lines, type Printed, verbatim } from '../contract/printed.js';
export { terminalSafe };

/** Where a command writes: only Printed text (contract/printed.ts), so no module text lays out a line of its own. */
export interface Io {
  out(line: Printed): void;
  err(line: Printed): void;
  /** A status line on a terminal that the next one overwrites (progress); absent where there is none to redraw. */
  status?(text: Printed): void;
  /** Where interactive commands (play) read lines; process.stdin when absent. */
  input?: NodeJS.ReadableStream;
  /** Set by a command that finished but must report failure (e.g. a rejected candidate). */
  exitCode?: number;
}

export function processIo(): Io {
  return {
    out: (line) => process.stdout.write(`${terminalSafe(line)}\n`),
    err: (line) => process.stderr.write(`${terminalSafe(line)}\n`),
    // The clearing sequence is envforge's own; what follows it is escaped like any line.
    ...(process.stderr.isTTY
      ? { status: (text: string) => process.stderr.write(`\r\x1b[K${terminalSafe(text)}`) }
      : {}),
  };
}

/** A command-level failure: printed without a stack trace, with its exit code (1 failure, 2 usage). */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
