// The text a module may write (contracts v1 and v2): nothing a terminal, a YAML or Python reader or a web page
// would act on (no C0 control but tab and newline in prose, DEL, C1, bidi controls, U+FFFE/U+FFFF, lone
// surrogates); the one Markdown encoder every Markdown writer uses for text that is not its own; and the one
// terminal encoder every line written to a terminal or log passes.
import type { ProblemCode } from './codes.js';

/** Refused in prose (descriptions, prompts, observations): controls other than tab and newline. */
export const PROSE_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/;
/** Refused in a one-line field (a title): every control, tab and newline too. */
export const LINE_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff]/;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const NOT_ASCII = /[^\u0000-\u007f]/;
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A character as people name it: U+001B. */
export function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why `text` (named `what`) breaks the rule, with the code to report, or null when it keeps it. */
export function textProblem(text: string, what: string, prose: boolean): { code: ProblemCode; message: string } | null {
  const match = (prose ? PROSE_CONTROL : LINE_CONTROL).exec(text);
  if (match) {
    const allowed = prose
      ? 'tab and newline are the only controls prose may hold'
      : 'a one-line field holds no control at all, not even a tab or newline';
    return {
      code: 'E_CONTROL_CHARS',
      message:
        `${what} holds the control character ${codePoint(match[0])} at character ${match.index}: ${allowed} ` +
        `(no escape sequences, bidi overrides or U+FFFE/U+FFFF)`,
    };
  }
  if (!NOT_ASCII.test(text)) return null;
  if (LONE_SURROGATE.test(text))
    return {
      code: 'E_MALFORMED_TEXT',
      message: `${what} is not well-formed Unicode (a lone surrogate): UTF-8 consumers fail on it or change it`,
    };
  if (text.normalize('NFC') !== text)
    return {
      code: 'E_MALFORMED_TEXT',
      message:
        `${what} is not in Unicode normal form C: a trainer's tokenizer normalizes it (NFC), so the model reads ` +
        'other characters than the module wrote and cannot copy them back',
    };
  return null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The text problems of a parameter schema's descriptions and enum strings (prose: an enum value may hold a line break).
 */
function schemaTextProblems(
  schema: unknown,
  path: string,
  out: Array<{ code: ProblemCode; message: string }>,
  depth = 0,
): void {
  if (!isObject(schema) || depth > 8) return;
  if (typeof schema.description === 'string') push(out, textProblem(schema.description, `${path}.description`, true));
  if (Array.isArray(schema.enum))
    for (const v of schema.enum) if (typeof v === 'string') push(out, textProblem(v, `${path}.enum value`, true));
  if (isObject(schema.properties))
    for (const [name, sub] of Object.entries(schema.properties))
      schemaTextProblems(sub, `${path}.properties.${name.slice(0, 40)}`, out, depth + 1);
  if (schema.items !== undefined) schemaTextProblems(schema.items, `${path}.items`, out, depth + 1);
}

function push(
  out: Array<{ code: ProblemCode; message: string }>,
  problem: { code: ProblemCode; message: string } | null,
): void {
  if (problem && out.length < 10) out.push(problem);
}

/**
 * The text problems of a meta (v1 or v2): its title is one line; its description, tools' and parameters'
 * descriptions and enum values are prose. Names, skills and tool names have patterns of their own.
 */
export function metaTextProblems(meta: unknown): Array<{ code: ProblemCode; message: string }> {
  const out: Array<{ code: ProblemCode; message: string }> = [];
  if (!isObject(meta)) return out;
  if (typeof meta.title === 'string') push(out, textProblem(meta.title, 'meta.title', false));
  if (typeof meta.description === 'string') push(out, textProblem(meta.description, 'meta.description', true));
  if (Array.isArray(meta.tools)) {
    meta.tools.slice(0, 64).forEach((tool, i) => {
      if (!isObject(tool)) return;
      const name = typeof tool.name === 'string' && /^[a-z][a-z0-9_]{0,63}$/.test(tool.name) ? tool.name : String(i);
      if (typeof tool.description === 'string')
        push(out, textProblem(tool.description, `meta.tools.${name}.description`, true));
      schemaTextProblems(tool.parameters, `meta.tools.${name}.parameters`, out);
    });
  }
  return out;
}

const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * What a terminal would act on, written as a JSON-style escape (\u001b): C0 controls other than newline and
 * tab, DEL, C1 controls, bidi embeddings, overrides and isolates, U+FFFE/U+FFFF and lone surrogates. A JSON
 * line stays valid JSON (these only occur inside its strings, where the escape means the same character).
 */
const TERMINAL_UNSAFE = new RegExp(
  String.raw`[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\ufffe\uffff]|[\ud800-\udbff]` +
    String.raw`(?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]`,
  'g',
);

/**
 * `text` with every character a terminal would act on escaped: the CLI's output boundary, and every log line a library
 * or service writes itself.
 */
export function terminalSafe(text: string): string {
  return text.replace(TERMINAL_UNSAFE, unicodeEscape);
}

/** A line break a terminal or a log reader starts a new line at (CR and NEL are controls, escaped already). */
const LINE_BREAK = /[\n\u2028\u2029]/g;

/**
 * One log line for `text` (redteam-v21 V21-4): terminalSafe, and every line break escaped too, so a value a client or a
 * module wrote (an environment name, a message) can never start a line the operator reads as the service's own.
 */
export function logLine(text: string): string {
  return terminalSafe(text).replace(LINE_BREAK, unicodeEscape);
}

/**
 * What lays guest text out on a terminal: a line break, or a run of blanks (whitespace, the braille blank, default
 * ignorable code points such as the Hangul fillers) that would push what follows to a column of the guest's choosing,
 * e.g. the start of a wrapped line (T8-3). sandbox/guest-runtime.js applies the same expression inside the isolate.
 */
const GUEST_LAYOUT = /[\s\u2800\p{Default_Ignorable_Code_Point}]{2,}|[\r\n\u2028\u2029]/gu;

/** A guest's message as one line that lays nothing out: each line break and each run of blanks is one space. */
export function guestLine(text: string): string {
  return text.replace(GUEST_LAYOUT, ' ');
}

/**
 * A word of letters and digits joined by single `_` or `-` (a name, a code): no CommonMark or GFM markup starts
 * inside one (an underscore between two letters or digits opens and closes no emphasis), so it is written as it is.
 */
const PLAIN_WORD = /^[A-Za-z0-9]+(?:[_-][A-Za-z0-9]+)*$/;

/**
 * Markdown (and HTML) prose for any text, in CommonMark's own grammar: every ASCII punctuation mark is
 * backslash-escaped (`<`, `>` and `&` become entities), line breaks and controls are shown as \u escapes. No
 * character of the result starts markup: no element, comment, link, image, emphasis, code span or table cell.
 * A plain word (PLAIN_WORD) is already so and is left as it is.
 */
export function markdownText(text: string): string {
  if (PLAIN_WORD.test(text)) return text;
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, unicodeEscape)
    .replace(/[!-/:-@[-`{-~]/g, (c) => (c === '<' ? '&lt;' : c === '&' ? '&amp;' : c === '>' ? '&gt;' : `\\${c}`));
}

/**
 * markdownText of one line for a list item or table cell: whitespace runs made one space, cut to `max` characters
 * first.
 */
export function markdownLine(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ');
  return markdownText(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}
