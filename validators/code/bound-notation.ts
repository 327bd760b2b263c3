// A code statement's magnitudes brought to numerals before any bound is read (redteam-s21c C2-C4): a number written in
// words ("twenty", "a billion", "ten million"), a type or bit width ("32-bit signed integer", "int64", "fits in 30
// bits") and a count of a number's digits ("of at most 10 digits", "a 9-digit integer") each become the bound it
// means ("below 2^31", "below 10^10"), so every reader sees what the statement means, however it is written.

import { spokenNumbers } from '../number-words.js';

/** A bit width, signed or not, of a noun or alone: "32-bit signed integer", "signed 32-bit integers". */
const BIT_WIDTH = new RegExp(
  String.raw`\b(?:(signed|unsigned)\s+)?(\d{1,2})[- ]bits?(?:\s+(signed|unsigned))?` +
    String.raw`(?:\s+(integers?|ints?|numbers?|values?))?\b`,
  'gi',
);
/** A count of digits after an upper bound's words: "of at most 10 digits", "up to 9 decimal digits each". */
const DIGIT_COUNT = new RegExp(
  String.raw`\b(?:of\s+|with\s+|having\s+)?(?:at most|up to|no more than|not more than)\s+(\d{1,3})\s+` +
    String.raw`(?:decimal\s+)?digits(?:\s+each)?\b`,
  'gi',
);

/** The exponent of a bit width's bound: a signed k-bit integer is below 2^(k-1), an unsigned one below 2^k. */
const bitBound = (bits: number, signed: boolean) => `below 2^${signed ? bits - 1 : bits}`;

/**
 * The statement with its magnitudes as numerals: numbers in words, types and bit widths, counts of digits. Only the
 * values of numbers change; a word that is no number ("a", "one of") is left as it is.
 */
export function writtenMagnitudes(text: string): string {
  return (
    spokenNumbers(text)
      // Types: "int32", "uint8", "i64", "u16".
      .replace(/\b(u?)(?:int|i)(8|16|32|64)(?:_t)?\b/g, (_, u: string, k: string) => `integer ${bitBound(+k, !u)}`)
      // Bit widths: "32-bit signed integer", "signed 32-bit integers", "a 64 bit unsigned value", "signed 32-bit".
      .replace(BIT_WIDTH, (whole: string, a?: string, k?: string, b?: string, noun?: string) =>
        a === undefined && b === undefined && noun === undefined
          ? whole
          : `${noun ?? ''} ${bitBound(Number(k), (a ?? b ?? 'signed').toLowerCase() === 'signed')}`.trimStart(),
      )
      // "fits in 30 bits", "fit into 31 bits": an unsigned width.
      .replace(/\bfits?\s+(?:in|into|within)\s+(\d{1,2})\s+bits\b/gi, (_, k: string) => `is ${bitBound(+k, false)}`)
      // Digits of a number: "a 10-digit integer", "integers of at most 10 digits", "up to 9 decimal digits".
      .replace(
        /\b(\d{1,3})-digit\s+(integers?|numbers?|values?)\b/gi,
        (_, d: string, noun: string) => `${noun} below 10^${d}`,
      )
      .replace(DIGIT_COUNT, (whole: string, d: string, at: number, all: string) =>
        numberDescribed(all.slice(Math.max(0, at - 60), at)) ? `below 10^${d}` : whole,
      )
  );
}

/** Nouns a count of digits may describe: a number's (its magnitude) or a string's (its length). */
const DESCRIBED = /\b(integers?|numbers?|values?|ints?|strings?|texts?|words?|codes?|ids?|names?)\b/gi;

/** Whether the words before a count of digits describe a number (its magnitude), not a string (its length). */
function numberDescribed(before: string): boolean {
  const noun = [...before.matchAll(DESCRIBED)].at(-1)?.[1];
  return noun !== undefined && /^(?:integer|number|value|int)s?$/i.test(noun);
}
