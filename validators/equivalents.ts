// The reference answer rewritten as a model would write it, each form a correct answer: in the prompt's own
// notation (its minus sign, its digit grouping, its quoting of the answer, its spacing of the list separator)
// and in ordinary equivalent forms (padded inside the tag, on its own line in it, a list's comma or semicolon
// with or without its space). A verifier must pay each as it pays the reference: one that rejects them trains a model
// away from correct work. Forms are written only where they differ from the reference. Guest text: linear scans.
import { shapeOf } from './answers.js';

const MINUS = '\u2212';
/**
 * Thousands grouped with a comma, a thin or no-break space, an apostrophe or an underscore (a plain space is too often
 * a list).
 */
const GROUPED = /(?<![\d.,])\d{1,3}(?:([,\u202f\u00a0'_])\d{3})+(?![\d])/g;

/**
 * Whether the prompt writes a negative number with the Unicode minus sign (not a subtraction: nothing word-like before
 * it).
 */
function printsUnicodeMinus(prompt: string): boolean {
  for (let at = prompt.indexOf(MINUS); at >= 0 && at < 50_000; at = prompt.indexOf(MINUS, at + 1)) {
    const next = prompt.charCodeAt(at + 1);
    const before = prompt[at - 1] ?? ' ';
    if (next >= 48 && next <= 57 && !/[\w)\]]/.test(before)) return true;
  }
  return false;
}

/**
 * The separator the prompt groups thousands with, where it does so consistently (no large number printed without it).
 */
function groupingOf(prompt: string): string | null {
  const text = prompt.slice(0, 50_000);
  const seps = new Set<string>();
  for (const m of text.matchAll(GROUPED)) seps.add(m[1] as string);
  if (seps.size !== 1) return null;
  const sep = [...seps][0] as string;
  // A number of five digits or more printed plain means grouping is not the prompt's notation; digits joined
  // by a comma in groups other than three mean the commas separate a list.
  if (/(?<![\d.,\u202f\u00a0'_])\d{5,}/.test(text)) return null;
  return sep === ',' && /\d,(?:\d{1,2}|\d{4,})(?!\d)/.test(text) ? null : sep;
}

function group(integer: string, sep: string): string {
  const sign = integer.startsWith('-') ? '-' : '';
  const digits = sign ? integer.slice(1) : integer;
  let out = '';
  for (let i = 0; i < digits.length; i++) out += (i > 0 && (digits.length - i) % 3 === 0 ? sep : '') + digits[i];
  return sign + out;
}

/** Whether `text` holds an item of 1 to 80 characters between `open` and `close` on one line. */
function quotesAnother(text: string, open: string, close: string): boolean {
  for (let at = text.indexOf(open); at >= 0; at = text.indexOf(open, at + 1)) {
    const end = text.indexOf(close, at + 1);
    if (end > at + 1 && end - at - 1 <= 80 && !text.slice(at + 1, end).includes('\n')) return true;
  }
  return false;
}

/**
 * The quote marks the prompt wraps its candidate answers in: where it quotes the answer and at least one other
 * item the same way (a list of quoted choices), and says nothing of quotes (a prompt that asks for "no quotes"
 * has stated the format, and a string's quotes may be part of it).
 */
function quotingOf(prompt: string, content: string): [string, string] | null {
  if (content.length === 0 || content.length > 80 || /\bquot/i.test(prompt.slice(0, 50_000))) return null;
  for (const [open, close] of [
    ['"', '"'],
    ["'", "'"],
    ['\u201c', '\u201d'],
    ['`', '`'],
  ] as const) {
    const quoted = `${open}${content}${close}`;
    const at = prompt.indexOf(quoted);
    if (at < 0) continue;
    // Another quoted item within a line of the answer: the prompt lists its choices quoted.
    const around = prompt
      .slice(Math.max(0, at - 200), at + quoted.length + 200)
      .split(quoted)
      .join(' ');
    if (quotesAnother(around, open, close)) return [open, close];
  }
  return null;
}

/** Whether the prompt joins two of the answer's items with `sep` (its own spacing of the reference's separator). */
function joinsWith(prompt: string, items: string[], sep: string): boolean {
  for (let i = 0; i + 1 < Math.min(items.length, 4); i++)
    if (prompt.includes(`${items[i]}${sep}${items[i + 1]}`) || prompt.includes(`${items[i + 1]}${sep}${items[i]}`))
      return true;
  return false;
}

/**
 * Every correct rewriting of `content` this prompt makes expected, with how it was made; the ordinary forms (whitespace
 * in the tag) only where asked.
 */
export function equivalentForms(prompt: string, content: string, ordinary = true): Array<[string, string]> {
  const text = content.trim();
  const shape = shapeOf(text);
  const out: Array<[string, string]> = [];
  const add = (form: string, v: string) => {
    if (v !== text && !out.some(([, w]) => w === v)) out.push([form, v]);
  };
  if (/(^|[^\w.])-\d/.test(text) && printsUnicodeMinus(prompt))
    add("the prompt's minus sign (\u2212)", text.replace(/(^|[^\w.])-(?=\d)/g, `$1${MINUS}`));
  const sep = shape.kind === 'integer' ? groupingOf(prompt) : null;
  if (sep !== null && Math.abs(Number(text)) >= 1000)
    add(`the prompt's digit grouping (${JSON.stringify(sep)})`, group(text, sep));
  const quotes = shape.kind !== 'list' ? quotingOf(prompt, text) : null;
  if (quotes) add("the prompt's quoting", `${quotes[0]}${text}${quotes[1]}`);
  // A list's separator spaced as the prompt spaces it, or as people do (a comma or semicolon with or without its
  // space): another separator altogether is a format the prompt may state, and a strict verifier of it is within its
  // rights.
  if (shape.kind === 'list' && (shape.separator === ', ' || shape.separator === '; ') && !shape.bracketed) {
    const mark = shape.separator.trim();
    const spaced = text.includes(`${mark} `);
    const other = spaced ? mark : `${mark} `;
    if (joinsWith(prompt.slice(0, 20_000), shape.items, other))
      add(`the prompt's list separator (${JSON.stringify(other)})`, shape.items.join(other));
    else if (ordinary)
      add(
        `the list's ${JSON.stringify(mark)} ${spaced ? 'without' : 'with'} a space after it`,
        shape.items.join(other),
      );
  }
  if (ordinary && text.length > 0 && text.length <= 2_000) {
    add('padded inside the tag', ` ${text} `);
    add('on its own line inside the tag', `\n${text}\n`);
  }
  return out;
}
