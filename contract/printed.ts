// Text bound for the operator's terminal, as a type: only `line` (each value one line's part), `block` (each line
// marked as the module's), `lines`, `json` and `verbatim` make a Printed, and the CLI's Io prints nothing else, so
// module text can lay out no line of the CLI's own wherever the string was built (redteam-v22 V22-4, v23 V23-1).
import { logLine } from './text.js';

declare const PRINTED: unique symbol;

/** A string whose line layout is the CLI's own: made by the builders of this module only. */
export type Printed = string & { readonly [PRINTED]: true };

const printed = (text: string) => text as Printed;

/**
 * One output line whose interpolated values are data: each is written through `logLine`, so a module's or a client's
 * text (a description, a name, a message) fills its place in the line and can never start a line of its own; only the
 * template's literal parts, the CLI's own, lay out lines (a Printed value too is one line's part here).
 */
export function line(strings: TemplateStringsArray, ...values: unknown[]): Printed {
  let text = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) text += logLine(String(values[i])) + (strings[i + 1] ?? '');
  return printed(text);
}

/**
 * Module text meant as a block (a prompt, a reference answer, an observation, a description): every line of it after
 * `prefix`, so each line the block holds is marked as the block's and none stands where the CLI's own lines do.
 */
export function block(text: string, prefix = '  '): Printed {
  return printed(
    text
      .split(/\r\n|[\n\r\u2028\u2029]/)
      .map((l) => prefix + logLine(l))
      .join('\n'),
  );
}

/** Printed parts, one after another, each starting a line. */
export function lines(parts: readonly Printed[]): Printed {
  return printed(parts.join('\n'));
}

/** A value as one line of JSON: JSON's grammar escapes every line break (U+2028 and U+2029 too) inside strings. */
export function json(value: unknown): Printed {
  return printed(
    (JSON.stringify(value) ?? 'null').replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`),
  );
}

/**
 * Text printed as it is, for what the operator asked for whole (a module's source with `--source`) or what is the
 * CLI's own (commander's help, markdown whose every value markdownText escaped): the call names why it is safe.
 */
export function verbatim(text: string, _why: 'source' | 'help' | 'markdown' | 'own'): Printed {
  return printed(text);
}

/** Printed parts joined on one line (a long template written in pieces). */
export function concat(...parts: readonly Printed[]): Printed {
  return printed(parts.join(''));
}

/** Module text after the CLI's own label: its first line on the label's line, the rest a block under it. */
export function labelled(label: Printed, text: string, prefix = '  '): Printed {
  return printed(label + block(text, prefix).slice(prefix.length));
}
