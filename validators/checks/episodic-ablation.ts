// What the adversary checks share: the adversary library's logs for each adversary episode (made once per
// stage, so a log several checks plan runs once), tool ablation, which says which tools decide an episode's
// score (the reference without every call of one tool earns less; on the first episode of each level, their
// effect: episodic-effects.ts), and the reference replayed with its state.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { adversaryProbes, argValues, finished, type Probe } from '../episodic/adversaries.js';
import type { CheckPlan, CheckVerdict, JudgeTools } from './contract.js';
import { decisiveByEffect, neutralProbes } from './episodic-effects.js';
import { replayOf, scoreOf, type EpisodicContext } from './episodic.js';

/** Every adversary probe of the stage's adversary episodes. */
export const adversaryProbeList = (ctx: EpisodicContext): Probe[] =>
  ctx.memo('adversaryProbes', () => {
    const values = argValues([...ctx.refs]);
    return ctx.adversaryEpisodes().flatMap((i) => adversaryProbes(ctx.meta, ctx.refs[i] as Rollout, i, values));
  });

/** The adversary probes of one family. */
export const adversaryFamily = (ctx: EpisodicContext, family: Probe['family']): Probe[] =>
  adversaryProbeList(ctx).filter((p) => p.family === family);

/**
 * `${episode}|${tool}` for each tool whose ablation earns less than the episode's reference (`outcomes[i]` answers
 * `ablations[i]`).
 */
export function decisiveTools(
  refs: readonly Rollout[],
  ablations: readonly Probe[],
  outcomes: readonly (RolloutResult | undefined)[],
): Set<string> {
  return new Set(
    ablations.flatMap((p, i) =>
      scoreOf(outcomes[i]) < (refs[p.of] as Rollout).score - 1e-9 ? [`${p.of}|${p.needs?.[0]}`] : [],
    ),
  );
}

/** The episodes the ablation probed (the adversary episodes that end with a finishing call). */
export const ablatedEpisodes = (ablations: readonly Probe[]): number[] => [...new Set(ablations.map((p) => p.of))];

/**
 * The first ablated episode of each level whose reference finishes at the zero-tolerance ceiling: the episodes the
 * arguments, exchanges and withheld checks play their probes on (their cost bound).
 */
export function firstEpisodeOfEachLevel(ctx: EpisodicContext, ablations: readonly Probe[]): number[] {
  const levels = new Set<number>();
  return ablatedEpisodes(ablations).filter((i) => {
    const r = ctx.refs[i] as Rollout;
    const first = !levels.has(r.level) && finished(r) && r.score >= ctx.options.zeroToleranceCeiling;
    if (first) levels.add(r.level);
    return first;
  });
}

/**
 * The reference of episode `i` replayed once per stage with its final state and each turn's changed paths (the rules
 * and arguments checks read both).
 */
export const referenceState = (ctx: EpisodicContext, i: number) =>
  ctx.shared(`reference-state:${i}`, () =>
    replayOf(ctx.refs[i] as Rollout, (ctx.refs[i] as Rollout).actions, { keepState: true, changes: true }),
  );

/** What a check played on the first episode of each level sees once the ablations and reference states are back. */
export interface FirstEpisodes {
  ablations: Probe[];
  /** The first ablated episode of each level (firstEpisodeOfEachLevel). */
  episodes: number[];
  /** `${episode}|${tool}` for each tool that decides the episode's score by its effect (decisiveByEffect). */
  decisive: Set<string>;
  /** Each episode's reference replayed with its final state and changed paths (referenceState). */
  reference: Map<number, RolloutResult | undefined>;
}

/**
 * The plan of a check that probes the first episode of each level (arguments, exchanges, alternatives): the tool
 * ablations, each tool's calls neutralized and the reference states requested, then `judge` given what they show;
 * null where no episode is probed.
 */
export function onFirstEpisodes(
  ctx: EpisodicContext,
  judge: (seen: FirstEpisodes, tools: JudgeTools<RolloutRequest, RolloutResult>) => Promise<CheckVerdict>,
): CheckPlan<RolloutRequest, RolloutResult> | null {
  const ablations = adversaryFamily(ctx, 'tool-ablation');
  const episodes = firstEpisodeOfEachLevel(ctx, ablations);
  if (episodes.length === 0) return null;
  const neutral = neutralProbes(ctx, episodes);
  const [a, n] = [ablations.length, neutral.length];
  return {
    requests: [
      ...ablations.map((p) => p.request),
      ...neutral.map((p) => p.request),
      ...episodes.map((i) => referenceState(ctx, i)),
    ],
    judge: (outcomes, tools) =>
      judge(
        {
          ablations,
          episodes,
          decisive: decisiveByEffect(
            ctx.refs,
            decisiveTools(ctx.refs, ablations, outcomes),
            neutral,
            outcomes.slice(a, a + n),
          ),
          reference: new Map(episodes.map((i, k) => [i, outcomes[a + n + k]])),
        },
        tools,
      ),
  };
}
