// The adversary library's cuts of the plan, each then the finishing call: a prefix (decisions left out, after a
// model-like opening too), one decision repeated as often as the reference decides, one call made k times, and
// one decision applied to every entity the episode names. Judged at zero tolerance against the episode's own
// score, where tool ablation shows a left-out tool decides it.
import type { ProblemCode } from '../../contract/codes.js';
import type { Rollout, RolloutResult } from '../../sandbox/rollouts.js';
import type { Probe } from '../episodic/adversaries.js';
import { adversaryFamily, decisiveTools } from './episodic-ablation.js';
import { scoreOf, type EpisodicCheck, type EpisodicContext } from './episodic.js';
import type { Finding } from './rules.js';

const CUTS: Array<[Probe['family'], ProblemCode, string]> = [
  ['prefix-finish', 'E_ACCEPTS_INCOMPLETE', 'adversary log'],
  ['repeat-finish', 'E_ACCEPTS_REPEATED_ACTION', 'adversary log'],
  ['repeat-reads', 'E_ACCEPTS_REPEATED_ACTION', 'adversary log'],
  ['blanket', 'E_ACCEPTS_BLANKET', 'adversary log'],
];

/** A finding at zero tolerance against the episode's own score: a log fails when it earns what the reference earns. */
export function earnsReference(
  code: ProblemCode,
  check: string,
  what: string,
  ref: Rollout,
  result: RolloutResult | undefined,
  actions: unknown[],
  family: string,
): Finding {
  const form =
    `${family}: ${actions.length} calls, ending ${JSON.stringify(actions.at(-1) ?? null).slice(0, 80)} (seed ` +
    `${ref.seed}, level ${ref.level})`;
  return {
    rule: 'zero',
    code,
    check,
    judged: scoreOf(result) + 1e-6,
    ceiling: ref.score,
    form,
    what,
    evidence: () => ({
      family,
      seed: ref.seed,
      level: ref.level,
      score: scoreOf(result),
      actions: JSON.stringify(actions.slice(0, 6)).slice(0, 400),
    }),
  };
}

/**
 * The cut logs of the adversary episodes; one call made k times only on the first adversary episode of each level (the
 * cheapest family to leave to one).
 */
export function cutProbes(ctx: EpisodicContext): Probe[] {
  const levels = new Map<number, number>();
  for (const i of ctx.adversaryEpisodes())
    if (!levels.has((ctx.refs[i] as Rollout).level)) levels.set((ctx.refs[i] as Rollout).level, i);
  const first = new Set(levels.values());
  return CUTS.flatMap(([family]) => adversaryFamily(ctx, family)).filter(
    (p) => p.family !== 'repeat-reads' || first.has(p.of),
  );
}

/** Whether cut `p` is judged: a tool it leaves out decides its episode's score, and the reference passes. */
export const judgedCut = (ctx: EpisodicContext, decisive: ReadonlySet<string>, p: Probe): boolean =>
  (p.needs ?? []).some((t) => decisive.has(`${p.of}|${t}`)) &&
  (ctx.refs[p.of] as Rollout).score >= ctx.options.zeroToleranceCeiling;

export const episodicCuts: EpisodicCheck = {
  name: 'episodic-cuts',
  codes: [...new Set(CUTS.map(([, code]) => code))],
  kinds: ['episodic'],
  plan(ctx) {
    const ablations = adversaryFamily(ctx, 'tool-ablation');
    const cuts = cutProbes(ctx);
    if (ablations.length === 0) return null;
    return {
      requests: [...ablations, ...cuts].map((p) => p.request),
      judge(outcomes) {
        const decisive = decisiveTools(ctx.refs, ablations, outcomes);
        const findings: Finding[] = [];
        const metrics: Record<string, number> = { decisiveTools: decisive.size };
        for (const [family, code, what] of CUTS) {
          const judged = cuts.flatMap((p, k) =>
            p.family === family && judgedCut(ctx, decisive, p) ? [{ p, result: outcomes[ablations.length + k] }] : [],
          );
          metrics[family] =
            judged.length === 0
              ? 0
              : judged.filter((x) => scoreOf(x.result) >= (ctx.refs[x.p.of] as Rollout).score - 1e-6).length /
                judged.length;
          for (const { p, result } of judged)
            findings.push(
              earnsReference(
                code,
                'episodic-cuts',
                what,
                ctx.refs[p.of] as Rollout,
                result,
                p.request.policy.type === 'replay' ? p.request.policy.actions : [],
                family,
              ),
            );
        }
        return { findings, metrics };
      },
    };
  },
};
