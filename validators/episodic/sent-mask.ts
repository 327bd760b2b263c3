// One mask for what the plan sent, shared by every trace of a call (gates.ts, traces.ts, neutral.ts): each value sent
// is read as one mark wherever it stands as a word (beside digits and punctuation too), and every number as another.
import { escape } from './adversaries-values.js';

/** The mark a sent value reads as. */
export const SENT = '·';

/** The string values `args` sends, trimmed, the empty ones left out. */
export const sentOf = (args: Readonly<Record<string, unknown>>): string[] =>
  Object.values(args).flatMap((v) => (typeof v === 'string' && v.trim().length > 0 ? [v.trim()] : []));

/**
 * A pattern of `values`, each a whole word by letters, the longest first: a value is masked beside digits too (a row
 * letter sent alone is written into a seat, "Held B30-B34": redteam-trust5 honest-seat-blocks), never inside a word.
 */
export function sentPattern(values: readonly string[]): RegExp {
  const words = [...new Set(values.map((v) => v.trim()).filter((v) => v.length > 0))].sort(
    (a, b) => b.length - a.length,
  );
  const any = words.length > 0 ? words.map(escape).join('|') : '(?!)';
  return new RegExp(`(?<![A-Za-z_])(?:${any})(?![A-Za-z_])`, 'gi');
}

/** `text` with the values `sent` matches read as one mark. */
export const maskValues = (text: string, sent: RegExp): string => text.replace(sent, SENT);

/** `text` with the values `sent` matches read as one mark and every number as another: only the world's words stay. */
export const maskSent = (text: string, sent: RegExp): string => maskValues(text, sent).replace(/\d+/g, '#');
