// Numbers written in English words, shared by the readers that take a number for its value (code bounds, memorised
// pools): the word tables, a pattern for one number word, and a phrase's value ("four hundred twenty-three": 423).

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
export const NUMBER_WORD = `(?:${[...UNITS, ...TENS.filter(Boolean)].join('|')}|hundred|thousand|million|billion|trillion)`;

/** A number in words as its value; NaN where it is none. */
export function wordsValue(phrase: string): number {
  let total = 0;
  let group = 0;
  for (const word of phrase.toLowerCase().split(/[\s-]+/)) {
    const unit = UNITS.indexOf(word);
    const ten = TENS.indexOf(word);
    if (word === 'a' || word === 'an') group = 1;
    else if (unit >= 0) group += unit;
    else if (ten >= 2) group += ten * 10;
    else if (word === 'hundred') group = (group || 1) * 100;
    else if (SCALES[word] !== undefined) {
      total += (group || 1) * (SCALES[word] as number);
      group = 0;
    } else return Number.NaN;
  }
  return total + group;
}
