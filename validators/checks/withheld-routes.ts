// Where a route's added call goes (redteam-trust15 Z6, Z7): right before one of the reference's deciding calls, the
// first of the places tried (`placesOnRoute`) where the world accepts a call on that entity at all, judged by effect:
// not refused, and changing a path beyond bookkeeping or, where it changes only bookkeeping, remembered (neutral.ts).
// A refusal at one place is enforcement only where no other place accepts the call; a room no place reaches is no
// decision. Cost: one replay of the plan up to each place tried, in turn until one accepts (at most ROUTE_PLACES an
// entity), plus the neutral replays of a call that changed only bookkeeping.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from '../episodic/adversaries.js';
import { onlyBookkeeping, recordedBeyondNeutral } from '../episodic/neutral.js';
import { refilled, replyBefore, restatedArgs } from '../episodic/restated.js';
import { changedAt, placesOnRoute, ROUTE_PLACES } from '../episodic/withheld.js';
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

/** One place tried: the ask's index, the place, the plan up to it and the call. */
interface Try {
  k: number;
  at: number;
  ref: Rollout;
  actions: Action[];
}

/**
 * Each ask's place in its plan (-1 where no place tried accepts the call), with the rollouts spent: the places are
 * tried in turn, one round a place, each ask until one accepts (the first place is the usual answer: one replay).
 */
export async function placeRouteCalls(
  asks: readonly RouteAsk[],
  book: ReadonlySet<string>,
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<{ places: number[]; rollouts: number }> {
  const tries = asks.map((a, k): Try[] => {
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
  const places = asks.map(() => -1);
  let rollouts = 0;
  const counted = (requests: RolloutRequest[]) => {
    rollouts += requests.length;
    return run(requests);
  };
  for (let n = 0; n < ROUTE_PLACES; n++) {
    const round = tries.flatMap((t, k) => {
      const next = t[n];
      return places[k] === -1 && next ? [next] : [];
    });
    if (round.length === 0) break;
    const accepted = await acceptedAt(round, book, counted);
    round.forEach((t, j) => {
      if (accepted[j]) places[t.k] = t.at;
    });
  }
  return { places, rollouts };
}

/**
 * Whether the world accepts each try's call, by effect: played, not refused, changing the state; where it changes
 * only bookkeeping (a refusal an event log keeps too), where the world remembers it (neutral.ts).
 */
async function acceptedAt(
  round: readonly Try[],
  book: ReadonlySet<string>,
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<boolean[]> {
  const runs = await run(round.map((t) => replayOf(t.ref, t.actions, { changes: true })));
  const played = round.map((t, j) => {
    const r = runs[j];
    return r?.ok === true && changedAt(r, t.at) ? r : undefined;
  });
  const hidden = round.flatMap((t, j) => (onlyBookkeeping(played[j]?.changes?.[t.at], book) ? [j] : []));
  const remembered = await recordedBeyondNeutral(
    hidden.map((j) => ({ ...(round[j] as Try), added: true })),
    run,
  );
  const forgotten = new Set(hidden.filter((_, h) => !remembered[h]));
  return round.map((_, j) => played[j] !== undefined && !forgotten.has(j));
}
