// The numbers a code statement states its bounds with, read as expressions ("2 * 10^5", "2·10^5", "10⁹", "1e9",
// "10**9", "1,000,000", "2^31 - 1"), after the statement's notation is brought to one form (≤, LaTeX, superscripts);
// and whether a number that starts after a comparison goes on past what was read (an unread bound). Magnitudes in
// words, types and digit counts become numerals first (code/bound-notation.ts).
import { writtenMagnitudes } from './bound-notation.js';

const SUPERSCRIPT = '⁰¹²³⁴⁵⁶⁷⁸⁹';

/** The statement with its comparison signs, minus signs, products, exponents and magnitudes written one way. */
export function normalizeNotation(statement: string): string {
  const signs = statement
    .replace(/[≤⩽]|\\leq?\b/g, '<=')
    .replace(/[≥⩾]|\\geq?\b/g, '>=')
    .replace(/[−–]/g, '-')
    .replace(/[·×⋅]|\\cdot\b|\\times\b/g, '*')
    .replace(/(\d)\s*[xX]\s*(?=10\s*(?:\^|\*\*|[⁰¹²³⁴⁵⁶⁷⁸⁹]))/g, '$1 * ')
    .replace(/\^\s*\{\s*(\d+)\s*\}/g, '^$1')
    .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹]+/g, (s) => `^${[...s].map((c) => SUPERSCRIPT.indexOf(c)).join('')}`);
  return writtenMagnitudes(signs);
}

/** One number: digits, thousands, a fraction, an exponent, a power. */
export const ATOM = String.raw`\d+(?:,\d{3})*(?:\.\d+)?(?:[eE][+-]?\d+)?(?:[ \t]*(?:\^|\*\*)[ \t]*\d+)?`;
/**
 * A number as an expression: atoms joined by products, sums and differences, on one line (a line break ends it:
 * "10^9\n-10^9" is two bounds, redteam-s18 C5).
 */
export const NUMBER = String.raw`(${ATOM}(?:[ \t]*[*+-][ \t]*${ATOM})*)`;
const WHOLE = new RegExp(`^${NUMBER}$`);

/** One atom's value: "10^5", "1,000", "2e9", "2 ** 31". */
function atomValue(text: string): number {
  const power = /^(.+?)\s*(?:\^|\*\*)\s*(\d+)$/.exec(text);
  if (power) return atomValue(power[1] as string) ** Number(power[2]);
  return Number(text.replace(/,/g, ''));
}

/** A stated number as a value ("10^5", "2 * 10^5", "2^31 - 1", "1,000"); NaN when it is none. */
export function statedNumber(text: string): number {
  const t = normalizeNotation(text).trim();
  if (!WHOLE.test(t)) return Number.NaN;
  // Sums of products of atoms, read left to right.
  const step = new RegExp(String.raw`[ \t]*([*+-]?)[ \t]*(${ATOM})`, 'y');
  let total = 0;
  let term = 0;
  for (let m = step.exec(t); m; m = step.exec(t)) {
    const value = atomValue((m[2] as string).replace(/\*\*/g, '^'));
    if (m[1] === '*') term *= value;
    else {
      total += term;
      term = m[1] === '-' ? -value : value;
    }
  }
  total += term;
  return total;
}

/**
 * Whether the text after a read number still continues it: a power or product not read ("10^(9)", "10 * k"), digits
 * grouped by spaces ("100 000"), a product written with x, a letter or a digit mark right after it that no notation
 * read ("2G", "1_0"): the bound is counted unread, never taken as its bare numeral (redteam-s23c); a line break ends
 * it (a numbered list follows).
 */
export function continuesNumber(after: string): boolean {
  return /^(?:[ \t]*[\^*{]|[ \u00a0\u202f]\d{3}(?!\d)|[ \t]*[xX][ \t]*\d|[A-Za-z]|[_']\d)/.test(after);
}
