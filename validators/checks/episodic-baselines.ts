// The episodic baselines (the tau2-style holes): no action, invalid actions only and the reference minus its
// last action, judged at zero tolerance; another episode's actions, one action repeated, a tool the reference
// never needs, the finishing call alone and a seeded random policy (on what it wins without the world's
// information), judged as rates (a level's mean score at its lower confidence bound, and the share of full
// passes over all levels). The random policy's mean per level is left for the difficulty stage.
import type { ProblemCode } from '../../contract/codes.js';
import type { EpisodicProbeFamily } from '../../kinds/contract.js';
import type { RolloutResult } from '../../sandbox/rollouts.js';
import { mean } from '../context.js';
import type { Probe } from '../episodic/adversaries.js';
import { blindScores } from '../episodic/informed.js';
import { buildProbes } from '../episodic/probes.js';
import { scoreOf, type EpisodicCheck, type EpisodicContext } from './episodic.js';
import { judgeRate, type Finding, type RateFinding } from './rules.js';

const ZERO: Partial<Record<EpisodicProbeFamily, ProblemCode>> = {
  'no-action': 'E_ACCEPTS_NO_ACTION',
  'invalid-actions': 'E_ACCEPTS_INVALID_ACTIONS',
  incomplete: 'E_ACCEPTS_INCOMPLETE',
};
const RATE: Partial<Record<EpisodicProbeFamily, ProblemCode>> = {
  'other-episode': 'E_ACCEPTS_OTHER_EPISODE',
  'repeated-action': 'E_ACCEPTS_REPEATED_ACTION',
  shortcut: 'E_ACCEPTS_SHORTCUT',
  'finish-alone': 'E_ACCEPTS_REPEATED_ACTION',
  'random-policy': 'E_ACCEPTS_RANDOM_POLICY',
};

export interface ScoredProbe {
  probe: Probe;
  result: RolloutResult;
}

/** The fixed probe families of the candidate, made once per stage: several checks read their outcomes. */
export const fixedProbes = (ctx: EpisodicContext): Probe[] =>
  ctx.memo('fixedProbes', () => buildProbes(ctx.meta, [...ctx.refs], ctx.options, ctx.stage.validationSeed));

/** What a probe's evidence shows: its family, episode, score, end and first actions (a repair prompt replays them). */
export function probeEvidence(s: ScoredProbe): Record<string, unknown> {
  const r = s.result;
  const actions = s.probe.request.policy.type === 'replay' ? s.probe.request.policy.actions : r.ok ? r.actions : [];
  return {
    family: s.probe.family,
    seed: s.probe.request.seed,
    level: s.probe.request.level,
    score: r.ok ? r.score : null,
    end: r.ok ? r.end : null,
    actions: JSON.stringify(actions.slice(0, 5)).slice(0, 400),
  };
}

/** Each reference episode's best attempt of a family (the repeat and shortcut families try several). */
function bestPerEpisode(list: ScoredProbe[]): ScoredProbe[] {
  const best = new Map<number, ScoredProbe>();
  for (const s of list) {
    const seen = best.get(s.probe.of);
    if (!seen || scoreOf(s.result) > scoreOf(seen.result)) best.set(s.probe.of, s);
  }
  return [...best.values()];
}

/** A rate family's two findings: a level's mean at its lower bound, and the share of full passes over all levels. */
function rateFindings(
  f: EpisodicProbeFamily,
  code: ProblemCode,
  list: ScoredProbe[],
  win: (s: ScoredProbe) => number,
  o: EpisodicContext['options'],
): RateFinding[] {
  const passCeiling =
    f === 'finish-alone' ? o.finishAlonePassCeiling : f === 'random-policy' ? o.randomPassCeiling : o.ratePassCeiling;
  const meanCeiling =
    f === 'finish-alone' || f === 'random-policy' ? Math.max(o.rateMeanCeiling, passCeiling) : o.rateMeanCeiling;
  const best = list.reduce((a, b) => (win(b) > win(a) ? b : a));
  const evidence = () => probeEvidence(best);
  // A level's mean judged at its lower confidence bound: one coincidental pass in ~12 probes is not a hack, two are.
  return [
    {
      rule: 'rate',
      code,
      check: 'episodic-baselines',
      policy: `the ${f} probe (its mean score)`,
      trials: list.map((s) => ({ level: s.probe.request.level, win: win(s), chance: 0 })),
      tolerance: { level: meanCeiling },
      z: o.rateMeanZ,
      minTrials: 1,
      evidence,
    },
    {
      rule: 'rate',
      code,
      check: 'episodic-baselines',
      policy: `the ${f} probe (its full passes)`,
      trials: list.map((s) => ({ level: s.probe.request.level, win: win(s) >= 1 ? 1 : 0, chance: 0 })),
      tolerance: { pooled: passCeiling },
      z: 0,
      minTrials: 1,
      evidence,
    },
  ];
}

export const episodicBaselines: EpisodicCheck = {
  name: 'episodic-baselines',
  codes: [...new Set([...Object.values(ZERO), ...Object.values(RATE)])] as ProblemCode[],
  kinds: ['episodic'],
  plan(ctx) {
    const probes = fixedProbes(ctx).filter((p) => p.family in ZERO || p.family in RATE);
    const o = ctx.options;
    return {
      requests: probes.map((p) => p.request),
      async judge(outcomes, tools) {
        const scored: ScoredProbe[] = probes.map((probe, i) => ({ probe, result: outcomes[i] as RolloutResult }));
        const family = (f: EpisodicProbeFamily) => scored.filter((s) => s.probe.family === f);
        const findings: Finding[] = [];
        const families: Record<string, { mean: number; pass: number; max: number; informed?: number }> = {};
        // A family's mean is its worst level's (the level a rate is judged at), its passes the share over all levels.
        const worstLevel = (list: ScoredProbe[]) =>
          Math.max(
            0,
            ...[...new Set(list.map((s) => s.probe.request.level))].map((l) =>
              mean(list.filter((s) => s.probe.request.level === l).map((s) => scoreOf(s.result))),
            ),
          );
        // `all`: the family's every probe (the repeat and shortcut families are judged by each episode's best).
        const stats = (list: ScoredProbe[], all = list) => ({
          mean: worstLevel(list),
          pass: list.length ? list.filter((s) => scoreOf(s.result) >= 1).length / list.length : 0,
          max: Math.max(0, ...list.map((s) => scoreOf(s.result))),
          probes: all.length,
          turns: all.reduce((n, s) => n + (s.result.ok ? s.result.turns : 0), 0),
        });
        for (const [f, code] of Object.entries(ZERO) as Array<[EpisodicProbeFamily, ProblemCode]>) {
          families[f] = stats(family(f));
          for (const s of family(f))
            findings.push({
              rule: 'zero',
              code,
              check: 'episodic-baselines',
              judged: scoreOf(s.result),
              ceiling: o.zeroToleranceCeiling,
              form: `${f} (seed ${s.probe.request.seed}, level ${s.probe.request.level})`,
              what: `${f} probe`,
              evidence: () => probeEvidence(s),
            });
        }
        for (const [f, code] of Object.entries(RATE) as Array<[EpisodicProbeFamily, ProblemCode]>) {
          const list = f === 'repeated-action' || f === 'shortcut' ? bestPerEpisode(family(f)) : family(f);
          if (list.length === 0) continue;
          families[f] = stats(list, family(f));
          let rates = rateFindings(f, code, list, (s) => scoreOf(s.result), o);
          // The random policy copies what it saw, so now and then it plays the task's own path (read the right
          // record, act on it): what it wins is judged without the world's information (docs/validator.md).
          if (f === 'random-policy' && rates.some((x) => judgeRate(x).failing.length > 0)) {
            const blind = await blindScores(ctx.meta, list, tools.run);
            const win = (s: ScoredProbe) => Math.min(scoreOf(s.result), blind.get(s) ?? scoreOf(s.result));
            families[f] = {
              ...stats(list, family(f)),
              informed: list.filter((s) => scoreOf(s.result) >= 1 && win(s) < 1).length,
            };
            rates = rateFindings(f, code, list, win, o);
          }
          findings.push(...rates);
        }
        const random = family('random-policy');
        ctx.stage.randomByLevel = new Map(
          [...new Set(random.map((s) => s.probe.request.level))].map((level) => [
            level,
            mean(random.filter((s) => s.probe.request.level === level).map((s) => scoreOf(s.result))),
          ]),
        );
        const worst = Object.entries(families).reduce<[string, { mean: number }] | null>(
          (a, b) => (a === null || b[1].mean > a[1].mean ? b : a),
          null,
        );
        return { findings, metrics: { probes: probes.length, families, worstProbe: worst?.[0] ?? null } };
      },
    };
  },
};
