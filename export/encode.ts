// Module text written into an export's files, encoded in each reader's grammar by construction: JSON whose every
// line break and invisible control is an escape (JSON and JSONL readers, and Python's str.splitlines, see the same
// lines and strings); Markdown goes through contract/text.ts's markdownText, as in every Markdown writer. No export
// writes module text into YAML or Python source: the shims read it from JSON (export/python/), and the YAML
// envforge writes holds none.

/** Characters JSON.stringify leaves raw that some readers treat as line breaks or that terminals act on. */
const RAW_CONTROLS = /[\u007f-\u009f\u2028\u2029]/g;

const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text (one line unless indented) whose DEL, C1 controls and U+2028/2029 are \u escapes: the same value, safe to
 * split by line.
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(RAW_CONTROLS, escape);
}
