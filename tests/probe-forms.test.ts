// The single-turn probe forms that restate the question or speak to a verifier's machinery: formulas of the
// prompt (copied into the answer, they pay where "any equivalent form" is accepted) and universal answers.
import { describe, expect, it } from 'vitest';
import { promptFormulas, UNIVERSAL_ANSWERS } from '../validators/probe-forms.js';

describe('promptFormulas', () => {
  it('finds the formulas of a prompt, longest first, and not plain numbers, lists or prose', () => {
    const prompt = 'Evaluate the expression (3 + 4) * 5 - 2 (integers; * binds tighter). Reduce the fraction 12/18. In 2026, 7 people: 3, 4, 5.';
    expect(promptFormulas(prompt, 3)).toEqual(['(3 + 4) * 5 - 2', '12/18']);
    expect(promptFormulas(prompt, 1)).toEqual(['(3 + 4) * 5 - 2']);
    expect(promptFormulas('List: 3, 4, 5 and -2. Year 2026.', 3)).toEqual([]);
  });
});

describe('UNIVERSAL_ANSWERS', () => {
  it('holds inherited property names and match-anything patterns of regex, glob and LIKE', () => {
    const answers = UNIVERSAL_ANSWERS.map(([, a]) => a);
    expect(answers).toEqual(expect.arrayContaining(['constructor', '__proto__', '.*', '*', '%']));
    for (const a of answers.filter((x) => /[.*\\[]/.test(x) && x !== '*')) expect(new RegExp(`^${a}$`).test('anything')).toBe(true);
  });
});
