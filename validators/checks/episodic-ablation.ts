// What the adversary checks share: the adversary library's logs for each adversary episode (made once per
// stage, so a log several checks plan runs once), tool ablation, which says which tools decide an episode's
// score (the reference without every call of one tool earns less), and the reference replayed with its state.
import type { Rollout, RolloutResult } from '../../sandbox/rollouts.js';
import { adversaryProbes, argValues, finished, type Probe } from '../episodic/adversaries.js';
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
