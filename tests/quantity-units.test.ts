// Quantities as values in their dimension's base unit (validators/quantity-units.ts): one quantity in any unit reads
// the same, a rate as its quotient, a compound duration or length as its sum; text that is no quantity stays.
import { describe, expect, it } from 'vitest';
import { numbersAsValues } from '../validators/number-words.js';
import { quantitiesAsValues } from '../validators/quantity-units.js';

const read = (text: string) => quantitiesAsValues(numbersAsValues(text));

describe('quantitiesAsValues', () => {
  it('reads one volume, mass, length or duration alike in any unit (rt28s N5)', () => {
    for (const t of ['1200 litres', '1,200,000 millilitres', '1.2 cubic metres', '1.2 kL', '1200 L', '1.2 m³'])
      expect(read(t)).toBe('1200 litre');
    expect(read('2.5 kg')).toBe(read('2500 grams'));
    expect(read('1.5 km')).toBe(read('1500 metres'));
    expect(read('90 min')).toBe(read('1.5 hours'));
    expect(read('ninety minutes')).toBe(read('5400 s'));
  });

  it('reads a rate as its quotient, however its "per" is written', () => {
    const rates = ['30 litres a minute', '1800 litres an hour', '500 millilitres a second', '30 L/min', '1.8 kL per h'];
    for (const t of rates) expect(read(t)).toBe('0.5 litre per second');
  });

  it('adds a compound of falling units, and keeps a list of equal ones apart', () => {
    expect(read('1 h 30 min')).toBe(read('90 minutes'));
    expect(read('2 m, 15 cm')).toBe(read('215 cm'));
    expect(read('loads of 5 kg, 3 kg')).toBe('loads of 5000 gram, 3000 gram');
  });

  it('reads money in its major unit, a currency sign or pence alike', () => {
    expect(read('costs £1.20')).toBe(read('costs 120p'));
    expect(read('$4.50 an hour')).toBe(read('450 cents per hour'));
  });

  it('reads US customary units and temperatures in the same base units', () => {
    expect(read('3 feet 2 inches')).toBe(read('96.52 cm'));
    expect(read('2 mi')).toBe(read('3218.688 metres'));
    expect(read('1 yard')).toBe(read('0.9144 m'));
    expect(read('2 lb 3 oz')).toBe(read('992.233309375 g'));
    expect(read('1 gallon')).toBe(read('3.785411784 L'));
    expect(read('2 pints')).toBe(read('0.946352946 L'));
    expect(read('60 mph')).toBe(read('26.8224 metres per second'));
    expect(read('68 °F')).toBe(read('20 °C'));
    expect(read('212 degrees Fahrenheit')).toBe(read('100 degrees Celsius'));
    // A temperature has a zero of its own: two are a list, never one sum.
    expect(read('20 °C, 68 °F')).toBe('20 celsius, 20 celsius');
    // "in" is a word before it is an inch; "pounds" are money.
    expect(read('5 in the box')).toBe('5 in the box');
    expect(read('5 pounds')).toBe(read('£5'));
  });

  it('leaves what is no quantity as it is', () => {
    for (const t of ['at 5 p.m. today', '5 per cent', 'a 5 M solution', 'x3 apples', 'Plot 7 holds', '12 m² of land'])
      expect(read(t)).toBe(numbersAsValues(t));
  });
});
