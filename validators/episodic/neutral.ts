// What a call records beyond bookkeeping, judged against a neutral call (redteam-trust14 Y1): bookkeeping is what
// any call changes (a turn counter, an audit line, a refused attempt logged), so a call records a decision where the
// final state differs, by value (inside arrays that grow too), from the same log with that call replaced by one the
// world refuses: the same tool with every string argument an id nothing has.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from './adversaries.js';

/** The id a neutral call names: one no world draws, so the call is refused (and logged as refusals are). */
export const NO_SUCH = 'ZZ-00000';

/** The call the world refuses at the same point: the same tool, every string argument the id nothing has. */
export function neutralOf(call: Action): Action {
  const args = Object.fromEntries(Object.entries(call.args).map(([k, v]) => [k, typeof v === 'string' ? NO_SUCH : v]));
  return { tool: call.tool, args };
}

/**
 * A state as a text where the call's own string arguments, the neutral id and free text (a string with a space: a
 * reply, a reason) read alike: what a refused call's log entry and an accepted one's share is then equal.
 */
export function maskedState(state: unknown, call: Action): string {
  const tokens = new Set(
    [NO_SUCH, ...Object.values(call.args).filter((v): v is string => typeof v === 'string')].map((t) =>
      t.trim().toLowerCase(),
    ),
  );
  return JSON.stringify(state ?? null, (_, v: unknown) =>
    typeof v === 'string' && (tokens.has(v.trim().toLowerCase()) || /\s/.test(v.trim())) ? '·' : v,
  );
}

/** One question: does `actions[at]` record anything a refused call at the same point does not? */
export interface NeutralProbe {
  ref: Rollout;
  actions: readonly Action[];
  at: number;
}

/** The two replays that answer a probe: the log as it is and with the call made neutral, each with its final state. */
export function neutralRequests(p: NeutralProbe): RolloutRequest[] {
  const replay = (actions: readonly Action[]): RolloutRequest => ({
    seed: p.ref.seed,
    level: p.ref.level,
    policy: { type: 'replay', actions: [...actions] },
    keepState: true,
  });
  const neutral = p.actions.map((a, i) => (i === p.at ? neutralOf(a) : a));
  return [replay(p.actions), replay(neutral)];
}

/** Whether the log's final state differs by value from the neutral log's: the call recorded a decision. */
export function recordsBeyondNeutral(
  p: NeutralProbe,
  asIs: RolloutResult | undefined,
  neutral: RolloutResult | undefined,
) {
  if (asIs?.ok !== true || neutral?.ok !== true) return false;
  const call = p.actions[p.at] as Action;
  return maskedState(asIs.state, call) !== maskedState(neutral.state, call);
}

/** Runs the probes (two replays each) and answers each: does its call record a decision beyond bookkeeping? */
export async function recordedBeyondNeutral(
  probes: readonly NeutralProbe[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<boolean[]> {
  if (probes.length === 0) return [];
  const out = await run(probes.flatMap(neutralRequests));
  return probes.map((p, k) => recordsBeyondNeutral(p, out[2 * k], out[2 * k + 1]));
}

/** An accepted call whose changes are all bookkeeping paths: the candidates a neutral call must still judge. */
export const onlyBookkeeping = (changes: readonly string[] | undefined, book: ReadonlySet<string>) =>
  (changes ?? []).length > 0 && (changes ?? []).every((p) => book.has(p));
