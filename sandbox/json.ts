// Bounded parsing of JSON text that came out of a sandbox: size and nesting are checked on the text
// before JSON.parse, so hostile output can neither exhaust the host's stack nor its memory.

export class JsonLimitError extends Error {}

/** Largest nesting depth of arrays/objects in JSON text, stopping early once past `max`. Linear time. */
export function jsonDepth(text: string, max = Infinity): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Most of a runtime chunk is string content: jump to the closing quote (indexOf is a native scan)
      // instead of reading it a character at a time.
      i = closingQuote(text, i + 1);
      if (i < 0) return deepest; // unterminated: JSON.parse rejects it
    } else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > max) return deepest;
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return deepest;
}

/**
 * Index of the quote that closes a string whose content starts at `from`, or -1. A quote is escaped when an
 * odd run of backslashes precedes it; each run is read once, so the scan stays linear.
 */
function closingQuote(text: string, from: number): number {
  for (let q = text.indexOf('"', from); q >= 0; q = text.indexOf('"', q + 1)) {
    let slashes = 0;
    while (q - 1 - slashes >= from && text.charCodeAt(q - 1 - slashes) === 92 /* \\ */) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return -1;
}

export function parseBoundedJson(text: string, limits: { maxChars: number; maxDepth: number }): unknown {
  if (text.length > limits.maxChars)
    throw new JsonLimitError(`output has ${text.length} characters, over the limit of ${limits.maxChars}`);
  if (jsonDepth(text, limits.maxDepth) > limits.maxDepth)
    throw new JsonLimitError(`output is nested deeper than ${limits.maxDepth} levels`);
  return JSON.parse(text);
}
