// A number is its value (validators/number-words.ts, red team rt27s S1): words, Roman numerals, place value, scales,
// separators and leading zeros all read as the same plain digits; words that are no number stay as they are.
import { describe, expect, it } from 'vitest';
import { numbersAsValues, wordsValue } from '../validators/number-words.js';

describe('numbers as values', () => {
  it.each([
    '423',
    '000423',
    'four hundred and twenty-three',
    'four hundred twenty-three',
    'Four Hundred Twenty Three',
    'CDXXIII',
    '4 hundreds, 2 tens and 3 ones',
    '4 hundreds 2 tens 3 ones',
  ])('%s is 423', (form) => {
    expect(numbersAsValues(`divisible by ${form}?`)).toBe('divisible by 423?');
  });

  it('reads scales after a numeral, separators and trailing zeros', () => {
    expect(numbersAsValues('1.2 thousand, 1,200, 1200.0 and two thousand and five')).toBe('1200, 1200, 1200 and 2005');
    expect(numbersAsValues('the Roman V, 1 ten 2 ones, 3.50')).toBe('the Roman 5, 12, 3.5');
  });

  it('keeps two numbers two, and words that are no number words', () => {
    expect(numbersAsValues('between one hundred and two hundred')).toBe('between 100 and 200');
    expect(numbersAsValues('one of them, a ten-digit code, I said, a LLAMA')).toBe(
      'one of them, a 10-digit code, I said, a LLAMA',
    );
    expect(numbersAsValues('1,2,3 and 4.5.6')).toBe('1,2,3 and 4.5.6');
  });

  it('agrees with the number words reader', () => {
    expect(wordsValue('four hundred twenty-three')).toBe(423);
    expect(numbersAsValues('twelve thousand three hundred')).toBe(String(wordsValue('twelve thousand three hundred')));
  });
});
