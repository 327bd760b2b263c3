// What a call records beyond bookkeeping, judged against a neutral call (redteam-trust14 Y1): bookkeeping is what
// any call changes (a turn counter, an audit line, a refused attempt logged), so a call records a decision where the
// final state differs, by value (inside arrays that grow too), from the same log with that call replaced by one the
// world refuses: the same tool with every string argument an id nothing has. A call the reference never made (an
// added forbidden call) may itself be refused, and a refusal may write its cause: it is recorded only where the world
// remembers it (redteam-trust15 Z1-Z3): the call repeated, or the rest of the log, is answered otherwise than after
// the neutral call, or the score moves.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from './adversaries.js';

/** The id a neutral call names: one no world draws, so the call is refused (and logged as refusals are). */
export const NO_SUCH = 'ZZ-00000';

/** The call the world refuses at the same point: the same tool, every string argument the id nothing has. */
export function neutralOf(call: Action): Action {
  const args = Object.fromEntries(Object.entries(call.args).map(([k, v]) => [k, typeof v === 'string' ? NO_SUCH : v]));
  return { tool: call.tool, args };
}

const escaped = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A state as a text where the call's own argument values and the neutral id read alike wherever they stand, inside a
 * longer string too ("G123 booked" and "ZZ-00000 booked"); nothing else is masked, so a line of words that records a
 * booking still differs from a refusal's line (redteam-trust15 Z1).
 */
export function maskedState(state: unknown, call: Action): string {
  const tokens = [NO_SUCH, ...Object.values(call.args).flatMap((v) => (typeof v === 'string' ? [v.trim()] : []))]
    .filter((t) => t.length > 0)
    .sort((a, b) => b.length - a.length);
  const mask = new RegExp(tokens.map(escaped).join('|'), 'gi');
  return JSON.stringify(state ?? null, (_, v: unknown) => (typeof v === 'string' ? v.replace(mask, '·') : v));
}

/** One question: does `actions[at]` record anything a refused call at the same point does not? */
export interface NeutralProbe {
  ref: Rollout;
  actions: readonly Action[];
  at: number;
  /** A call the reference never made: the world may refuse it and log why, so only what the world remembers counts. */
  added?: boolean;
  /** The call as sent right after a reply (a ticket each reply restates: restated.ts); as it is where absent. */
  respell?: (call: Action, reply: string) => Action;
}

const replayOf = (p: NeutralProbe, actions: readonly Action[]): RolloutRequest => ({
  seed: p.ref.seed,
  level: p.ref.level,
  policy: { type: 'replay', actions: [...actions] },
  keepState: true,
  observations: true,
});

/** The two replays that answer a probe: the log as it is and with the call made neutral, with states and replies. */
export function neutralRequests(p: NeutralProbe): RolloutRequest[] {
  return [p.actions, p.actions.map((a, i) => (i === p.at ? neutralOf(a) : a))].map((actions) => replayOf(p, actions));
}

/**
 * The two replays that ask an added call's world whether it remembers the call: the call repeated right after itself
 * and right after the neutral call, each time as sent after the reply before it (`asIs`, `neutral`: the replays of
 * `neutralRequests`).
 */
export function repeatRequests(p: NeutralProbe, asIs?: RolloutResult, neutral?: RolloutResult): RolloutRequest[] {
  const call = p.actions[p.at] as Action;
  const [before, after] = [p.actions.slice(0, p.at), p.actions.slice(p.at + 1)];
  const again = (r?: RolloutResult) => {
    const reply = r?.ok === true ? r.observations?.[p.at] : undefined;
    return p.respell && reply !== undefined ? p.respell(call, reply) : call;
  };
  return [
    [...before, call, again(asIs), ...after],
    [...before, neutralOf(call), again(neutral), ...after],
  ].map((actions) => replayOf(p, actions));
}

/** Whether two replays of logs alike up to turn `from` (from 0) part there: a reply from it on, or the score. */
export function answeredOtherwise(a: RolloutResult | undefined, b: RolloutResult | undefined, from: number) {
  if (a?.ok !== true || b?.ok !== true) return false;
  const [x, y] = [a.observations ?? [], b.observations ?? []];
  return Math.abs(a.score - b.score) > 1e-9 || JSON.stringify(x.slice(from)) !== JSON.stringify(y.slice(from));
}

/**
 * Whether the call recorded a decision: a call of the reference where the log's final state differs by value from
 * the neutral log's; an added call where the world remembers it: the rest of the log or the call repeated is answered
 * otherwise after it than after the neutral call, or the score moves (its log entry, a cause of refusal included, is
 * what it writes, not what the world acts on: redteam-trust15 Z3; and a neutral call the world accepts, Z2, still
 * leaves the repeated call on the real entity its answer).
 */
export function recordsBeyondNeutral(p: NeutralProbe, ...replays: (RolloutResult | undefined)[]) {
  const [asIs, neutral, repeated, afterNeutral] = replays;
  if (asIs?.ok !== true || neutral?.ok !== true) return false;
  if (p.added) return answeredOtherwise(asIs, neutral, p.at + 1) || answeredOtherwise(repeated, afterNeutral, p.at + 1);
  const call = p.actions[p.at] as Action;
  return maskedState(asIs.state, call) !== maskedState(neutral.state, call);
}

/**
 * Runs the probes and answers each: does its call record a decision? Two replays each, and for an added call the rest
 * of its log does not already tell apart, two more: the repeats.
 */
export async function recordedBeyondNeutral(
  probes: readonly NeutralProbe[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<boolean[]> {
  if (probes.length === 0) return [];
  const first = await run(probes.flatMap(neutralRequests));
  const pair = (k: number) => [first[2 * k], first[2 * k + 1]] as const;
  const asked = probes.flatMap((p, k) => {
    const [asIs, neutral] = pair(k);
    return p.added && asIs?.ok === true && neutral?.ok === true && !answeredOtherwise(asIs, neutral, p.at + 1)
      ? [k]
      : [];
  });
  const repeats =
    asked.length > 0 ? await run(asked.flatMap((k) => repeatRequests(probes[k] as NeutralProbe, ...pair(k)))) : [];
  const again = new Map(asked.map((k, j) => [k, [repeats[2 * j], repeats[2 * j + 1]]]));
  return probes.map((p, k) => recordsBeyondNeutral(p, ...pair(k), ...(again.get(k) ?? [])));
}

/** An accepted call whose changes are all bookkeeping paths: the candidates a neutral call must still judge. */
export const onlyBookkeeping = (changes: readonly string[] | undefined, book: ReadonlySet<string>) =>
  (changes ?? []).length > 0 && (changes ?? []).every((p) => book.has(p));
