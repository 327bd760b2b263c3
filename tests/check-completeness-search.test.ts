// The completeness check's search for a second valid answer: at a level whose prompts repeat, it draws more
// instances in rounds until a pair with the same prompt and different references turns up, or enough prompts
// repeated with one answer each, or the draw limit; a fixed draw missed the pair at one validation seed.
import { describe, expect, it } from 'vitest';
import type { Episode } from '../sandbox/episodes.js';
import { searchPairs } from '../validators/checks/completeness.js';
import { DEFAULT_VALIDATOR_OPTIONS } from '../validators/options.js';

const episode = (prompt: string, answer: string, seed: number, level = 1): Episode => ({
  ok: true,
  seed,
  level,
  instance: { prompt },
  reference: `<answer>${answer}</answer>`,
  referenceVerdict: { ok: true, score: 1 },
  verdicts: [],
  ms: [0, 0, 0],
});

/**
 * A level whose draws come from `make(k)` (the k-th draw), with the sample's own two instances sharing a prompt of
 * their own.
 */
function level(make: (k: number) => Episode) {
  const asked: number[] = [];
  const ctx = {
    stage: { options: DEFAULT_VALIDATOR_OPTIONS },
    byLevel: new Map([[1, [episode('q', 'a', 1), episode('q', 'a', 2)]]]),
    async moreInstances(_level: number, count: number) {
      asked.push(count);
      return Array.from({ length: count }, (_, k) => make(k));
    },
  } as unknown as Parameters<typeof searchPairs>[0];
  return { ctx, asked };
}

const o = DEFAULT_VALIDATOR_OPTIONS;

describe('the search for a second valid answer', () => {
  it('keeps drawing while repeated prompts carry one answer; stops once a pair with two turns up', async () => {
    // Prompts repeat often (ten of them), but only the 101st draw answers p0 otherwise than the others did.
    const { ctx, asked } = level((k) => episode(`p${k % 10}`, k === 100 ? 'other' : `a${k % 10}`, 100 + k));
    const [found] = await searchPairs(ctx, [1]);
    expect(asked).toEqual([o.equivalentSearchPerLevel, 2 * o.equivalentSearchPerLevel]);
    expect(found?.some((e) => e.reference === '<answer>other</answer>')).toBe(true);
  });

  it('stops where enough prompts repeated with one answer each: the prompt decides the answer', async () => {
    const { ctx, asked } = level((k) => episode(`p${k % 10}`, `a${k % 10}`, 100 + k));
    await searchPairs(ctx, [1]);
    expect(asked).toEqual([o.equivalentSearchPerLevel, 2 * o.equivalentSearchPerLevel]);
  });

  it('draws at most the limit where prompts rarely repeat and never disagree', async () => {
    const { ctx, asked } = level((k) => episode(`p${k}`, 'a', 100 + k));
    const [found] = await searchPairs(ctx, [1]);
    expect(Math.max(...asked)).toBe(o.equivalentSearchMaxPerLevel);
    expect(found).toHaveLength(2 + o.equivalentSearchMaxPerLevel);
  });
});
