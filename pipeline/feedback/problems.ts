// What the feedback readers share: the error a broken feedback file raises, listing each problem as
// "<file> line <n>: <what>", and how a bad value is quoted in it.
import { UsageError } from '../../contract/errors.js';

/** A feedback file that breaks the format; `problems` lists each one as "<file> line <n>: <what>". */
export class FeedbackError extends UsageError {
  readonly problems: string[];
  constructor(problems: string[], omitted = 0) {
    const more = omitted > 0 ? `\n… and ${omitted} more problem${omitted === 1 ? '' : 's'}` : '';
    super(problems.join('\n') + more);
    this.problems = problems;
  }
}

/** A value as a problem quotes it: JSON, cut at 40 characters. */
export function show(value: unknown): string {
  const text = value === undefined ? 'nothing' : (JSON.stringify(value) ?? String(value));
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** Strips a UTF-8 byte-order mark. */
export const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
