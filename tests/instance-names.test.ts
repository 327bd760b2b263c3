// Names read from the instance (validators/instance-names.ts): every own key at every depth and `length`,
// less the names that may be honest answers (the reference, answers in use, names the prompt shows).
import { describe, expect, it } from 'vitest';
import { instanceNameAnswers, instanceNames } from '../validators/instance-names.js';

describe('instanceNames', () => {
  it('reads own keys at every depth, breadth first, with length first', () => {
    const instance = { prompt: 'p', stock: [0, 3], deep: { inner: [{ leaf: 1 }], other: null } };
    expect(instanceNames(instance)).toEqual(['length', 'prompt', 'stock', 'deep', 'inner', 'other', 'leaf']);
  });

  it('has no length where nothing has one, and stays bounded on a huge instance', () => {
    expect(instanceNames({ a: 1, b: { c: true } })).toEqual(['a', 'b', 'c']);
    const huge = { prompt: 'x', rows: Array.from({ length: 100_000 }, (_, i) => ({ [`k${i}`]: i })) };
    expect(instanceNames(huge).length).toBeLessThan(6_000);
  });
});

describe('instanceNameAnswers', () => {
  it('keeps machinery names for a numeric answer, even a word the prompt shows', () => {
    const names = instanceNameAnswers(
      { prompt: 'Name any shelf whose final stock is positive.', stock: [0, 4] } as never,
      '1',
      new Set(['1', '7']),
    );
    expect(names.map(([, n]) => n)).toEqual(['length', 'prompt', 'stock']);
  });

  it('drops names that may be answers: the reference, answers in use and their items, names the prompt shows', () => {
    const instance = { prompt: 'Pick a city: Paris or Lyon.', cities: { Paris: 2, Lyon: 1, Nice: 0 }, answer: 'Paris' };
    const names = instanceNameAnswers(instance as never, 'Paris', new Set(['paris', 'nice, lyon'])).map(([, n]) => n);
    expect(names).toEqual(['length', 'prompt', 'cities', 'answer']);
    // A numeric name the prompt shows may be a valid number answer.
    expect(
      instanceNameAnswers({ prompt: 'Shelves 3 and 12.', byShelf: { 12: 1 } } as never, '3', new Set()).map(
        ([, n]) => n,
      ),
    ).toEqual(['length', 'prompt', 'byShelf']);
  });

  it('drops a name only where the prompt holds it as a token, not inside another word', () => {
    const instance = {
      prompt: 'The shelves listed below hold a Count of items; count them.',
      list: [1],
      count: 2,
      item: 3,
    };
    const names = instanceNameAnswers(instance as never, 'Paris', new Set(['paris'])).map(([, n]) => n);
    // "list" and "item" occur only inside "listed" and "items"; "count" is a token (in either case).
    expect(names).toEqual(['length', 'prompt', 'list', 'item']);
  });
});
