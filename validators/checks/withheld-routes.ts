// Where a route's added call goes (redteam-trust15 Z6, Z7): right before one of the reference's deciding calls, the
// first of the places tried (`placesOnRoute`) where the world accepts a call on that entity at all, judged by effect:
// not refused, and changing a path beyond bookkeeping or, where it changes only bookkeeping, remembered (neutral.ts).
// A refusal at one place is enforcement only where no other place accepts the call; a room no place reaches is no
// decision. Cost: one replay of the plan up to each place tried (at most ROUTE_PLACES an entity), plus the neutral
// replays of a call that changed only bookkeeping.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from '../episodic/adversaries.js';
import { onlyBookkeeping, recordedBeyondNeutral } from '../episodic/neutral.js';
import { refilled, replyBefore, restatedArgs } from '../episodic/restated.js';
import { changedAt, placesOnRoute } from '../episodic/withheld.js';
import { replayOf } from './episodic.js';

/** One route's added call to place: its episode's reference, plan (finish aside) and its replay, the call. */
export interface RouteAsk {
  ref: Rollout;
  body: readonly Action[];
  reference: RolloutResult | undefined;
  /** Whether a tool decides the score in this episode (tool ablation). */
  decisive: (tool: string) => boolean;
  call: Action;
  /** The call's argument naming its entity. */
  arg: string;
  entity: string;
}

/** Each ask's place in its plan (-1 where no place tried accepts the call), with the rollouts spent. */
export async function placeRouteCalls(
  asks: readonly RouteAsk[],
  book: ReadonlySet<string>,
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<{ places: number[]; rollouts: number }> {
  const tries = asks.flatMap((a, k) => {
    const reference = a.reference?.ok ? a.reference : undefined;
    const decides = (j: number) =>
      reference !== undefined && a.decisive((a.body[j] as Action).tool) && changedAt(reference, j);
    // A ticket each reply restates (restated.ts) is re-read from the reference's reply before the place.
    const restated = restatedArgs(a.body, a.ref.observations ?? [], a.call.tool, a.arg);
    return placesOnRoute(a.body, a.entity, decides).map((at) => {
      const call = refilled(a.call, restated, replyBefore(a.ref, a.ref, at) ?? '');
      return { k, at, ref: a.ref, actions: [...a.body.slice(0, at), call] };
    });
  });
  if (tries.length === 0) return { places: asks.map(() => -1), rollouts: 0 };
  const runs = await run(tries.map((t) => replayOf(t.ref, t.actions, { changes: true })));
  const played = (j: number) => {
    const r = runs[j];
    return r?.ok === true && changedAt(r, (tries[j] as (typeof tries)[number]).at) ? r : undefined;
  };
  // Changes all bookkeeping (a refusal an event log keeps too): accepted only where the world remembers the call.
  const hidden = tries.flatMap((t, j) => (onlyBookkeeping(played(j)?.changes?.[t.at], book) ? [j] : []));
  let neutrals = 0;
  const remembered = await recordedBeyondNeutral(
    hidden.map((j) => {
      const t = tries[j] as (typeof tries)[number];
      return { ref: t.ref, actions: t.actions, at: t.at, added: true };
    }),
    (requests) => {
      neutrals += requests.length;
      return run(requests);
    },
  );
  const forgotten = new Set(hidden.filter((_, h) => !remembered[h]));
  const places = asks.map(
    (_, k) => tries.find((t, j) => t.k === k && played(j) !== undefined && !forgotten.has(j))?.at ?? -1,
  );
  return { places, rollouts: runs.length + neutrals };
}
