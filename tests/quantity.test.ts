// The one reader of a number with its unit (validators/quantity.ts): the number as written and its value, the unit
// as written, and for a unit the tables know its dimension and base value; running text read quantity by quantity.
import { describe, expect, it } from 'vitest';
import { quantitiesIn, readQuantity, wordAt } from '../validators/quantity.js';

const read = (text: string) => readQuantity(text);

describe('readQuantity: the number', () => {
  it('reads a bare number, its sign, decimals, thousands separators, exponent and fraction', () => {
    expect(read('5')).toMatchObject({ numeral: '5', digits: '5', value: 5, start: 0, end: 1, numberEnd: 1 });
    expect(read('5')?.unit).toBeUndefined();
    expect(read('-12.50')).toMatchObject({ numeral: '-12.50', digits: '-12.50', value: -12.5 });
    expect(read('+7')).toMatchObject({ digits: '+7', value: 7 });
    expect(read('1,200,000.5')).toMatchObject({ numeral: '1,200,000.5', digits: '1200000.5', value: 1200000.5 });
    expect(read('1.5e3')).toMatchObject({ numeral: '1.5e3', value: 1500 });
    expect(read('2E-3')).toMatchObject({ value: 0.002 });
    expect(read('3/4')).toMatchObject({ numeral: '3/4', value: 0.75 });
    expect(read('-1/8')?.value).toBe(-0.125);
  });

  it('keeps out of the number separators that group no thousands, a zero denominator, an exponent in a word', () => {
    expect(read('1,2345')).toMatchObject({ numeral: '1', end: 1 });
    expect(read('3/0')).toMatchObject({ numeral: '3', value: 3 });
    // A hash is no number 43e427 with a unit "b".
    expect(read('43e427b')).toMatchObject({ numeral: '43', end: 2 });
    expect(read('43e427b')?.unit).toBeUndefined();
  });

  it('reads a currency sign before the number, a sign on either side of it', () => {
    expect(read('$1,200')).toMatchObject({ currency: '$', digits: '1200', value: 1200, family: 'money', base: 1200 });
    expect(read('£ 4.50')).toMatchObject({ currency: '£', value: 4.5 });
    expect(read('-$5')).toMatchObject({ currency: '$', digits: '-5', value: -5 });
    expect(read('€-5')).toMatchObject({ currency: '€', digits: '-5', value: -5 });
  });

  it('reads an ordinal suffix and a "No.", "#" or "number" before a whole number', () => {
    expect(read('8th')).toMatchObject({ ordinal: 'th', value: 8, numberEnd: 3 });
    expect(read('21st place')).toMatchObject({ ordinal: 'st', value: 21, numberEnd: 4 });
    expect(read('8th')?.unit).toBeUndefined();
    expect(read('#8')).toMatchObject({ marker: '#', value: 8 });
    expect(read('No. 8')).toMatchObject({ marker: 'No.', value: 8, end: 5 });
    expect(read('number 12')).toMatchObject({ marker: 'number', value: 12 });
    // Not after a decimal, and not where the letters run on.
    expect(read('12.5th')).toMatchObject({ value: 12.5, unit: 'th' });
    expect(read('12.5th')?.ordinal).toBeUndefined();
    expect(read('5thousand')?.ordinal).toBeUndefined();
  });

  it('reads nothing where no number begins', () => {
    for (const t of ['kg', 'No. x', '#', '$', '.5', 'e3']) expect(read(t)).toBeNull();
    expect(readQuantity('at 5 kg', 0)).toBeNull();
    expect(readQuantity('at 5 kg', 3)).toMatchObject({ start: 3, end: 7, value: 5, unit: 'kg' });
  });
});

describe('readQuantity: the unit', () => {
  it('reads a unit the tables know as written, with its dimension and base value', () => {
    expect(read('8,800 kg')).toMatchObject({ unit: 'kg', unitStart: 6, family: 'gram', base: 8_800_000, size: 1000 });
    expect(read('1.5e3 m')).toMatchObject({ unit: 'm', family: 'metre', base: 1500 });
    expect(read('3 cubic metres')).toMatchObject({ unit: 'cubic metres', family: 'litre', base: 3000 });
    expect(read('1.2 m³')).toMatchObject({ family: 'litre', base: 1200 });
    expect(read('90 Minutes')).toMatchObject({ unit: 'Minutes', family: 'second', base: 5400 });
    expect(read('3/4 km')).toMatchObject({ family: 'metre', base: 750 });
    expect(read('120p')).toMatchObject({ unit: 'p', family: 'money', base: 1.2 });
  });

  it('reads a compound unit as a rate, however its "per" is written', () => {
    expect(read('80 km/h')).toMatchObject({ unit: 'km/h', family: 'metre per second' });
    expect(read('80 km/h')?.base).toBeCloseTo(22.222, 3);
    expect(read('30 litres a minute')).toMatchObject({
      unit: 'litres a minute',
      family: 'litre per second',
      base: 0.5,
    });
    expect(read('1.8 kL per h')).toMatchObject({ family: 'litre per second', base: 0.5 });
    expect(read('£4.5 an hour')).toMatchObject({ currency: '£', family: 'money per second', base: 4.5 / 3600 });
    // A rate is never summed with the next part.
    expect(read('80 km/h')?.size).toBeUndefined();
  });

  it('reads an unknown word after the number as the unit as written, with no dimension', () => {
    expect(read('4 pm')).toMatchObject({ unit: 'pm', unitStart: 2, end: 4 });
    expect(read('4 pm')?.family).toBeUndefined();
    expect(read('52 °N')).toMatchObject({ unit: '°N' });
    expect(read('35 %')).toMatchObject({ unit: '%', value: 35 });
    expect(read('35%')).toMatchObject({ unit: '%', unitStart: 2 });
    expect(read('5 p.m.')).toMatchObject({ unit: 'p.m', end: 5 });
    // A word running on past a known unit is another unit: a rate the tables do not know.
    expect(read('5 kg/bag')).toMatchObject({ unit: 'kg/bag' });
    expect(read('5 kg/bag')?.family).toBeUndefined();
    // One space at most between number and unit; a word glued to a digit is none.
    expect(read('5  kg')?.unit).toBeUndefined();
    expect(read('5 kg2')?.unit).toBeUndefined();
  });

  it('keeps a currency amount the unit of its own: a unit after it is no dimension, a word after it no unit', () => {
    expect(read('$5 kg')).toMatchObject({ currency: '$', unit: 'kg', end: 5 });
    expect(read('$5 kg')?.family).toBeUndefined();
    expect(read('$15 each')).toMatchObject({ currency: '$', end: 3, family: 'money' });
    expect(read('$15 each')?.unit).toBeUndefined();
    expect(wordAt('$15 each', 3)).toEqual({ unit: 'each', unitStart: 4, end: 8 });
  });
});

describe('quantitiesIn', () => {
  it('reads running text quantity by quantity, from a currency sign or a digit that begins no word', () => {
    const qs = quantitiesIn('Plot 7 holds 2 m, 15 cm and x3 apples for $4 (-5 kg).');
    expect(qs.map((q) => [q.value, q.unit ?? q.currency, q.family])).toEqual([
      [7, 'holds', undefined],
      [2, 'm', 'metre'],
      [15, 'cm', 'metre'],
      [4, '$', 'money'],
      [5, 'kg', 'gram'],
    ]);
    expect(quantitiesIn('v1.2 and 3-4 kg')).toMatchObject([{ value: 3 }, { value: 4, unit: 'kg' }]);
  });
});
