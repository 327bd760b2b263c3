// The unused surface composed with the reference's plan (redteam-trust4 F8): a tool the reference never calls
// applied to every entity but one (a merge, an archive, a "not applicable" mark), then the reference's own calls
// on the entity left, then the finish. The score must range over the entities `reset` created: where taking the
// others off the desk lets the plan on one entity earn the reference's score, the unused tool shrank the count.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from './adversaries.js';
import { surfacePlans, type SurfaceLog, type Used } from './surface.js';

/** A composed log and its control: the same reference calls on the entities left, without the unused tool. */
export interface ComposedLog extends SurfaceLog {
  control: Action[];
}

/** Whether `a` names one of `gone` in any string argument (case and surrounding space aside). */
const names = (a: Action, gone: ReadonlySet<string>): boolean =>
  Object.values(a.args).some((v) => typeof v === 'string' && gone.has(v.trim().toLowerCase()));

/** The reference's calls (the finish aside) that name none of `gone`, then its finish. */
export function restrictedPlan(r: Rollout, gone: ReadonlySet<string>): Action[] {
  const acts = actionsOf(r);
  return [...acts.slice(0, -1).filter((a) => !names(a, gone)), acts.at(-1) as Action];
}

/**
 * The composed logs of reference `r`: for each unused tool's assignment (surface.ts, a required free string nobody
 * sends filled with the entity kept), the tool applied to every entity but the first, then the reference's plan
 * restricted to the first; and applied to every entity, then the reference's calls that name none. Each with the
 * restricted plan alone as its control. At most `perEpisode` logs.
 */
export function composedLogs(
  meta: EpisodicMeta,
  r: Rollout,
  used: Used,
  entityCap: number,
  perEpisode: number,
): ComposedLog[] {
  const out: ComposedLog[] = [];
  for (const p of surfacePlans(meta, r, used, entityCap, true)) {
    if (!p.unusedTool) continue;
    const key = (e: string) => e.trim().toLowerCase();
    for (const assign of p.assignments)
      for (const [how, applied] of [
        ['every entity but one', p.universe.slice(1)],
        ['every entity', p.universe],
      ] as const) {
        if (applied.length === 0) continue;
        const gone = new Set(applied.map(key));
        const control = restrictedPlan(r, gone);
        if (applied.length + control.length > meta.maxTurns) continue;
        const named = { ...assign, ...Object.fromEntries(p.filled.map((a) => [a, '(the entity kept)'])) };
        out.push({
          policy: `${p.tool} ${JSON.stringify(named)} on ${how}, then the reference's plan on what is left`,
          actions: [...applied.map((e) => ({ tool: p.tool, args: { ...assign, [p.entity]: e } })), ...control],
          control,
        });
      }
  }
  return out.slice(0, perEpisode);
}
