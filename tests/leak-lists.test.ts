// Leaks by the prompt's structure (validators/leak-lists.ts, a reader family): the lists a prompt is parsed
// into, and the rule "the item at rank k of a list" judged on a held-out half against chance.
import { describe, expect, it } from 'vitest';
import { LISTS, promptLists } from '../validators/leak-lists.js';
import type { ReaderSample } from '../validators/readers.js';
import { pooled } from './helpers/readers.js';

const CITIES = [
  'Avalon',
  'Brixton',
  'Cardale',
  'Dunmore',
  'Elmsford',
  'Falkirk',
  'Glenrock',
  'Hartwell',
  'Ironbridge',
  'Jarrow',
  'Kelso',
  'Lydford',
];
/** A tiny seeded generator, so the instances below are fixed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return (n: number) => (s = (s * 1664525 + 1013904223) >>> 0) % n;
}
/** Instances of "which city is farthest": the cities printed in `order`, a note of random length before the list. */
function samples(order: 'by distance' | 'shuffled', count = 80): ReaderSample[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng(i + 1);
    const cities = [...CITIES]
      .sort(() => r(3) - 1)
      .slice(0, 5)
      .map((name) => ({ name, d: r(100) }));
    const far = cities.reduce((a, b) => (b.d > a.d ? b : a));
    const listed = order === 'by distance' ? [...cities].sort((a, b) => a.d - b.d) : cities;
    const note = 'Roads are open. '.repeat(r(3));
    const prompt =
      `${note}The depot is at (5, 5). Cities:\n` +
      `${listed.map((c) => `- ${c.name} at distance ${c.d}`).join('\n')}\nWhich city is farthest? Reply ` +
      `with <answer>city</answer>.`;
    return { seed: i, level: 1 + (i % 2), reference: `<answer>${far.name}</answer>`, instance: { prompt } };
  });
}

describe('promptLists: the lists a prompt holds', () => {
  it(
    'bulleted and numbered lines, table rows (the rule line skipped), plain runs of three, and ' +
      'lists inside a sentence',
    () => {
      const prompt =
        'Intro line.\n- Avalon at 3\n- Brixton at 4\nThen:\n1. first thing\n2. second thing\n| a | b ' +
        '|\n|---|---|\n| x | y |\nplain one\nplain two\nplain three\n\nPick one of: red, green and blue.';
      expect(promptLists(prompt)).toEqual([
        [
          ['avalon', 'at', '3'],
          ['brixton', 'at', '4'],
        ],
        [
          ['first', 'thing'],
          ['second', 'thing'],
        ],
        [
          ['a', 'b'],
          ['x', 'y'],
        ],
        [
          ['plain', 'one'],
          ['plain', 'two'],
          ['plain', 'three'],
        ],
        [['red'], ['green'], ['blue']],
      ]);
    },
  );

  it('a sentence and its question are no list; two commas are', () => {
    expect(promptLists('The depot is at (3, 4).\nWhich city is farthest?')).toEqual([]);
  });
});

describe('the lists reader: the item at a place in a list, judged on the held-out half', () => {
  it('items printed in the order the answer was computed: the last item is the answer, far above chance', () => {
    const overall = pooled(samples('by distance'), LISTS);
    // Five cities a prompt: the 5th item and the last are the same place.
    expect(overall?.rule).toMatch(
      /^the answer is the (last item|item 5) of the prompt's list (1|-1|1 from the end|last list), from its token 1$/,
    );
    expect(overall?.rate).toBe(1);
    expect(overall?.chance).toBeLessThan(0.4);
  });

  it("items printed in a random order: no place reads the answer more often than it reads another instance's", () => {
    const overall = pooled(samples('shuffled'), LISTS);
    expect((overall?.rate ?? 0) - (overall?.chance ?? 0)).toBeLessThan(0.3);
  });

  it('answers that are not short phrases (a long list, a paragraph) are not read', () => {
    const long = samples('by distance').map((s) => ({ ...s, reference: `<answer>${CITIES.join(' ')}</answer>` }));
    expect(pooled(long, LISTS)).toBeNull();
  });
});
