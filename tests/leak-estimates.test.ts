// Cheap estimates inside a stated tolerance (validators/leak-estimates.ts, a reader family): a size feature of the
// prompt times a fitted scale is credited where it lands inside the answer's stated region. A 3% region over parcels
// of 10-13 kg is paid to "the item count times 11.5", whether the items are numbered lines or one comma-separated
// line; a 0.05 kg region, or a spread of weights as wide as their mean, is not; a prompt that states no region is
// not read.
import { describe, expect, it } from 'vitest';
import { ESTIMATES } from '../validators/leak-estimates.js';
import type { ReaderSample } from '../validators/readers.js';
import { pooled } from './helpers/readers.js';

/** A tiny seeded generator, so the instances below are fixed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return (lo: number, hi: number) => lo + ((s = (s * 1664525 + 1013904223) >>> 0) % (hi - lo + 1));
}

interface Form {
  stated: string;
  lo: number;
  hi: number;
  oneLine?: boolean;
}

/** Instances of "the total weight": 10 to 60 parcels of `lo` to `hi` tenths of a kg, the region as `stated`. */
function samples(form: Form, count = 80): ReaderSample[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng(i + 7);
    const tenths = Array.from({ length: r(10, 60) }, () => r(form.lo, form.hi));
    const kg = tenths.map((t) => (t / 10).toFixed(1));
    const listed = form.oneLine ? [`Weights in kg: ${kg.join(', ')}.`] : kg.map((w, k) => `${k + 1}. ${w}`);
    const prompt = ['The van carries these parcels:', ...listed, `What is the total, in kg? ${form.stated}`].join('\n');
    const answer = (tenths.reduce((a, b) => a + b, 0) / 10).toFixed(1);
    return { seed: i, level: 1 + (i % 2), reference: `<answer>${answer}</answer>`, instance: { prompt } };
  });
}

const WIDE = 'Any total within 3% of the exact sum is accepted.';

describe('ESTIMATES: a size feature times a scale, inside the stated region', () => {
  it('pays the item count times a fitted scale where 3% is wider than the weights spread', () => {
    for (const oneLine of [false, true]) {
      const r = pooled(samples({ stated: WIDE, lo: 100, hi: 130, oneLine }), ESTIMATES);
      expect(r?.rate).toBeGreaterThan(0.7);
      expect(r?.chance).toBeLessThan(0.2);
      expect(r?.rule).toMatch(/times 11\.[3-7]/);
    }
  });

  it('pays nothing where the region is 0.05 kg, or the weights spread as wide as their mean', () => {
    const narrow = pooled(
      samples({ stated: 'Any total within 0.05 kg of the exact sum is accepted.', lo: 100, hi: 130 }),
      ESTIMATES,
    );
    expect(narrow?.rate ?? 0).toBeLessThan(0.1);
    const spread = pooled(samples({ stated: WIDE, lo: 10, hi: 300 }), ESTIMATES);
    expect(spread?.rate ?? 0).toBeLessThan(0.25);
  });

  it('reads no prompt that states no region', () => {
    expect(pooled(samples({ stated: 'Give the exact sum.', lo: 100, hi: 130 }), ESTIMATES)).toBeNull();
  });
});
