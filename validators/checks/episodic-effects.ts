// Which tools decide an episode's score by their own effect: the plan with a tool's calls kept at their turns but
// pointed at an id nobody has (validators/episodic/gates.ts), so every other call draws what it drew, earns less.
// Tool ablation removes the calls and shifts every later turn's draws, so a pure read looks decisive where the steps
// draw chance (bank-dispute: the merchants' replies); its verdict stands only where no such replay took the effect out.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from '../episodic/adversaries.js';
import { callsOf, decidesByEffect, neutralized, nobodyFor } from '../episodic/gates.js';
import { entityArgOf } from '../episodic/withheld.js';
import { replayOf, type EpisodicContext } from './episodic.js';

/** One tool of one episode's plan neutralized: the replay with its changes (shared: planned once a stage). */
export interface NeutralProbe {
  of: number;
  tool: string;
  body: Action[];
  request: RolloutRequest;
}

/** The argument that names the entity of `tool`'s calls in episode `of`'s plan (entityArgOf); null where none. */
export function entityArgIn(ctx: EpisodicContext, of: number, tool: string): string | null {
  const bodies = ctx.memo('reference-bodies', () => ctx.refs.map((r) => actionsOf(r).slice(0, -1)));
  const r = ctx.refs[of] as Rollout;
  return entityArgOf(ctx.meta, bodies[of] as Action[], tool, [r.prompt ?? '', ...(r.observations ?? [])], bodies);
}

/** For each episode, each tool of its plan (the finish aside) that names an entity: its calls neutralized. */
export function neutralProbes(ctx: EpisodicContext, episodes: readonly number[]): NeutralProbe[] {
  return episodes.flatMap((of) => {
    const r = ctx.refs[of] as Rollout;
    const acts = actionsOf(r);
    const body = acts.slice(0, -1);
    return [...new Set(body.map((a) => a.tool))].flatMap((tool) => {
      const arg = entityArgIn(ctx, of, tool);
      if (arg === null) return [];
      const request = ctx.shared(`neutralized:${of}:${tool}:${arg}`, () =>
        replayOf(r, [...neutralized(body, tool, arg, nobodyFor(ctx.meta, tool, arg)), acts.at(-1)], { changes: true }),
      );
      return [{ of, tool, body, request }];
    });
  });
}

/**
 * `${episode}|${tool}` for each tool that decides the episode's score: by its effect where its neutralized replay
 * (`neutral[k]` answers `probes[k]`) took the effect out, else as the tool ablation says (`byAblation`: decisiveTools).
 */
export function decisiveByEffect(
  refs: readonly Rollout[],
  byAblation: ReadonlySet<string>,
  probes: readonly NeutralProbe[],
  neutral: readonly (RolloutResult | undefined)[],
): Set<string> {
  const decisive = new Set(byAblation);
  probes.forEach((p, k) => {
    const verdict = decidesByEffect(callsOf(p.body, p.tool), (refs[p.of] as Rollout).score, neutral[k]);
    if (verdict === true) decisive.add(`${p.of}|${p.tool}`);
    if (verdict === false) decisive.delete(`${p.of}|${p.tool}`);
  });
  return decisive;
}
