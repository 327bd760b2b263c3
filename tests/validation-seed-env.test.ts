// ENVFORGE_VALIDATION_SEED: a validation that names no seed uses the fixed one (the suite's recorded seed), a bad value
// is a clear error, and unset the seed is drawn at random.
import { afterEach, describe, expect, it } from 'vitest';
import { newValidationSeed } from '../validators/seeds.js';

const saved = process.env.ENVFORGE_VALIDATION_SEED;
afterEach(() => {
  if (saved === undefined) delete process.env.ENVFORGE_VALIDATION_SEED;
  else process.env.ENVFORGE_VALIDATION_SEED = saved;
});

describe('the validation seed a validation draws when it names none', () => {
  it('is the fixed one where ENVFORGE_VALIDATION_SEED is set', () => {
    process.env.ENVFORGE_VALIDATION_SEED = '178382163472559';
    expect(newValidationSeed()).toBe(178382163472559);
  });

  it('is refused, naming the variable, where the value is no non-negative integer', () => {
    for (const bad of ['-1', '1.5', 'eleven', '9007199254740993']) {
      process.env.ENVFORGE_VALIDATION_SEED = bad;
      expect(() => newValidationSeed()).toThrow(/ENVFORGE_VALIDATION_SEED must be a non-negative integer/);
    }
  });

  it('is drawn at random where the variable is unset', () => {
    delete process.env.ENVFORGE_VALIDATION_SEED;
    const seeds = new Set(Array.from({ length: 8 }, () => newValidationSeed()));
    expect(seeds.size).toBeGreaterThan(1);
  });

  it('is the recorded one in this suite (vitest.config.ts), unless ENVFORGE_RANDOM_SEEDS asks for fresh ones', () => {
    expect(saved).toBe(process.env.ENVFORGE_RANDOM_SEEDS ? undefined : '11');
  });
});
