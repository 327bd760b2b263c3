// Where the response starts in an OpenRLHF reward query. OpenRLHF posts the decoded prompt and response as one
// string beside the prompt; when the prompt is longer than its budget it keeps only the prompt's last tokens, so the
// query starts with a tail of the prompt, not the whole of it. The response is what follows the longest such tail.

/** A tail shorter than this (or than the whole prompt) is not trusted to be the prompt's: the query is all response. */
const MIN_TAIL = 16;
/** A cut prompt decoded from its tokens may begin mid-character (U+FFFD and the like): leading characters skipped. */
const MAX_SKIP = 3;

/** The response in `query`: what follows `prompt`, or the longest tail of `prompt` that the query starts with. */
export function responseOf(query: string, prompt: string): string {
  if (query.startsWith(prompt)) return query.slice(prompt.length);
  for (let skip = 0; skip <= MAX_SKIP && skip < query.length; skip++) {
    const rest = skip === 0 ? query : query.slice(skip);
    const tail = longestTail(prompt, rest);
    if (tail >= Math.min(prompt.length, MIN_TAIL)) return rest.slice(tail);
  }
  return query;
}

/** The length of the longest prefix of `pattern` that is a suffix of `text` (Knuth–Morris–Pratt, linear time). */
function longestTail(text: string, pattern: string): number {
  const m = Math.min(pattern.length, text.length);
  const fail = new Int32Array(m + 1);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && pattern[i] !== pattern[k]) k = fail[k] as number;
    if (pattern[i] === pattern[k]) k++;
    fail[i + 1] = k;
  }
  let k = 0; // only the text's last m characters can hold the tail
  for (let i = text.length - m; i < text.length; i++) {
    while (k > 0 && (k === m || text[i] !== pattern[k])) k = fail[k] as number;
    if (k < m && text[i] === pattern[k]) k++;
  }
  return k;
}
