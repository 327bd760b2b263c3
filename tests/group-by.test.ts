// groupBy (validators/context.ts): the stages' grouping of episodes and outcomes by level or family.
import { expect, it } from 'vitest';
import { groupBy } from '../validators/context.js';

it('keeps each group in input order and the groups in order of first appearance', () => {
  const groups = groupBy([3, 1, 4, 1, 5, 9, 2, 6], (n) => n % 3);
  expect([...groups]).toEqual([
    [0, [3, 9, 6]],
    [1, [1, 4, 1]],
    [2, [5, 2]],
  ]);
  expect(groupBy([], (n: number) => n).size).toBe(0);
});
