// Numbers written in English words, shared by the readers that take a number for its value (code bounds, memorised
// pools): the word tables, a pattern for one number word, and a phrase's value ("four hundred twenty-three": 423).
import { readQuantity } from './quantity.js';

export const UNITS = [
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
export const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SCALES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };

/** One number word (a regular expression's source, no groups that capture). */
const WORDS = [...UNITS, ...TENS.filter(Boolean), 'hundred', ...Object.keys(SCALES)];
export const NUMBER_WORD = `(?:${WORDS.join('|')})`;

/** A number in words as its value; NaN where it is none. */
export function wordsValue(phrase: string): number {
  let total = 0;
  let group = 0;
  let scaled = 0;
  for (const word of phrase.toLowerCase().split(/[\s-]+/)) {
    const unit = UNITS.indexOf(word);
    const ten = TENS.indexOf(word);
    if (word === 'a' || word === 'an') group = 1;
    else if (unit >= 0) group += unit;
    else if (ten >= 2) group += ten * 10;
    else if (word === 'hundred') group = (group || 1) * 100;
    else if (SCALES[word] !== undefined) {
      const scale = SCALES[word] as number;
      // A scale above the last one scales all before it ("two thousand million": 2e9).
      total = scale > scaled && total > 0 ? (total + group) * scale : total + (group || 1) * scale;
      [group, scaled] = [0, scale];
    } else return Number.NaN;
  }
  return total + group;
}

const SCALE = '(?:hundred|thousand|million|billion|trillion)';
/** A number below a hundred in words: what "and" may join to a hundred. */
const TENS_UNITS =
  `(?:(?:${TENS.filter(Boolean).join('|')})(?:[\\s-]+(?:${UNITS.slice(1, 10).join('|')}))?|` +
  `(?:${UNITS.join('|')}))\\b`;
/** The same with no scale after it: what "and" may join to a thousand or a larger scale. */
const BELOW_HUNDRED = `${TENS_UNITS}(?![\\s-]+${SCALE})`;
/**
 * A number in words, "and" after a hundred or a scale ("four hundred and twenty-three", "two thousand and five", "nine
 * hundred and fifty million": a hundreds group scaled as a whole, redteam-s22c K1); not a place or a scale after a
 * numeral ("1 ten", "1.2 thousand": place value, read after).
 */
const SPOKEN = new RegExp(
  String.raw`\b(?<!\d\s+)(?:an?\s+)?${NUMBER_WORD}` +
    String.raw`(?:[\s-]+${NUMBER_WORD}|(?:(?<=hundred)\s+and\s+(?=${TENS_UNITS}(?![\s-]+hundred))|` +
    String.raw`(?<=${SCALE})\s+and\s+(?=${BELOW_HUNDRED}))${NUMBER_WORD})*\b`,
  'gi',
);
/** A Roman numeral of two letters or more, in capitals, or one letter after "Roman" ("XII", "the Roman V"). */
const ROMAN =
  /\b(?:(?<=\b[Rr]oman\s+)[IVXLCDM]|(?=[MDCLXVI]{2})M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3}))\b/g;
const ROMAN_VALUES: Record<string, number> = { I: 1, V: 5, X: 10, L: 50, C: 100, D: 500, M: 1000 };
const PLACES: Record<string, number> = { one: 1, ten: 10, hundred: 100, thousand: 1e3, million: 1e6, billion: 1e9 };
const PLACE = String.raw`(\d+(?:\.\d+)?|one)\s+(ones?|tens?|hundreds?|thousands?|millions?|billions?)\b`;
/** Place value or a scale after a numeral: "4 hundreds, 2 tens and 3 ones", "1 ten 2 ones", "1.2 thousand". */
const PLACE_RUN = new RegExp(String.raw`\b${PLACE}(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+|\s+)${PLACE})*`, 'gi');
const PLACE_ONE = new RegExp(PLACE, 'gi');

/** A phrase of number words as a numeral; an article before no hundred or scale and "one" alone stay words. */
function spokenNumeral(phrase: string): string {
  const article = /^(an?)\s+(?!hundred|thousand|million|billion|trillion)/i.exec(phrase);
  if (article !== null) return `${article[0]}${spokenNumeral(phrase.slice(article[0].length))}`;
  if (/^one$/i.test(phrase)) return phrase;
  const value = wordsValue(phrase.replace(/\s+and\s+/gi, ' '));
  return Number.isFinite(value) ? String(value) : phrase;
}

function romanValue(numeral: string): number {
  let total = 0;
  for (let i = 0; i < numeral.length; i++) {
    const v = ROMAN_VALUES[numeral[i] as string] as number;
    total += v < (ROMAN_VALUES[numeral[i + 1] as string] ?? 0) ? -v : v;
  }
  return total;
}

/** The text with its numbers in words as numerals ("two hundred and five" 205); articles and "one" alone stay. */
export const spokenNumbers = (text: string): string => text.replace(SPOKEN, spokenNumeral);

/** A numeral in one spelling: no thousands separators, no leading zeros, no trailing zeros after a point. */
function canonical(token: string): string {
  const plain = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(token) ? token.replaceAll(',', '') : token;
  if (!/^\d+(?:\.\d+)?$/.test(plain)) return token;
  const [whole, fraction = ''] = plain.split('.') as [string, string?];
  const digits = whole.replace(/^0+(?=\d)/, '');
  const rest = fraction.replace(/0+$/, '');
  return rest ? `${digits}.${rest}` : digits;
}

/**
 * The text with each number written as its value in plain digits, however the text spells it: in words ("four
 * hundred and twenty-three"), a Roman numeral ("CDXXIII"), place value ("4 hundreds, 2 tens and 3 ones"), a scale
 * ("1.2 thousand"), separators or leading zeros ("1,200", "007"). A number is its value (rt27s S1); one pass a form,
 * each linear in the text.
 */
export function numbersAsValues(text: string): string {
  return (
    spokenNumbers(text)
      // An empty match ("LL", no numeral) stays as it is.
      .replace(ROMAN, (r) => (r ? String(romanValue(r)) : r))
      .replace(/\d+(?:[.,]\d+)*/g, canonical)
      .replace(PLACE_RUN, (run) => {
        let total = 0;
        for (const [, n, place] of run.matchAll(PLACE_ONE)) {
          const scale = PLACES[(place as string).toLowerCase().replace(/s$/, '')] as number;
          total += (n?.toLowerCase() === 'one' ? 1 : Number(n)) * scale;
        }
        return canonical(String(Number(total.toPrecision(15))));
      })
  );
}

/** Ordinal words whose cardinal is no plain cut of "th" ("first", "twelfth"). */
const ORDINAL_WORDS: Record<string, string> = {
  first: 'one',
  second: 'two',
  third: 'three',
  fifth: 'five',
  eighth: 'eight',
  ninth: 'nine',
  twelfth: 'twelve',
};
const cardinalWord = (w: string) =>
  ORDINAL_WORDS[w] ?? (w.endsWith('ieth') ? `${w.slice(0, -4)}y` : w.endsWith('th') ? w.slice(0, -2) : w);
/** What may follow a whole number as an answer writes it: a full stop, "place", "of 9" ("8th place", "8 out of 9"). */
const AFTER_INTEGER = /^\.?(?:\s+place)?(?:\s+(?:out\s+)?of\s+\d+)?$/;

/**
 * The whole number an answer states (rt29s P2: "8th" is 8 to every reader of a place), written in digits (read by
 * quantity.ts) with its ordinal suffix, sign, "No." or "#" set aside, or in words, cardinal or ordinal ("eight",
 * "eighth", "twenty-first"); NaN where it states none.
 */
export function integerAnswer(answer: string): number {
  const t = answer.trim().toLowerCase().slice(0, 100);
  const q = readQuantity(t);
  if (q && !q.currency && /^[+-]?\d{1,6}$/.test(q.digits) && AFTER_INTEGER.test(t.slice(q.numberEnd))) return q.value;
  const words = t.replace(/\s+place$/, '').split(/[\s-]+/);
  if (words[0] === 'a' || words[0] === 'an' || !/^\p{L}/u.test(t)) return Number.NaN;
  const last = words.length - 1;
  return wordsValue(words.map((w, i) => (i === last ? cardinalWord(w) : w)).join(' '));
}
