// The plans a cheap policy plays around an added call (redteam-trust13 X5, redteam-trust14 X5b): a free choice is a
// call, not a tool. Beside the reference's plan without the calls of the tools whose ablation keeps the score, the
// plan without those and the calls on the added call's own entity too (its reads, its own gates), so a prohibition a
// world enforces only once the agent looked at that entity is found even where the same look at the others is scored.
import type { Action } from './adversaries.js';
import { tokensOf } from './probes.js';

/** Whether call `a` names `entity`: a token of one of its string arguments spells it (case aside). */
export const namesEntity = (a: Action, entity: string): boolean => {
  const e = entity.toLowerCase();
  return Object.values(a.args).some((v) => typeof v === 'string' && tokensOf(v).some((t) => t.toLowerCase() === e));
};

/** A plan around an added call: the calls before it (`plan.slice(0, at)`) and after it, the finish aside. */
export interface CheapPlan {
  plan: Action[];
  at: number;
  /** What was left out, for the finding's form. */
  how: string;
}

/**
 * The cheap plans for a call added at `place` in `body` (the reference's plan, its finish aside) on `entity`: without
 * the calls `free` says a policy may skip, then also without the calls that name the entity; each only where it
 * drops a call the one before kept (the first: where `always`, as where the whole plan reads the entity first).
 */
export function cheapPlans(
  body: readonly Action[],
  place: number,
  entity: string,
  free: (a: Action) => boolean,
  always = false,
): CheapPlan[] {
  const cut = (drop: (a: Action) => boolean, how: string): CheapPlan => ({
    plan: body.filter((a) => !drop(a)),
    at: body.slice(0, place).filter((a) => !drop(a)).length,
    how,
  });
  const bare = cut(free, 'without its free calls');
  const own = cut((a) => free(a) || namesEntity(a, entity), `without its free calls and its calls on ${entity}`);
  return [
    ...(always || bare.plan.length < body.length ? [bare] : []),
    ...(own.plan.length < bare.plan.length ? [own] : []),
  ];
}
