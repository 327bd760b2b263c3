// What a call records beyond bookkeeping (redteam-trust14 Y1): a call of the reference records a decision where the
// final state differs, by value, from the same log with the call replaced by one the world refuses (every string
// argument an id nothing has), trusted only where shown refused, its own trace unlike the call's (redteam-trust16 Q4);
// a call the reference never made is accepted or refused by its own trace (traces.ts) beside the reference's accepted
// calls of the tool and the neutral call's refusal, never by the world's later answers (redteam-trust16 Q1, Q6).
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from './adversaries.js';
import { maskValues, sentOf, sentPattern } from './sent-mask.js';
import { LIKE, likeness, partOf, traceOf } from './traces.js';

/** The id a neutral call names: one no world draws, so the call is refused (and logged as refusals are). */
export const NO_SUCH = 'ZZ-00000';

/** The call the world refuses at the same point: the same tool, every string argument the id nothing has. */
export function neutralOf(call: Action): Action {
  const args = Object.fromEntries(Object.entries(call.args).map(([k, v]) => [k, typeof v === 'string' ? NO_SUCH : v]));
  return { tool: call.tool, args };
}

/**
 * A state as a text where the call's own argument values and the neutral id read alike wherever they stand as words,
 * inside a longer string too ("G123 booked" and "ZZ-00000 booked"); nothing else is masked, so a line of words that
 * records a booking still differs from a refusal's line (redteam-trust15 Z1). With `own`, the neutral id stays as is.
 */
export function maskedState(state: unknown, call: Action, own = false): string {
  const sent = sentPattern([...(own ? [] : [NO_SUCH]), ...sentOf(call.args)]);
  return JSON.stringify(state ?? null, (_, v: unknown) => (typeof v === 'string' ? maskValues(v, sent) : v));
}

/** A call of a log, by its index. */
export interface LoggedCall {
  actions: readonly Action[];
  at: number;
}

/** One question: does `actions[at]` record anything a refused call at the same point does not? */
export interface NeutralProbe extends LoggedCall {
  ref: Rollout;
  /** A call the reference never made: the world may refuse it and log why, so its own trace decides. */
  added?: boolean;
  /** The reference's accepted calls of the added call's tool, whose traces show what an accepted call leaves. */
  accepted?: readonly LoggedCall[];
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
 * The replays that give a probe's traces, each a log up to a call and up to the turn before it: the call, the neutral
 * call in its place, and each accepted call of the reference (for an added call).
 */
export function traceRequests(p: NeutralProbe): RolloutRequest[] {
  const before = p.actions.slice(0, p.at);
  const own = [before, p.actions.slice(0, p.at + 1), [...before, neutralOf(p.actions[p.at] as Action)]];
  const theirs = (p.added ? (p.accepted ?? []) : []).flatMap((c) => [
    c.actions.slice(0, c.at),
    c.actions.slice(0, c.at + 1),
  ]);
  return [...own, ...theirs].map((actions) => replayOf(p, actions));
}

/** The traces of a probe from its `traceRequests` replays: the call's, the neutral call's, the accepted calls'. */
export function tracesOf(p: NeutralProbe, replays: readonly (RolloutResult | undefined)[]) {
  const trace = (b: RolloutResult | undefined, a: RolloutResult | undefined, c: LoggedCall) =>
    b?.ok === true && a?.ok === true
      ? traceOf(b.state, a.state, a.observations?.[c.at], c.actions[c.at] as Action, [NO_SUCH])
      : undefined;
  const neutralLog = { actions: [...p.actions.slice(0, p.at), neutralOf(p.actions[p.at] as Action)], at: p.at };
  const accepted = (p.added ? (p.accepted ?? []) : []).flatMap((c, j) => {
    const t = trace(replays[3 + 2 * j], replays[4 + 2 * j], c);
    return t ? [t] : [];
  });
  return { call: trace(replays[0], replays[1], p), neutral: trace(replays[0], replays[2], neutralLog), accepted };
}

type Trace = ReadonlySet<string>;

/** Whether the neutral call is shown refused: its trace unlike every accepted call's. */
export const shownRefused = (neutral: Trace, accepted: readonly Trace[]) =>
  accepted.every((a) => likeness(neutral, a) < LIKE);

/**
 * How one part of the traces (the state's or the reply's) reads an added call: accepted where it is like an accepted
 * call's (as two calls of one kind: an audited refusal shares a few leaves with a booking, redteam-trust17 R3) and more
 * like it than the neutral call's refusal, refused where less like it than the refusal; undefined where that part
 * cannot tell (the refusal's part like an accepted call's, or the call's part like neither).
 */
function readBy(call: Trace, neutral: Trace, accepted: readonly Trace[]): boolean | undefined {
  if (!shownRefused(neutral, accepted)) return undefined;
  const like = Math.max(...accepted.map((a) => likeness(call, a)));
  const unlike = likeness(call, neutral);
  return like < unlike ? false : like > unlike && like >= LIKE ? true : undefined;
}

/**
 * Whether an added call was accepted, by its own trace beside the reference's accepted calls of its tool and the
 * neutral call's refusal: by what its step wrote where the state tells the two apart (the world's record: a reply in
 * the refusal's words does not undo a booking written as the accepted ones are, redteam-trust17-trace), else by its
 * reply; where neither part tells, the whole trace: like an accepted call's and more like it than the refusal (or,
 * where the world takes the neutral call too, like the accepted ones at all). With no accepted call, unlike the
 * refusal.
 */
export function acceptedByTrace(call: Trace, neutral: Trace, accepted: readonly Trace[]): boolean {
  if (accepted.length === 0) return likeness(call, neutral) < LIKE;
  for (const reply of [false, true]) {
    const read = readBy(
      partOf(call, reply),
      partOf(neutral, reply),
      accepted.map((a) => partOf(a, reply)),
    );
    if (read !== undefined) return read;
  }
  const like = Math.max(...accepted.map((a) => likeness(call, a)));
  return like >= LIKE && (!shownRefused(neutral, accepted) || like > likeness(call, neutral));
}

/**
 * Whether a call of the reference recorded a decision: the final state of its log differs by value from the neutral
 * log's, the call's values and the neutral id masked; where the neutral call is not shown refused (`refused` false),
 * the neutral id left as it is, so only what the world keeps of the real entity reads alike.
 */
export function recordsBeyondNeutral(p: NeutralProbe, asIs?: RolloutResult, neutral?: RolloutResult, refused = true) {
  if (asIs?.ok !== true || neutral?.ok !== true) return false;
  const call = p.actions[p.at] as Action;
  return maskedState(asIs.state, call, !refused) !== maskedState(neutral.state, call, !refused);
}

/**
 * Runs the probes and answers each: does its call record a decision? An added call by its trace (three replays and two
 * an accepted call); a call of the reference by its log's final state against the neutral log's (two), and where
 * those read alike, by whether the neutral call is shown refused (three more).
 */
export async function recordedBeyondNeutral(
  probes: readonly NeutralProbe[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<boolean[]> {
  if (probes.length === 0) return [];
  const own = probes.flatMap((p, k) => (p.added ? [] : [k]));
  const first = own.length > 0 ? await run(own.flatMap((k) => neutralRequests(probes[k] as NeutralProbe))) : [];
  const pair = (k: number) => [first[2 * own.indexOf(k)], first[2 * own.indexOf(k) + 1]] as const;
  const traced = probes.flatMap((p, k) => (p.added || !recordsBeyondNeutral(p, ...pair(k)) ? [k] : []));
  const requests = traced.map((k) => traceRequests(probes[k] as NeutralProbe));
  const out = requests.length > 0 ? await run(requests.flat()) : [];
  const traces = new Map(
    traced.map((k, j) => {
      const from = requests.slice(0, j).reduce((n, r) => n + r.length, 0);
      return [k, tracesOf(probes[k] as NeutralProbe, out.slice(from, from + (requests[j] as RolloutRequest[]).length))];
    }),
  );
  return probes.map((p, k) => {
    const t = traces.get(k);
    if (!p.added) {
      if (!t) return true;
      if (t.call === undefined || t.neutral === undefined) return false;
      return !shownRefused(t.neutral, [t.call]) && recordsBeyondNeutral(p, ...pair(k), false);
    }
    return t?.call !== undefined && t.neutral !== undefined && acceptedByTrace(t.call, t.neutral, t.accepted);
  });
}

/** An accepted call whose changes are all bookkeeping paths: the candidates a neutral call must still judge. */
export const onlyBookkeeping = (changes: readonly string[] | undefined, book: ReadonlySet<string>) =>
  (changes ?? []).length > 0 && (changes ?? []).every((p) => book.has(p));
