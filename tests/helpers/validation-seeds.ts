// The validation seeds a trust test judges a module at: recorded ones, so CI is deterministic (a random seed let an
// honest twin fail one run in several on a borderline check), and with ENVFORGE_RANDOM_SEEDS=1 fresh random ones
// besides — a maintainer's search for a seed where a check misses or a twin is falsely rejected.
import { newValidationSeed } from '../../validators/seeds.js';

/** The recorded seeds, then `extra` fresh random ones when ENVFORGE_RANDOM_SEEDS is set. */
export function validationSeeds(recorded: readonly number[], extra = 1): number[] {
  return [
    ...recorded,
    ...(process.env.ENVFORGE_RANDOM_SEEDS ? Array.from({ length: extra }, () => newValidationSeed()) : []),
  ];
}
