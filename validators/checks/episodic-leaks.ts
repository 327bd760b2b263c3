// Leaks of the reference's values to the agent: replaying only the reference actions whose values the prompt
// spells out must not solve its own episode more often than another's (the prompt gives the plan away), and
// no observation may show a computed value before the reference sends it, nor answer a refused wrong value
// with the right one (an echo of the agent's own arguments aside). Both judged as rates against chance.
import type { Rollout, RolloutResult } from '../../sandbox/rollouts.js';
import { tokensOf } from '../episodic/probes.js';
import { fixedProbes, probeEvidence, type ScoredProbe } from './episodic-baselines.js';
import { scoreOf, type EpisodicCheck } from './episodic.js';
import type { Finding } from './rules.js';

/**
 * Whether an observation (of `r` itself, or of a probe with `sent` actions) shows a number the reference sends that
 * neither the prompt nor the initial state holds.
 */
export function observationLeaks(
  r: Rollout,
  observations: string[] | undefined,
  initial: RolloutResult | undefined,
  sent: unknown[] = r.actions,
): boolean {
  if (!initial?.ok || initial.state === undefined || !observations) return false;
  const known = new Set<string>(tokensOf(r.prompt ?? ''));
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
    else known.add(String(v).toLowerCase());
  };
  walk(initial.state);
  const argsOf = (a: unknown): unknown[] =>
    Object.values(((a as { args?: Record<string, unknown> } | null)?.args ?? {}) as Record<string, unknown>);
  return r.actions.some((action, idx) =>
    argsOf(action).some((v) => {
      if (typeof v !== 'number' || (Number.isInteger(v) && Math.abs(v) < 100) || known.has(String(v))) return false;
      const before = sent === r.actions ? observations.slice(0, idx) : observations;
      return before.some((text, j) => !argsOf(sent[j]).includes(v) && tokensOf(text).some((w) => Number(w) === v));
    }),
  );
}

export const episodicLeaks: EpisodicCheck = {
  name: 'episodic-leaks',
  codes: ['E_ANSWER_LEAK'],
  kinds: ['episodic'],
  plan(ctx) {
    const probes = fixedProbes(ctx).filter(
      (p) => p.family === 'prompt-replay' || p.family === 'no-action' || p.family === 'perturbed',
    );
    const o = ctx.options;
    return {
      requests: probes.map((p) => p.request),
      judge(outcomes) {
        const scored: ScoredProbe[] = probes.map((probe, i) => ({ probe, result: outcomes[i] as RolloutResult }));
        const share = <T>(list: T[], win: (t: T) => boolean) =>
          list.length === 0 ? 0 : list.filter(win).length / list.length;
        const own = scored.filter((s) => s.probe.family === 'prompt-replay' && s.probe.of >= 0);
        const chance = share(
          scored.filter((s) => s.probe.family === 'prompt-replay' && s.probe.of < 0),
          (s) => scoreOf(s.result) >= 0.5,
        );
        const findings: Finding[] = [];
        const solved = own.find((s) => scoreOf(s.result) >= 0.5) ?? own[0];
        if (solved) {
          findings.push({
            rule: 'rate',
            code: 'E_ANSWER_LEAK',
            check: 'episodic-leaks',
            policy:
              'replaying only the reference actions whose values the prompt spells out (against the same ' +
              'replay on another instance)',
            trials: own.map((s) => ({ level: s.probe.request.level, win: scoreOf(s.result) >= 0.5 ? 1 : 0, chance })),
            tolerance: { pooled: o.promptLeakMaxRate - 1e-9 },
            z: 0,
            minTrials: 1,
            evidence: () => probeEvidence(solved),
          });
        }
        const noAction = new Map(
          scored.filter((s) => s.probe.family === 'no-action').map((s) => [s.probe.of, s.result]),
        );
        const perturbed = new Map(
          scored.filter((s) => s.probe.family === 'perturbed').map((s) => [s.probe.of, s.result]),
        );
        // A refused wrong value must not be answered with the right one: the perturbed replay's observations count too.
        const leaks = ctx.refs.map((r, i) => {
          const probe = perturbed.get(i);
          return (
            observationLeaks(r, r.observations, noAction.get(i)) ||
            (probe?.ok === true && observationLeaks(r, probe.observations, noAction.get(i), probe.actions))
          );
        });
        const at = leaks.indexOf(true);
        findings.push({
          rule: 'rate',
          code: 'E_ANSWER_LEAK',
          check: 'episodic-leaks',
          policy:
            'reading a computed value (not in the initial state or the prompt) off an observation before ' +
            'the reference submits it',
          trials: ctx.refs.map((r, i) => ({ level: r.level, win: leaks[i] ? 1 : 0, chance: 0 })),
          tolerance: { pooled: o.observationLeakMaxRate - 1e-9 },
          z: 0,
          minTrials: 1,
          evidence: () =>
            at >= 0 ? { seed: (ctx.refs[at] as Rollout).seed, level: (ctx.refs[at] as Rollout).level } : {},
        });
        return {
          findings,
          metrics: {
            promptLeak: share(own, (s) => scoreOf(s.result) >= 0.5) - chance,
            observationLeak: share(leaks, (x) => x),
          },
        };
      },
    };
  },
};
