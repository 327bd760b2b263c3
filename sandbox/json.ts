// Bounded parsing of JSON text that came out of a sandbox: size and nesting are checked on the text
// before JSON.parse, so hostile output can neither exhaust the host's stack nor its memory.

export class JsonLimitError extends Error {}

/** Largest nesting depth of arrays/objects in JSON text, stopping early once past `max`. Linear time. */
export function jsonDepth(text: string, max = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > max) return deepest;
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return deepest;
}

export function parseBoundedJson(text: string, limits: { maxChars: number; maxDepth: number }): unknown {
  if (text.length > limits.maxChars) throw new JsonLimitError(`output has ${text.length} characters, over the limit of ${limits.maxChars}`);
  if (jsonDepth(text, limits.maxDepth) > limits.maxDepth) throw new JsonLimitError(`output is nested deeper than ${limits.maxDepth} levels`);
  return JSON.parse(text);
}
