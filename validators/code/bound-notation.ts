// A code statement's magnitudes brought to numerals before any bound is read (redteam-s21c C2-C4): a number written in
// words ("twenty", "a billion", "ten million"), a type or bit width ("32-bit signed integer", "int64", "fits in 30
// bits") and a count of a number's digits ("of at most 10 digits", "a 9-digit integer") each become the bound it
// means ("below 2^31", "below 10^10"), so every reader sees what the statement means, however it is written. A number
// is read whole, its scale included ("2 billion", "1.5 million", "2 to the power 40", "100 000": redteam-s22c K1); a
// type named as advice for the program ("a 32-bit integer is enough for the total", "use 64-bit integers": K3) is the
// solver's variable, no bound of an input, and stays words. A named limit ("INT_MAX", "Number.MAX_SAFE_INTEGER")
// is its magnitude (code/bound-limits.ts: redteam-s24c K2).

import { spokenNumbers } from '../number-words.js';
import { namedLimits } from './bound-limits.js';

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

/**
 * A numeral and the scales after it, words or abbreviations, chained or not: "2 billion", "1.5 million", "2 thousand
 * million", "2 bn", "200k", "2M", "10 crore" (redteam-s23c: a scale the reader skips leaves the bare numeral, read
 * smaller than stated).
 */
const SCALE = String.raw`(?:hundred|thousand|million|billion|trillion|crore|lakh|lac|bn|mn|mln|k|K|M|B)s?`;
const SCALED = new RegExp(String.raw`\b(\d+(?:\.\d+)?)((?:\s*${SCALE}\b)+)`, 'gi');
const SCALE_VALUES: Record<string, number> = {
  hundred: 1e2,
  thousand: 1e3,
  k: 1e3,
  million: 1e6,
  m: 1e6,
  mn: 1e6,
  mln: 1e6,
  billion: 1e9,
  b: 1e9,
  bn: 1e9,
  trillion: 1e12,
  crore: 1e7,
  lakh: 1e5,
  lac: 1e5,
};
/** The value of a run of scales ("thousand million"), or null where one is no scale ("2 ms" stays as it is). */
function scaleOf(run: string): number | null {
  let v = 1;
  for (const w of run.trim().split(/\s+|(?<=[a-z])(?=[A-Z])/)) {
    const word = /^(?:k|m|b)$/i.test(w) ? w : w.replace(/s$/, '');
    const f = SCALE_VALUES[word.toLowerCase()];
    if (f === undefined || (word.length === 1 && word !== word.toUpperCase() && word !== 'k')) return null;
    v *= f;
  }
  return v;
}
/** Digits grouped by an underscore, an apostrophe or (two groups or more) a dot: "1_000_000", "2'000'000". */
const MARK_GROUPED = /\b\d{1,3}(?:(?:_\d{3})+|(?:'\d{3})+|(?:\.\d{3}){2,})\b(?![.,]\d)/g;
/** An ordinal power in words: "10 to the ninth" (its word a numeral after spokenNumbers, or an ordinal). */
const ORDINALS: Record<string, number> = {
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  eleventh: 11,
  twelfth: 12,
  thirteenth: 13,
  fourteenth: 14,
  fifteenth: 15,
  sixteenth: 16,
  seventeenth: 17,
  eighteenth: 18,
  nineteenth: 19,
  twentieth: 20,
};
const ORDINAL_POWER = new RegExp(String.raw`\bto\s+the\s+(${Object.keys(ORDINALS).join('|')})\b`, 'gi');
/** A power in words: "2 to the power 40", "2 to the power of 40", "10 to the 9th", "2 raised to the 31st power". */
const POWER_WORDS = /\b(\d+)\s+(?:raised\s+)?to\s+the\s+(?:power\s+(?:of\s+)?)?(\d+)(?:st|nd|rd|th)?(?:\s+power)?\b/gi;
/** Thousands grouped by a space or a thin space: "100 000", "1 000 000". */
const SPACE_GROUPED = /\b\d{1,3}(?:[ \u2009\u202f]\d{3})+\b(?![.,]\d)/g;
/** Words after a type that make it advice for the program's own variable ("is enough for", "holds", "is needed"). */
const ADVICE_AFTER = new RegExp(
  String.raw`^\s*(?:(?:is|are|will be|would be|should be)\s+)?(?:(?:large |big )?enough|sufficient|suffices?|` +
    String.raw`needed|required|necessary|holds?|stores?)\b`,
  'i',
);
/** Words before a type that make it advice ("use a", "store it in", "need"). */
const ADVICE_BEFORE = /\b(?:use|using|store\w*(?:\s+\w+)?\s+in|need|needs)\s+(?:an?\s+|the\s+)?$/i;
/** Whether the type at `at` (of `length` characters) of `all` is advice for the program, not a bound of an input. */
const advice = (all: string, at: number, length: number) =>
  ADVICE_AFTER.test(all.slice(at + length, at + length + 40)) ||
  ADVICE_BEFORE.test(all.slice(Math.max(0, at - 30), at));

/** The exponent of a bit width's bound: a signed k-bit integer is below 2^(k-1), an unsigned one below 2^k. */
const bitBound = (bits: number, signed: boolean) => `below 2^${signed ? bits - 1 : bits}`;

/**
 * The statement with its magnitudes as numerals: numbers in words, types and bit widths, counts of digits. Only the
 * values of numbers change; a word that is no number ("a", "one of") is left as it is.
 */
export function writtenMagnitudes(text: string): string {
  return (
    spokenNumbers(
      namedLimits(text, advice)
        .replace(SPACE_GROUPED, (g) => g.replace(/[ \u2009\u202f]/g, ''))
        .replace(MARK_GROUPED, (g) => g.replace(/[_'.]/g, ''))
        // A numeral's scales before the words: "2 thousand million" is one number, not 2000 and a million.
        .replace(SCALED, (whole: string, n: string, run: string) => {
          const scale = scaleOf(run);
          return scale === null ? whole : String(Number((Number(n) * scale).toPrecision(15)));
        }),
    )
      .replace(ORDINAL_POWER, (_, word: string) => `to the ${ORDINALS[word.toLowerCase()]}`)
      .replace(POWER_WORDS, (_, base: string, exp: string) => `${base}^${exp}`)
      // Types: "int32", "uint8", "i64", "u16".
      .replace(
        /\b(u?)(?:int|i)(8|16|32|64)(?:_t)?\b/g,
        (whole: string, u: string, k: string, at: number, all: string) =>
          advice(all, at, whole.length) ? whole : `integer ${bitBound(+k, !u)}`,
      )
      // Bit widths: "32-bit signed integer", "signed 32-bit integers", "a 64 bit unsigned value", "signed 32-bit".
      .replace(BIT_WIDTH, (whole: string, a?: string, k?: string, b?: string, noun?: string, ...rest: unknown[]) =>
        (a === undefined && b === undefined && noun === undefined) ||
        advice(rest[1] as string, rest[0] as number, whole.length)
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
