// perturbNumbers and negations (validators/answers.ts) edit the first and the last number only, whatever
// the answer's length: the order of the variants is part of the probes a validation sends.
import { expect, it } from 'vitest';
import { negations, perturbNumbers } from '../validators/answers.js';

it('edits the first and the last number, in order, once each where they are one', () => {
  expect(perturbNumbers('7')).toEqual(['8', '6']);
  expect(perturbNumbers('1, 2, 3, 4')).toEqual(['2, 2, 3, 4', '0, 2, 3, 4', '1, 2, 3, 5', '1, 2, 3, 3']);
  expect(perturbNumbers('no digits')).toEqual([]);
  // A number of more than 400 digits is no number to edit; the ones around it still are.
  expect(perturbNumbers(`5 ${'9'.repeat(401)} 6`)).toEqual([
    `6 ${'9'.repeat(401)} 6`,
    `4 ${'9'.repeat(401)} 6`,
    `5 ${'9'.repeat(401)} 7`,
    `5 ${'9'.repeat(401)} 5`,
  ]);
  expect(negations('3 -4')).toEqual(['-3 -4', '3 4']);
  expect(perturbNumbers(Array.from({ length: 50_000 }, (_, i) => i).join(' ')).length).toBe(4);
});
