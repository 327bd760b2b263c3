// The validation seeds a trust test judges a module at: recorded ones, so CI is deterministic (a random seed let an
// honest twin fail one run in several on a borderline check), and with ENVFORGE_RANDOM_SEEDS=1 fresh random ones
// besides — a maintainer's search for a seed where a check misses or a twin is falsely rejected; and the lighter
// options a hack's test may validate at.
import { episodicBaselines } from '../../validators/checks/episodic-baselines.js';
import { DEFAULT_VALIDATOR_OPTIONS, type ValidatorOptions } from '../../validators/options.js';
import { newValidationSeed } from '../../validators/seeds.js';

/** The recorded seeds, then `extra` fresh random ones when ENVFORGE_RANDOM_SEEDS is set. */
export function validationSeeds(recorded: readonly number[], extra = 1): number[] {
  return [
    ...recorded,
    ...(process.env.ENVFORGE_RANDOM_SEEDS ? Array.from({ length: extra }, () => newValidationSeed()) : []),
  ];
}

/**
 * Validator options for a test that an episodic hack is rejected with `code`: for a check other than the baselines
 * (rules, arguments, readers, leaks), the random-policy and finish-alone baseline probes cut to a few (~0.7 s of a ~3 s
 * validation). They are drawn from seeds of their own, so the reference, adversary and reader episodes the other
 * checks judge are those of a validation at the defaults, and so are their findings. A baseline's own code gets the
 * defaults (undefined), as do honest twins.
 */
export function episodicHackOptions(code: string): Partial<ValidatorOptions> | undefined {
  return (episodicBaselines.codes as readonly string[]).includes(code) ? undefined : HACK_OPTIONS;
}

const HACK_OPTIONS = {
  episodic: { ...DEFAULT_VALIDATOR_OPTIONS.episodic, randomPerLevel: 4, finishAloneSamples: 16 },
} satisfies Partial<ValidatorOptions>;
