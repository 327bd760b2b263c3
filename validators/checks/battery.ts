// The probe battery (probes.ts) as checks: each probed instance's battery is written once per stage, and a
// check takes the families it judges. A zero-tolerance family becomes one finding per probe (what the probe
// is judged on against its ceiling); responses that may be valid answers become rate findings per form group.
import type { ProblemCode } from '../../contract/codes.js';
import type { Family, Probe } from '../probe-types.js';
import { probeBattery } from '../probes.js';
import { familiesOf, judgeExcess, outcomesOf, rateFindings, zeroFindings, type RateLimits } from './probe-findings.js';
import type { ValidatorOptions } from '../options.js';
import type { ProbeRequest, SingleTurnCheck, SingleTurnContext } from './single-turn.js';
import type { JudgedOutcome } from '../hack-checks.js';

/** The probed instances' batteries, written once per stage (only the families the kind applies). */
function batteries(ctx: SingleTurnContext): Array<{ seed: number; level: number; probes: Probe[] }> {
  return ctx.memo('batteries', () => {
    const applies = new Set<string>(ctx.stage.kind.probeFamilies);
    return ctx.targets().map((t) => ({
      seed: t.episode.seed,
      level: t.episode.level,
      probes: probeBattery(t).filter((p) => applies.has(p.family)),
    }));
  });
}

/** One request per probed instance, holding the battery's probes of `families`. */
export function batteryRequests(ctx: SingleTurnContext, families: readonly Family[]): ProbeRequest[] {
  return batteries(ctx).flatMap((b) => {
    const probes = b.probes.filter((p) => families.includes(p.family));
    return probes.length ? [{ seed: b.seed, level: b.level, probes }] : [];
  });
}

export interface ZeroFamily {
  name: string;
  family: Family;
  code: ProblemCode;
  /** Adjusts the outcomes before they are judged (carrier spreads, a list's lift over its guesses alone). */
  prepare?: (
    outcomes: JudgedOutcome[],
    run: (requests: readonly ProbeRequest[]) => Promise<Array<{ outcomes: JudgedOutcome[] }>>,
  ) => Promise<JudgedOutcome[]> | JudgedOutcome[];
}

/**
 * A battery family judged at zero tolerance: every probe that holds no answer, or several, must stay under its ceiling.
 */
export function zeroFamilyCheck(spec: ZeroFamily): SingleTurnCheck {
  return {
    name: spec.name,
    codes: [spec.code],
    kinds: ['single'],
    plan(ctx) {
      const requests = batteryRequests(ctx, [spec.family]);
      if (requests.length === 0) return null;
      return {
        requests,
        async judge(results, tools) {
          const outcomes = spec.prepare ? await spec.prepare(outcomesOf(results), tools.run) : outcomesOf(results);
          judgeExcess(outcomes);
          const ran = outcomes.filter((o) => !o.failure);
          return {
            findings: zeroFindings(spec.name, spec.code, `${spec.family} probe`, ran),
            metrics: familiesOf(ran),
          };
        },
      };
    },
  };
}

export interface RateFamily {
  name: string;
  code: ProblemCode;
  /** The check's requests (the battery's families, or responses of its own). */
  requests(ctx: SingleTurnContext): ProbeRequest[];
  /**
   * The judged groups of the outcomes that ran, each with the name its messages use (default: one group, the check's
   * name).
   */
  groups?(ran: JudgedOutcome[]): Array<[string, JudgedOutcome[]]>;
  limits(o: ValidatorOptions, judged: JudgedOutcome[]): RateLimits;
}

/**
 * Responses that may be valid answers, judged by rate against chance (the response is the answer anyway), group by
 * group.
 */
export function rateFamilyCheck(spec: RateFamily): SingleTurnCheck {
  return {
    name: spec.name,
    codes: [spec.code],
    kinds: ['single'],
    plan(ctx) {
      const requests = spec.requests(ctx);
      if (requests.length === 0) return null;
      return {
        requests,
        judge(results) {
          const ran = outcomesOf(results).filter((x) => !x.failure);
          const groups = spec.groups ? spec.groups(ran) : [[spec.name, ran] as [string, JudgedOutcome[]]];
          return {
            findings: groups.flatMap(([label, list]) =>
              rateFindings(spec.name, spec.code, label, list, spec.limits(ctx.stage.options, list)),
            ),
            metrics: familiesOf(ran),
          };
        },
      };
    },
  };
}
