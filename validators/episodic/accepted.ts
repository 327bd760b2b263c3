// When the world accepted a call the reference never made (redteam-trust17 R2, R3): by what it then does with the
// entity (the call repeated and the entity's reads, answered otherwise right after the call than right after the
// neutral call), with the call's own trace (neutral.ts acceptedByTrace: like an accepted call's) as a second witness;
// refused only where both say so, whatever paths the call changed or a later summary counts (redteam-trust16 Q6).
import type { RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from './adversaries.js';
import { acceptedByTrace, NO_SUCH, neutralOf, type NeutralProbe, traceRequests, tracesOf } from './neutral.js';
import { maskText } from './traces.js';

/** An added call to judge, with the reads of its entity (what the world then shows of it). */
export interface AddedCall extends NeutralProbe {
  reads: readonly Action[];
}

/** The calls that ask the world about the entity after an added call: the call again, then the entity's reads. */
const askedAfter = (p: AddedCall): Action[] => [p.actions[p.at] as Action, ...p.reads];

/** The two replays of the entity's later answers: after the call, and after the neutral call in its place. */
export function answerRequests(p: AddedCall): RolloutRequest[] {
  const call = p.actions[p.at] as Action;
  return [call, neutralOf(call)].map((first) => ({
    seed: p.ref.seed,
    level: p.ref.level,
    policy: { type: 'replay', actions: [...p.actions.slice(0, p.at), first, ...askedAfter(p)] },
    observations: true,
  }));
}

/**
 * Whether the world answers the entity otherwise after the call than after the neutral call ("already booked" here,
 * booked there): the replies to the repeat and the reads, masked (the call's values, the neutral id, numbers).
 */
export function answeredOtherwise(p: AddedCall, asIs?: RolloutResult, neutral?: RolloutResult): boolean {
  if (asIs?.ok !== true || neutral?.ok !== true) return false;
  const call = p.actions[p.at] as Action;
  const answers = (r: typeof asIs) =>
    askedAfter(p).map((_, j) => maskText(r.observations?.[p.at + 1 + j] ?? '', call, [NO_SUCH]));
  return answers(asIs).some((a, j) => a !== answers(neutral)[j]);
}

/**
 * Runs the witnesses and answers, for each added call, whether the world accepted it: the entity's later answers
 * first (two replays), then, where those read alike, the call's trace (traces.ts: three replays and two an accepted
 * call).
 */
export async function acceptedAdded(
  calls: readonly AddedCall[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<boolean[]> {
  if (calls.length === 0) return [];
  const answers = await run(calls.flatMap(answerRequests));
  const remembered = calls.map((p, k) => answeredOtherwise(p, answers[2 * k], answers[2 * k + 1]));
  const rest = calls.flatMap((_, k) => (remembered[k] ? [] : [k]));
  const requests = rest.map((k) => traceRequests({ ...(calls[k] as AddedCall), added: true }));
  const out = requests.length > 0 ? await run(requests.flat()) : [];
  const traced = new Map<number, boolean>();
  let from = 0;
  rest.forEach((k, j) => {
    const n = (requests[j] as RolloutRequest[]).length;
    const t = tracesOf({ ...(calls[k] as AddedCall), added: true }, out.slice(from, from + n));
    from += n;
    traced.set(k, t.call !== undefined && t.neutral !== undefined && acceptedByTrace(t.call, t.neutral, t.accepted));
  });
  return calls.map((_, k) => remembered[k] === true || traced.get(k) === true);
}
