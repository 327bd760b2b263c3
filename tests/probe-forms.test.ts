// The single-turn probe forms that restate the question or speak to a verifier's machinery: the prompt's own
// expressions (transcribed into the answer, they pay where "any equivalent form" is accepted) and universal answers.
import { describe, expect, it } from 'vitest';
import { INHERITED_NAMES, statedControl, statedRegions, UNIVERSAL_ANSWERS } from '../validators/probe-forms.js';
import { expressionSpans, numbersInOrder, restatements, transcribe } from '../validators/restatements.js';
import { rotate } from '../validators/probes.js';

describe('restatements', () => {
  it('finds the expressions of a prompt, longest first, and not plain numbers, lists or prose', () => {
    const prompt =
      'Evaluate the expression (3 + 4) * 5 - 2 (integers; * binds tighter). Reduce the fraction 12/18. In ' +
      '2026, 7 people: 3, 4, 5.';
    expect(expressionSpans(prompt, 3)).toEqual(['(3 + 4) * 5 - 2', '12/18']);
    expect(expressionSpans(prompt, 1)).toEqual(['(3 + 4) * 5 - 2']);
    expect(expressionSpans('List: 3, 4, 5 and -2. Year 2026.', 3)).toEqual([]);
  });

  it('transcribes the notation a prompt prints into what a model types, and finds expressions in variables', () => {
    expect(expressionSpans('Expand (x + 3)(x − 2) fully.', 3)).toEqual(['(x + 3)(x − 2)']);
    expect(transcribe('(x + 3)(x − 2)')).toBe('(x + 3)*(x - 2)');
    expect(transcribe('2(a + b)² ÷ 4 × c')).toBe('2*(a + b)^2 / 4 * c');
    expect(transcribe('3²', '**')).toBe('3**2');
  });

  it('joins the numbers of a worded question by its operator words, in order', () => {
    expect(numbersInOrder('What is 12 plus 7 times 3?')).toBe('12 + 7 * 3');
    expect(numbersInOrder('Find the sum of 40 and 2.')).toBe('40 + 2');
    expect(numbersInOrder('There are 3 boxes with 4 pens each.')).toBeNull();
    expect(restatements('Compute 6 × 7 − 1.').map(([, text]) => text)).toEqual(['6 × 7 − 1', '6 * 7 - 1']);
  });
});

describe('UNIVERSAL_ANSWERS', () => {
  it('holds match-anything patterns of regex, glob and LIKE', () => {
    const answers = UNIVERSAL_ANSWERS.map(([, a]) => a);
    expect(answers).toEqual(expect.arrayContaining(['.*', '*', '%']));
    for (const a of answers.filter((x) => /[.*\\[]/.test(x) && x !== '*'))
      expect(new RegExp(`^${a}$`).test('anything')).toBe(true);
  });
});

describe('INHERITED_NAMES', () => {
  it("holds every name the realm's prototypes give a plain object, an array and a string, once each", () => {
    const names = new Set(INHERITED_NAMES);
    expect(names.size).toBe(INHERITED_NAMES.length);
    for (const proto of [Object.prototype, Array.prototype, String.prototype])
      for (const n of Object.getOwnPropertyNames(proto)) expect(names.has(n), n).toBe(true);
    for (const n of ['valueOf', 'isPrototypeOf', '__defineGetter__', 'length', 'map', 'at', 'charAt', 'has'])
      expect(names.has(n), n).toBe(true);
  });
  it(
    'spans the container kinds in every window: 3 names an instance reach the object, array and string ' +
      'names within 18 instances',
    () => {
      const seen = (k: number) => new Set(Array.from({ length: k }, (_, i) => rotate(INHERITED_NAMES, 3, i)).flat());
      expect(rotate(INHERITED_NAMES, 3, 0)).toContain('constructor');
      const early = seen(18);
      const holders = (n: string) => [{}, [], ''].map((c) => n in Object(c)).join();
      // Every distinct set of holders (object, array, string) some name has appears among the first 18 windows.
      expect(new Set([...early].map(holders))).toEqual(new Set(INHERITED_NAMES.map(holders)));
      expect(seen(Math.ceil(INHERITED_NAMES.length / 3)).size).toBe(INHERITED_NAMES.length);
    },
  );
});

describe('the acceptance region a task states', () => {
  it('reads absolute and relative tolerances from sentences about acceptance, and not a story\'s "within"', () => {
    expect(statedRegions('What is the balance? Any answer within 0.1% of the exact balance is accepted.')).toEqual([
      { relative: 0.001 },
    ]);
    expect(statedRegions('Give the mean; any value within 0.05 of the exact mean is accepted.')).toEqual([
      { absolute: 0.05 },
    ]);
    expect(statedRegions('Answers ± 2 count as correct.')).toEqual([{ absolute: 2 }]);
    expect(statedRegions('The bus arrives within 10 minutes. How many seats are left?')).toEqual([]);
  });
  it(
    'moves a near value inside the stated region to twice its width on the same side, and ' +
      'leaves one outside alone',
    () => {
      const regions = statedRegions('Any answer within 0.1% of the exact balance is accepted.');
      expect(statedControl(regions, '5000', '5001')).toBe('5011');
      expect(statedControl(regions, '5000', '4999')).toBe('4989');
      // 0.1% of 800 is 0.8: the reference is rounded, so a unit away may be outside the region, and is probed as it is.
      expect(statedControl(regions, '800', '801')).toBeNull();
      expect(statedControl([], '5000', '5001')).toBeNull();
      expect(statedControl(statedRegions('Within 0.05 is accepted.'), '2.24', '2.27')).toBe('2.35');
    },
  );
});
