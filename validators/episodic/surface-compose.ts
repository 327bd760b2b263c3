// The unused surface composed with the reference's plan (redteam-trust4 F8, redteam-trust6 H4): each unused (tool,
// argument) pair — a tool the reference never calls, or an optional argument of a called tool it never sends (a
// merge, an archive, a "not applicable" mark, a `duplicate_of`) — applied to every entity but one, then the
// reference's own calls on the entity left, then the finish. Where that earns the reference's score, the pair shrank
// the count the score ranges over.
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
 * The composed logs of reference `r`: for each assignment of the unused surface (surface.ts: an unused tool's, or a
 * used tool's with one unused optional argument set; a free string nobody sends filled with the entity kept), the
 * tool applied to every entity but the first, then the reference's plan restricted to the first; and applied to
 * every entity, then the reference's calls that name none. Each with the restricted plan alone as its control. The
 * logs taken in turn across the tools (the first of each, then the second…), so no tool's logs crowd out another's
 * under the cap; at most `perEpisode` logs. With `times` above 1, each call of the tool sent that many times in a row
 * (redteam-trust7 I3: a call's own history is state — a flag the first call sets, the same call again acts on).
 */
export function composedLogs(
  meta: EpisodicMeta,
  r: Rollout,
  used: Used,
  entityCap: number,
  perEpisode: number,
  times = 1,
): ComposedLog[] {
  const key = (e: string) => e.trim().toLowerCase();
  const byTool = surfacePlans(meta, r, used, entityCap, true).map((p) =>
    p.assignments.flatMap((assign) => {
      const out: ComposedLog[] = [];
      for (const [how, applied] of [
        ['every entity but one', p.universe.slice(1)],
        ['every entity', p.universe],
      ] as const) {
        if (applied.length === 0) continue;
        const gone = new Set(applied.map(key));
        const control = restrictedPlan(r, gone);
        if (times * applied.length + control.length > meta.maxTurns) continue;
        const named = {
          ...assign,
          ...Object.fromEntries(p.filled.filter((a) => a in assign).map((a) => [a, '(the entity kept)'])),
        };
        out.push({
          policy:
            `${p.tool} ${JSON.stringify(named)} ${times > 1 ? `${times} times ` : ''}on ${how}, ` +
            `then the reference's plan on what is left`,
          actions: [
            ...applied.flatMap((e) =>
              Array.from({ length: times }, () => ({ tool: p.tool, args: { ...assign, [p.entity]: e } })),
            ),
            ...control,
          ],
          control,
        });
      }
      return out;
    }),
  );
  const rounds = Math.max(0, ...byTool.map((p) => p.length));
  return Array.from({ length: rounds }, (_, i) => byTool.flatMap((p) => p[i] ?? []))
    .flat()
    .slice(0, perEpisode);
}
