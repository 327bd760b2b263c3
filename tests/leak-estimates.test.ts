// Cheap estimates inside a stated tolerance (validators/leak-estimates.ts, a reader family): a size feature of the
// prompt times a fitted scale is credited where it lands inside the answer's stated region. A 3% region over parcels
// of 10-13 kg is paid to "the item count times 11.5", whether the items are numbered lines or one comma-separated
// line; a 0.05 kg region, or a spread of weights as wide as their mean, is not; a prompt that states no region is
// not read. The features are the aggregates of the prompt's own groups (a consignment list's quantities added), and
// a grid coarser than the answers are written (totals to the nearest 50) is a region as a stated one is.
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
  /** Consignments ("- 4 parcels of 11.3 kg each") instead of one weight a parcel. */
  grouped?: boolean;
  /** The total rounded to this step (the reference written as a whole number). */
  step?: number;
  /** Each line opened by a shelf and a bin number (data a column sum does not read). */
  shelves?: boolean;
  /** The total rounded to this many significant figures (the reference written as a whole number). */
  figures?: number;
  /** The fewest and most parcels (10 to 60 unless said). */
  parcels?: readonly [number, number];
}

/** `x` rounded to `k` significant figures. */
const toFigures = (x: number, k: number) => {
  const unit = 10 ** Math.max(0, Math.floor(Math.log10(x)) - k + 1);
  return String(unit * Math.round(x / unit));
};

/** Instances of "the total weight": 10 to 60 parcels of `lo` to `hi` tenths of a kg, the region as `stated`. */
function samples(form: Form, count = 80): ReaderSample[] {
  return Array.from({ length: count }, (_, i) => {
    const r = rng(i + 7);
    const tenths = Array.from({ length: r(...(form.parcels ?? [10, 60])) }, () => r(form.lo, form.hi));
    const kg = tenths.map((t) => (t / 10).toFixed(1));
    const counts = tenths.map(() => (form.grouped ? r(1, 9) : 1));
    const listed = form.oneLine
      ? [`Weights in kg: ${kg.join(', ')}.`]
      : form.grouped
        ? kg.map((w, k) => `- ${counts[k]} parcels of ${w} kg each`)
        : form.shelves
          ? kg.map((w, k) => `- Shelf ${r(1, 9)}, bin ${r(10, 99)}: ${w}`)
          : kg.map((w, k) => `${k + 1}. ${w}`);
    const prompt = ['The van carries these parcels:', ...listed, `What is the total, in kg? ${form.stated}`].join('\n');
    const total = tenths.reduce((a, t, k) => a + t * (counts[k] as number), 0) / 10;
    const answer = form.figures
      ? toFigures(total, form.figures)
      : form.step
        ? String(form.step * Math.round(total / form.step))
        : total.toFixed(1);
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

  it("pays the quantities added times a scale: a size no fixed list names, a column of the prompt's own layout", () => {
    const r = pooled(
      samples({ stated: 'Any total within 4% is accepted.', lo: 105, hi: 125, grouped: true }),
      ESTIMATES,
    );
    expect(r?.rate).toBeGreaterThan(0.7);
    expect(r?.chance).toBeLessThan(0.2);
    expect(r?.rule).toMatch(/column 1's sum times 11\.[3-7]/);
    const twin = pooled(samples({ stated: WIDE.replace('3%', '0.05 kg'), lo: 105, hi: 125, grouped: true }), ESTIMATES);
    expect(twin?.rate ?? 0).toBeLessThan(0.1);
  });

  it('takes a grid coarser than the answers are written as their region: the nearest 50, not the nearest 1', () => {
    const coarse = pooled(samples({ stated: 'Round it to the nearest 50 kg.', lo: 100, hi: 130, step: 50 }), ESTIMATES);
    expect(coarse?.rate).toBeGreaterThan(0.7);
    expect((coarse?.rate ?? 0) - (coarse?.chance ?? 0)).toBeGreaterThan(0.4);
    expect(pooled(samples({ stated: 'Round it to the nearest kg.', lo: 100, hi: 130, step: 1 }), ESTIMATES)).toBeNull();
  });

  it('takes significant figures as a region relative to each answer: 2 s.f., 1 kg at 46 kg, 100 kg at 6,900', () => {
    // From 4 to 600 parcels: the two-digit totals share no grid coarser than 1 with the rest (red team rt26s R2).
    const form = { stated: 'Give it to two significant figures.', lo: 100, hi: 130, parcels: [4, 600] } as const;
    const rounded = pooled(samples({ ...form, figures: 2 }), ESTIMATES);
    expect(rounded?.rate).toBeGreaterThan(0.6);
    expect((rounded?.rate ?? 0) - (rounded?.chance ?? 0)).toBeGreaterThan(0.4);
    // Every figure kept (the exact total in kg): no region.
    expect(pooled(samples({ ...form, figures: 9 }), ESTIMATES)).toBeNull();
  });

  it('credits no landing on the answer itself: a column summed is the task computed, not an estimate', () => {
    const narrow = 'Any total within 0.05 kg of the exact sum is accepted.';
    const r = pooled(samples({ stated: narrow, lo: 100, hi: 130, shelves: true }), ESTIMATES);
    expect(r?.rate ?? 0).toBeLessThan(0.1);
  });
});
