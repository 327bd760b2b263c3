// Output and failure plumbing shared by the CLI commands, so commands are testable in-process. Every line the
// process writes goes through terminalSafe (contract/text.ts): module text is data, never a terminal command.
import { logLine, terminalSafe } from '../contract/text.js';

export { terminalSafe };

/**
 * One output line whose interpolated values are data (redteam-v22 V22-4): each is written through `logLine`, so a
 * module's or a client's text (a description, a name, a message) fills its place in the line and can never start a
 * line of its own; only the template's literal parts, the CLI's own, lay out lines. Every template the CLI prints
 * is written with this tag (tests/architecture.test.ts); module text meant as a block is printed on its own.
 */
export function line(strings: TemplateStringsArray, ...values: unknown[]): string {
  let text = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) text += logLine(String(values[i])) + (strings[i + 1] ?? '');
  return text;
}

/**
 * Module text meant as a block (a reference answer, an observation, a list of problems): every line of it after
 * `prefix`, so each line the block holds is marked as the block's and none stands where the CLI's own lines do.
 */
export function block(text: string, prefix = '  '): string {
  return text
    .split(/\r\n|[\n\r\u2028\u2029]/)
    .map((l) => prefix + l)
    .join('\n');
}

export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** A status line on a terminal that the next one overwrites (progress); absent where there is none to redraw. */
  status?(text: string): void;
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
