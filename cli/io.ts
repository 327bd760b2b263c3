// Output and failure plumbing shared by the CLI commands, so commands are testable in-process. Every line the
// process writes goes through terminalSafe: module text is data, never a terminal command.

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

/**
 * What a terminal would act on, written as a JSON-style escape (\u001b): C0 controls other than newline and
 * tab, DEL, C1 controls, bidi embeddings, overrides and isolates, U+FFFE/U+FFFF and lone surrogates. A JSON
 * line stays valid JSON (these only occur inside its strings, where the escape means the same character).
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** `text` with every character a terminal would act on escaped: the one output boundary of the CLI. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function processIo(): Io {
  return {
    out: (line) => process.stdout.write(`${terminalSafe(line)}\n`),
    err: (line) => process.stderr.write(`${terminalSafe(line)}\n`),
    // The clearing sequence is envforge's own; what follows it is escaped like any line.
    ...(process.stderr.isTTY ? { status: (text: string) => process.stderr.write(`\r\x1b[K${terminalSafe(text)}`) } : {}),
  };
}

/** A command-level failure: printed without a stack trace, with its exit code (1 failure, 2 usage). */
export class CliFailure extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}
