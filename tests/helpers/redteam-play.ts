// Plays a scripted (cheap) policy against an episodic module for the red-team tests, by replaying the growing
// action log one turn per round (episodes are pure functions of their log), so a policy can read observations.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { SandboxPool } from '../../sandbox/pool.js';
import { runRollouts, type Rollout } from '../../sandbox/rollouts.js';

export type Action = { tool: string; args: Record<string, unknown> };
/** A cheap policy: from the prompt, the observations so far and its own actions, the next action (null: stop). */
export type Policy = (prompt: string, observations: string[], actions: Action[]) => Action | null;

/** `perLevel` episodes per level (fixed seeds): the score of each finished episode, and its actions. */
export async function playPolicy(
  pool: SandboxPool,
  src: string,
  meta: EpisodicMeta,
  policy: Policy,
  perLevel: number,
): Promise<Array<{ level: number; score: number; actions: Action[] }>> {
  const games = Array.from({ length: meta.levels * perLevel }, (_, i) => ({
    seed: 90_001 + 7_919 * i,
    level: 1 + (i % meta.levels),
    actions: [] as Action[],
    done: null as Rollout | null,
  }));
  for (let round = 0; round <= meta.maxTurns && games.some((g) => !g.done); round++) {
    const open = games.filter((g) => !g.done);
    const { rollouts } = await runRollouts(
      pool,
      src,
      meta,
      open.map((g) => ({
        seed: g.seed,
        level: g.level,
        policy: { type: 'replay' as const, actions: g.actions },
        observations: true,
      })),
    );
    open.forEach((g, i) => {
      const r = rollouts[i];
      if (!r?.ok) throw new Error(`episode ${g.seed} failed: ${JSON.stringify(r)}`);
      const next = r.end === 'no-action' ? policy(r.prompt ?? '', r.observations ?? [], g.actions) : null;
      if (next) g.actions = [...g.actions, next];
      else g.done = r;
    });
  }
  return games.map((g) => ({ level: g.level, score: g.done?.score ?? 0, actions: g.actions }));
}
