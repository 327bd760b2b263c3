// The validation seeds a trust test judges a module at: recorded ones, so CI is deterministic (a random seed let an
// honest twin fail one run in several on a borderline check), and with ENVFORGE_RANDOM_SEEDS=1 fresh random ones
// besides — a maintainer's search for a seed where a check misses or a twin is falsely rejected; and the lighter
// options a hack's test may validate at.
import { checksFor } from '../../validators/checks/contract.js';
import { CHECKS } from '../../validators/checks/registry.js';
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
 * Validator options for a test that an episodic hack is rejected with `code`: only the hack-stage checks that can give
 * that code run (the baselines too where they are one of them), and the random-policy and finish-alone baseline probes
 * cut to a few (~0.7 s of a ~3 s validation). Each check plans and judges its own requests (a request several checks
 * plan is one object, played once, whoever plans it), and no check reads another's findings: the baselines' random
 * curve is read by the difficulty stage alone (its random-play trend is then not judged, which gives none of these
 * codes), and the probes cut are drawn from seeds of their own and read only by their own rates and that curve
 * (validators/episodic/probes.ts, episodic/stages.ts), so the checks that run see the episodes of a validation at the
 * defaults and give its findings. A code those probes can give gets the defaults (undefined), as do honest twins.
 */
export function episodicHackOptions(code: string): Partial<ValidatorOptions> | undefined {
  if (CUT_PROBE_CODES.has(code)) return undefined;
  const giving = checksFor(CHECKS, 'episodic').filter((c) => (c.codes as readonly string[]).includes(code));
  return { episodic: { ...HACK_OPTIONS.episodic, checks: giving.map((c) => c.name) } };
}

/** What the cut probes decide: their two rate families' codes, and the difficulty stage's random play gets easier. */
const CUT_PROBE_CODES = new Set<string>(['E_ACCEPTS_RANDOM_POLICY', 'E_ACCEPTS_REPEATED_ACTION', 'E_LEVEL_IGNORED']);

const HACK_OPTIONS = {
  episodic: { ...DEFAULT_VALIDATOR_OPTIONS.episodic, randomPerLevel: 4, finishAloneSamples: 16 },
} satisfies Partial<ValidatorOptions>;
