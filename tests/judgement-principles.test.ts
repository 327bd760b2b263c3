// The principles behind the hack stage's newer judgements, on plain data (no sandbox): non-answers and hedges
// never hold the right answer, reasoning never states it, list guesses come from tokens whatever the layout,
// leaks are found through number formats and simple relations, long numbers are edited exactly, and the
// sample tells whether a sign or a letter's case carries information.
import { describe, expect, it } from 'vitest';
import { loneSurrogate, negations, perturbNumbers, shapeOf } from '../validators/answers.js';
import { sampleTraits } from '../validators/hack-checks.js';
import { ARITHMETIC, digitRuns, promptNumbers } from '../validators/leak-derived.js';
import { pooled } from './helpers/readers.js';
import { hedges, nonAnswers, promptTokens, reasoning } from '../validators/probe-forms.js';
import { probeBattery } from '../validators/probes.js';
import { tokenGuesses } from '../validators/prompt-lists.js';
import type { Episode } from '../sandbox/episodes.js';

const episode = (
  reference: string,
  prompt = 'Solve it. Answer as <answer>N</answer>.',
  seed = 1,
  level = 1,
): Episode => ({
  ok: true,
  seed,
  level,
  instance: { prompt },
  reference,
  referenceVerdict: { ok: true, score: 1 },
  verdicts: [],
  ms: [0, 0, 0],
});

describe('non-answers and hedges', () => {
  it('offers abstentions, non-finite numbers and broken notation, none of them an answer some instance has', () => {
    const forms = nonAnswers('42', shapeOf('42'), new Set(['42', 'unknown']));
    const values = forms.map(([, v]) => v);
    expect(values).toEqual(expect.arrayContaining(['0/0', 'NaN', 'Infinity', "I don't know"]));
    expect(values).not.toContain('unknown');
    expect(nonAnswers('((3 + 4) * 5)', shapeOf('((3 + 4) * 5)'), new Set()).map(([, v]) => v)).toEqual(
      expect.arrayContaining(['(', '((3 + 4']),
    );
    // A cut list is a partial answer, not a malformed one: only the bracket alone is offered.
    expect(nonAnswers('[1, 2, 3]', shapeOf('[1, 2, 3]'), new Set()).filter(([form]) => form.includes('cut'))).toEqual(
      [],
    );
  });

  it('writes hedges around a wrong value whose interval holds the truth, never the truth itself', () => {
    for (const truth of ['7', '1234', '-50', '12.35', '0.5']) {
      const list = hedges(truth, shapeOf(truth));
      expect(list.length).toBeGreaterThan(3);
      for (const h of list) {
        expect(Number(h.wrong)).not.toBe(Number(truth));
        const numbers = [...h.response.matchAll(/-?\d+(\.\d+)?/g)].map((m) => Number(m[0]));
        expect(numbers).not.toContain(Number(truth));
      }
      const pm = list.find((h) => h.form.includes('±')) as { response: string };
      const [v, e] = pm.response.split('±').map(Number) as [number, number];
      expect(Math.abs(v - Number(truth))).toBeLessThanOrEqual(e);
    }
  });

  it('reasons like a model, with sentences, "=" lines and code, and never states the right answer', () => {
    const forms = reasoning('A bag holds 3 red and 4 blue marbles; 7 are drawn.', '<answer>9</answer>', '7');
    expect(forms.length).toBeGreaterThanOrEqual(4);
    for (const [, text] of forms) expect(text).toContain('<answer>9</answer>');
    expect(forms.some(([, t]) => t.split('\n').filter((l) => l.includes('=')).length >= 3)).toBe(true);
    expect(forms.some(([, t]) => t.includes('```'))).toBe(true);
    for (const [, text] of forms) expect(text.split('\n').filter((l) => / = 7$/.test(l))).toEqual([]);
  });
});

describe('guesses from the prompt, whatever its layout', () => {
  it('copies the input printed one per line, and lists every word of the kind', () => {
    const prompt = 'Sort these words.\n\nzeta\nalpha\nmike\n\nAnswer as <answer>a, b</answer>.';
    const guesses = tokenGuesses(prompt, shapeOf('alpha, mike, zeta'));
    expect(guesses.copied).toEqual(['zeta', 'alpha', 'mike']);
    expect(guesses.every).toEqual(expect.arrayContaining(['zeta', 'alpha', 'mike', 'words']));
  });

  it('copies nothing when the answer is a selection from a longer printed list, or is already in prompt order', () => {
    expect(tokenGuesses('Words: abba kayak tree ollo bark', shapeOf('abba, kayak, ollo')).copied).toBeUndefined();
    expect(tokenGuesses('Order: zeta alpha', shapeOf('zeta, alpha')).copied).toBeUndefined();
  });

  it("offers the prompt's own tokens of the answer's kind for a scalar answer", () => {
    expect(promptTokens('Numbers: 11, 13, 20, 23. Which is the largest prime?', '23', shapeOf('23'), 8, 0)).toEqual([
      '11',
      '13',
      '20',
      '23',
    ]);
    expect(promptTokens('Is it acute, right or obtuse?', 'obtuse', shapeOf('obtuse'), 8, 0)).toEqual(
      expect.arrayContaining(['acute', 'right']),
    );
  });
});

describe('leaks through formats and simple relations', () => {
  it('reads numbers with thousands separators and digits spelled one by one', () => {
    expect(promptNumbers('Due: 12,345.67 and 1_000 and -5 and +7.')).toEqual([12345.67, 1000, -5, 7]);
    expect(digitRuns('Check code: 4-0-9-3. List: 1, 2, 3')).toEqual([4093]);
  });

  const sample = (make: (answer: number, i: number) => string) =>
    Array.from({ length: 60 }, (_, i) => {
      const answer = 100 + ((i * 7919) % 900);
      return episode(`<answer>${answer}</answer>`, make(answer, i), i, 1 + (i % 3));
    });

  // A list of 3-12 weights (more at higher levels), each instance's drawn from its index.
  const weightsOf = (i: number) =>
    Array.from({ length: 3 * (1 + (i % 3)) + (i % 4) }, (_, k) => 1 + (((i + 5) * 7919 * (k + 3)) % 97));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const listed = (make: (weights: number[], i: number) => string) =>
    Array.from({ length: 60 }, (_, i) =>
      episode(`<answer>${sum(weightsOf(i))}</answer>`, make(weightsOf(i), i), i, 1 + (i % 3)),
    );

  it('finds the midpoint of two bounds, a sum, and a scaled check value', () => {
    const mid = pooled(
      sample((a, i) => `Values ${i} and ${i + 3} and ${2 * i}. The count is strictly between ${a - 1} and ${a + 1}.`),
      ARITHMETIC,
    );
    expect(mid?.rule).toMatch(/midpoint|from the end - 1|\+ 1/);
    expect((mid?.rate ?? 0) - (mid?.chance ?? 0)).toBeGreaterThan(0.9);
    // A scaled check value is a leak where it stands for the task's work: 3 × the total of a list that grows with
    // the level (leak-inputs.ts: the read number is fitted from the unread ones, and the unread content grows).
    const scaled = pooled(
      listed((weights) => `Parcels ${weights.join(', ')} kg. Three times the total weight is ${3 * sum(weights)}.`),
      ARITHMETIC,
    );
    expect(scaled?.rule).toMatch(/divided by 3/);
    expect((scaled?.rate ?? 0) - (scaled?.chance ?? 0)).toBeGreaterThan(0.9);
  });

  // The same words printed with a number that NOTHING in the prompt determines, at levels whose content does not
  // grow: the relation reads the task's own input, so it is the task (a difficulty matter), not a leak.
  it('leaves a lone scaled input that nothing in the prompt determines to the task', () => {
    const lone = pooled(
      sample((a, i) => `Stops ${i}, ${i + 1}, ${i + 2}. Three times the count is ${3 * a}.`),
      ARITHMETIC,
    );
    expect(lone?.rule ?? '').not.toMatch(/divided by 3/);
  });

  // A product or quotient of two printed numbers with a unit factor fitted on half (redteam-st20 T6), at the
  // answer's printed precision; "a ÷ b" asked outright (only the two numbers) stays the task.
  const rated = (make: (i: number) => [answer: string, prompt: string]) =>
    Array.from({ length: 60 }, (_, i) => {
      const [answer, prompt] = make(i);
      return episode(`<answer>${answer}</answer>`, prompt, i, 1 + (i % 3));
    });
  const km = (i: number) => 100 + ((i * 7919) % 900);
  const minutes = (i: number) => 60 + ((i * 31) % 400);

  it('finds a quotient or a product of two printed numbers with a fitted scale, and leaves "a / b" tasks alone', () => {
    // The totals are the legs' column sums (a van's log, st20 T6), the legs growing with the level: a leak.
    const legKm = (i: number) => weightsOf(i).map((w, k) => 3 * w + k);
    const legMin = (i: number) => weightsOf(i).map((w, k) => 4 * w + ((i + k) % 7) + 1);
    const quotient = pooled(
      rated((i) => [
        ((60 * sum(legKm(i))) / sum(legMin(i))).toFixed(1),
        [
          ...legKm(i).map((d, k) => `${k + 1}. ${d} km in ${legMin(i)[k]} min`),
          `Totals: ${sum(legKm(i))} km, ${sum(legMin(i))} min. In km/h?`,
        ].join('\n'),
      ]),
      ARITHMETIC,
    );
    expect(quotient?.rule).toMatch(/^the answer is 60 × .* divided by /);
    expect((quotient?.rate ?? 0) - (quotient?.chance ?? 0)).toBeGreaterThan(0.9);
    // The header is the lines' totals (their units), the lines growing with the level: a leak.
    const product = pooled(
      rated((i) => [
        ((sum(weightsOf(i)) * minutes(i)) / 100).toFixed(2),
        `Header: ${sum(weightsOf(i))} units at ${minutes(i)} cents. Lines ${weightsOf(i).join(', ')}.`,
      ]),
      ARITHMETIC,
    );
    expect(product?.rule).toMatch(/0\.01 × the 1\. number times the 2\. number/);
    // The old synthetic header (two numbers nothing else in the prompt determines, lines that do not grow): the task.
    const lone = pooled(
      rated((i) => [
        ((km(i) * minutes(i)) / 100).toFixed(2),
        `Header: ${km(i)} units at ${minutes(i)} cents. Lines ${i + 2}, ${(i % 9) + 1}, ${(i % 4) + 5}.`,
      ]),
      ARITHMETIC,
    );
    expect(lone?.rule ?? '').not.toMatch(/times the 2\. number/);
    const task = pooled(
      rated((i) => [
        ((60 * km(i)) / minutes(i)).toFixed(1),
        `A van drives ${km(i)} km in ${minutes(i)} min. Its speed in km/h, to one decimal?`,
      ]),
      ARITHMETIC,
    );
    expect(task?.rule ?? '').not.toMatch(/divided by the/);
  });

  it('finds nothing in honest prompts, and leaves "a + b" tasks alone', () => {
    const honest = pooled(
      sample((_a, i) => `Values ${i * 13 + 5}, ${i * 17 + 2}, ${i * 3 + 1} and ${i * 29 + 4}.`),
      ARITHMETIC,
    );
    expect((honest?.rate ?? 0) - (honest?.chance ?? 0)).toBeLessThan(0.3);
    const sum = pooled(
      sample((a) => `What is ${a - 40} + 40?`),
      ARITHMETIC,
    );
    expect(sum?.rule ?? '').not.toMatch(/\+ the/);
  });
});

describe('what the sample says about the answer space', () => {
  it('a sign carries information only if some reference is negative; a case only if some letter shows both', () => {
    expect(sampleTraits([episode('<answer>12</answer>'), episode('<answer>7</answer>')]).signMatters).toBe(false);
    expect(sampleTraits([episode('<answer>12</answer>'), episode('<answer>-7</answer>')]).signMatters).toBe(true);
    expect(sampleTraits([episode('<answer>0x1F3A</answer>'), episode('<answer>0xBEEF</answer>')]).caseMatters).toBe(
      false,
    );
    expect(sampleTraits([episode('<answer>aBc</answer>'), episode('<answer>Abc</answer>')]).caseMatters).toBe(true);
  });

  it('edits numbers of any length exactly, in their last digit', () => {
    const big = '123456789012345678901234567890';
    expect(perturbNumbers(big)).toEqual(['123456789012345678901234567891', '123456789012345678901234567889']);
    expect(negations(big)).toContain(`-${big}`);
  });

  it('finds a lone surrogate, and accepts paired ones', () => {
    expect(loneSurrogate('ok 🪙 fine')).toBe(-1);
    expect(loneSurrogate(`bad ${'🪙'.slice(0, 1)} text`)).toBe(4);
    expect(loneSurrogate(`end ${'🪙'.slice(1)}`)).toBe(4);
  });

  it('the battery skips negation and case flips the sample shows to be no information', () => {
    const e = episode('<answer>aBcDe</answer>');
    const forms = (traits: { signMatters: boolean; caseMatters: boolean }) =>
      probeBattery({
        episode: e,
        peers: [e],
        index: 0,
        long: [],
        permutation: false,
        ceiling: 0.1,
        taken: new Set(),
        ...traits,
      }).map((p) => p.form);
    expect(forms({ signMatters: true, caseMatters: true })).toContain('letter case changed');
    expect(forms({ signMatters: false, caseMatters: false })).not.toContain('letter case changed');
  });
});
