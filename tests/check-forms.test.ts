// What the newer checks send and read, on plain data (no sandbox): coarse renderings with their controls, the
// correct forms completeness requires, the constant candidates, the prompt's listed items, and the options
// reader's arithmetic features.
import { describe, expect, it } from 'vitest';
import type { Episode } from '../sandbox/episodes.js';
import { OPTIONS } from '../validators/choice-rules.js';
import { constantCandidates, surfaceForms } from '../validators/constants.js';
import { equivalentForms } from '../validators/equivalents.js';
import { answerList, listedItems, promptGuesses } from '../validators/prompt-guesses.js';
import { notationForms } from '../validators/notations.js';
import { quantityRuns } from '../validators/quantities.js';
import { coarseRenderings } from '../validators/renderings.js';
import { choiceSample, pooled } from './helpers/readers.js';

const episode = (prompt: string, content: string, seed = 0, level = 1): Episode => ({
  ok: true,
  seed,
  level,
  instance: { prompt },
  reference: `<answer>${content}</answer>`,
  referenceVerdict: { ok: true, score: 1 },
  verdicts: [],
  ms: [0, 0, 0],
});

describe('coarse renderings', () => {
  it('writes a decimal coarsely, with the same value at full precision and a value as close on the other side', () => {
    const byForm = new Map(coarseRenderings('12.347').map((r) => [r.form, r]));
    expect(byForm.get('rounded to 0 decimals')).toEqual({
      form: 'rounded to 0 decimals',
      coarse: '12',
      controls: ['12.000', '12.659'],
    });
    expect(byForm.get('rounded up to an integer')?.coarse).toBe('13');
    expect(byForm.get('1 significant figure')?.coarse).toBe('10');
    expect(byForm.get('the constant 1e6')?.controls[0]).toBe('1000000.000');
    // A move of one unit of the last place is rounding: "12.34" is never sent for 12.341.
    expect(coarseRenderings('12.341').map((r) => r.coarse)).not.toContain('12.34');
    expect(byForm.get('rounded to 2 decimals')?.coarse).toBe('12.35');
  });

  it('writes an integer in scientific notation, and leaves its plain roundings to the value moves', () => {
    const coarse = coarseRenderings('1234').map((r) => r.coarse);
    expect(coarse).toEqual(expect.arrayContaining(['1e3', '1.2e3', '1e6']));
    // 1200 and 0 are plain integers, as the reference is written: value moves with no notation control.
    for (const plain of ['1000', '1200', '0']) expect(coarse).not.toContain(plain);
    expect(coarseRenderings('3')).toEqual(expect.arrayContaining([expect.objectContaining({ coarse: '1e6' })]));
    for (const other of ['abc', '1, 2', '3/4', '']) expect(coarseRenderings(other)).toEqual([]);
  });
});

describe('correct forms completeness requires', () => {
  const forms = (prompt: string, content: string) =>
    new Map(equivalentForms(prompt, content).map(([f, v]) => [f.replace(/ \(.*\)$/, ''), v]));

  it('writes a negative answer with the minus sign the prompt prints, and not where the prompt only subtracts', () => {
    expect(forms('Readings: \u221212, 3, \u22124.', '-12').get("the prompt's minus sign")).toBe('\u221212');
    expect(forms('a(n) = c1\u00b7a(n\u22121) + d', '-12').has("the prompt's minus sign")).toBe(false);
  });

  it('groups digits as the prompt does, where it does so consistently, and reads comma lists as lists', () => {
    expect(forms('Amount: 12,345 and 1,000,000.', '45678').get("the prompt's digit grouping")).toBe('45,678');
    expect(forms('Amount: 12\u202f345.', '45678').get("the prompt's digit grouping")).toBe('45\u202f678');
    expect(forms('Amounts: 12,345 and 99999.', '45678').has("the prompt's digit grouping")).toBe(false);
    expect(forms('Values: 3,14,159.', '45678').has("the prompt's digit grouping")).toBe(false);
  });

  it('quotes the answer as the prompt quotes it, spaces a list as people do, and pads inside the tag', () => {
    expect(forms('Pick one of "apple", "pear".', 'pear').get("the prompt's quoting")).toBe('"pear"');
    // An input the prompt quotes is no quoted choice, and a prompt that speaks of quotes has stated the format.
    expect(forms('Start with the string "abc". Apply the commands.', 'abc').has("the prompt's quoting")).toBe(false);
    expect(forms('Pick one of "apple", "pear", with no quotes.', 'pear').has("the prompt's quoting")).toBe(false);
    const list = forms('Sort: b,a,c', 'a, b, c');
    expect(list.get("the prompt's list separator")).toBe('a,b,c');
    expect(forms('Sort the words.', 'a,b,c').get('the list\'s "," with a space after it')).toBe('a, b, c');
    expect(forms('Any.', '42').get('padded inside the tag')).toBe(' 42 ');
  });
});

describe('the constant candidates', () => {
  it('takes references by frequency, then accepted variants, then small constants where answers are numbers', () => {
    const fit = ['7', '7', '9', '11'].map((c) => ({ reference: `<answer>${c}</answer>` }));
    expect(constantCandidates(fit, ['07'], 16)).toEqual(['7', '9', '11', '07', '0', '1', '-1', '2']);
    expect(constantCandidates([{ reference: '<answer>b, a</answer>' }], ['a, b'], 16)).toEqual(['b, a', 'a, b']);
    expect(constantCandidates(fit, [], 2)).toHaveLength(2);
  });

  it('adds short forms of word answers in both cases, the letters that begin the most references first', () => {
    expect(surfaceForms(['north', 'northeast', 'south', 'west', 'southwest', 'northwest'])).toEqual([
      'N',
      'n',
      'S',
      's',
    ]);
    expect(surfaceForms(['12', '7'])).toEqual([]);
    const fit = ['north', 'northeast', 'east'].map((c) => ({ reference: `<answer>${c}</answer>` }));
    expect(constantCandidates(fit, [], 16)).toEqual(['north', 'northeast', 'east', 'N', 'n', 'E', 'e']);
  });
});

describe('the notation forms of a numeric answer', () => {
  it(
    'writes a wrong value in other digit scripts, with suffixes, in e-notation and grouped, ' +
      'each with its plain control',
    () => {
      const byForm = new Map(notationForms('1234').map((f) => [f.form, f]));
      expect(byForm.get('digit script Arabic-Indic, a wrong value')).toEqual({
        form: 'digit script Arabic-Indic, a wrong value',
        text: '٢٤٧٥',
        controls: ['2475'],
        truth: false,
      });
      expect(byForm.get('digit script full-width, a wrong value')?.text).toBe('２４７５');
      expect(byForm.get('suffix M, the value 0')).toMatchObject({ text: '0M', controls: ['0'] });
      expect(byForm.get('e-notation, a wrong value')?.text).toBe('2.475e3');
      expect(byForm.get('thousands separators, a wrong value')?.text).toBe('2,475');
      expect(byForm.get('the truth with thousands separators')).toMatchObject({
        text: '1,234',
        controls: [],
        truth: true,
      });
    },
  );

  it('sends no suffixed 0 where the truth is near 0, and nothing for an answer that is no plain number', () => {
    expect(notationForms('0.4').some((f) => f.form.startsWith('suffix'))).toBe(false);
    expect(notationForms('north')).toEqual([]);
    expect(notationForms('1/2')).toEqual([]);
  });
});

describe("the prompt's quantities as printed (the question restated in a unit)", () => {
  it('keeps a compound quantity together, as printed, with its numbers alone as the control', () => {
    const prompt = "A surveyor's note gives the distance as 3 mi 420 yd 2 ft.\nHow long is that in metres?";
    expect(quantityRuns(prompt)).toEqual([{ text: '3 mi 420 yd 2 ft', plain: '3 420 2' }]);
  });

  it('joins pairs across a comma or "and" as well, longer runs first, and stops at a sentence', () => {
    expect(quantityRuns('It took 2h, 45min and 3s. Then 7 laps.')).toEqual([
      { text: '2h 45min 3s', plain: '2 45 3' },
      { text: '2h', plain: '2' },
      { text: '45min', plain: '45' },
      { text: '3s', plain: '3' },
    ]);
  });

  it('finds nothing in an expression or a prompt without a number followed by a word', () => {
    expect(quantityRuns('Evaluate 3 + 4 * (2 - 1).')).toEqual([]);
    expect(quantityRuns('Name the capital of France.')).toEqual([]);
  });
});

describe("the prompt's listed items", () => {
  const prompt = (moves: string[]) =>
    `Legal moves: ${moves.join(', ')}.\nAnswer with the move, as <answer>move</answer>.`;

  it("learns which of the prompt's lists holds the answer, and lists it one item or all at once", () => {
    const sample = [
      episode(prompt(['J2', 'J5', 'J9']), 'J5'),
      episode(prompt(['J3', 'J4']), 'J3', 1),
      episode(prompt(['J8', 'J1']), 'J1', 2),
    ];
    const place = answerList(sample);
    expect(place).toBe(0);
    expect(listedItems(sample[0]!.instance.prompt, place as number)).toEqual(['J2', 'J5', 'J9']);
    const guesses = promptGuesses(sample[0]!, place, ['J3', 'J1', 'J7']);
    expect(guesses.map((g) => [g.form, g.response, g.chance])).toEqual([
      ['the first listed item', '<answer>J2</answer>', 1 / 3],
      ['the last listed item', '<answer>J9</answer>', 1 / 3],
      ['every listed item at once', '<answer>J2, J5, J9</answer>', 1 / 3],
      ["every answer of the level's other instances at once", '<answer>J3, J1, J7</answer>', 1 / 3],
    ]);
  });

  it('tries no listed item where the answers are not among them', () => {
    expect(answerList([episode(prompt(['J2', 'J5']), 'left'), episode(prompt(['J3', 'J4']), 'right', 1)])).toBeNull();
  });
});

describe('the options reader', () => {
  const product = (i: number, odd: boolean) => {
    const right = 120 + 2 * i;
    const options = [right, right + (odd ? 1 : 2), right + (odd ? 3 : 4), right - (odd ? 1 : 2)];
    const at = i % 4;
    [options[0], options[at]] = [options[at] as number, options[0] as number];
    return choiceSample({ labels: ['A', 'B', 'C', 'D'], texts: options.map(String), body: 'Which is right?' }, at, i);
  };

  it('finds the option an arithmetic feature singles out (the only one of its parity)', () => {
    const found = pooled(
      Array.from({ length: 120 }, (_, i) => product(i, true)),
      OPTIONS,
    );
    expect(found?.rate).toBe(1);
    expect(found?.rule).toMatch(/parity|residue|last digit/);
  });

  it('finds nothing beyond chance where every option shares the feature', () => {
    const fair = Array.from({ length: 120 }, (_, i) => {
      const values = [0, 1, 2, 3].map((k) => (50 + 7 * i + k) * 6);
      const at = (i * 5 + (i >> 2)) % 4;
      return choiceSample({ labels: ['A', 'B', 'C', 'D'], texts: values.map(String), body: 'Which?' }, at, i);
    });
    const found = pooled(fair, OPTIONS);
    expect((found?.rate ?? 0) - (found?.chance ?? 0)).toBeLessThan(0.15);
  });
});
