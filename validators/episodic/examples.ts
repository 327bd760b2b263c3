// The reference's accepted examples of a tool, by effect (redteam-trust17-trace b): its changing calls grouped into
// kinds by their masked reply and changed paths; a kind is an example only where a call of it was accepted by effect
// (the entity answered otherwise after it than after the neutral call: accepted.ts, or the reference with it made
// neutral scoring less), and where effect admits kinds on both sides of the neutral call, the kind unlike it, so a
// refusal a roster needs is never read as what an accepted call leaves; with no evidence, the calls at the ends.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from './adversaries.js';
import { answeredOtherwise, answerRequests, type AddedCall } from './accepted.js';
import { type LoggedCall, NO_SUCH, neutralRequests, shownRefused, traceRequests, tracesOf } from './neutral.js';
import { maskText } from './traces.js';

/** The most kinds of a tool's calls tried by effect, from the ends of the plan inwards. */
export const EXAMPLE_KINDS = 3;

/** A tool's calls in one reference log, whose accepted examples are sought. */
export interface ExampleAsk {
  ref: Rollout;
  actions: readonly Action[];
  /** The reference's log replayed with its changes. */
  replay: RolloutResult | undefined;
  tool: string;
  /** The reads of a call's entity: what the world then shows of it. */
  readsOf: (call: Action) => Action[];
}

/** The calls of `tool` the world took in (its step changed the state, the host did not refuse it), in plan order. */
export function changingCalls(actions: readonly Action[], r: RolloutResult | undefined, tool: string): number[] {
  if (r?.ok !== true) return [];
  return actions.flatMap((a, j) =>
    a.tool === tool && (r.changes?.[j] ?? []).length > 0 && !r.rejected.includes(j + 1) ? [j] : [],
  );
}

/** The first and the last of some calls of a log, as examples. */
export const endsOf = (actions: readonly Action[], at: readonly number[]): LoggedCall[] =>
  [...new Set([at[0], at.at(-1)])].flatMap((j) => (j === undefined ? [] : [{ actions, at: j }]));

/** Indices from the ends inwards: first, last, second, second to last... */
const fromTheEnds = (at: readonly number[]): number[] =>
  at.flatMap((_, k) => (k % 2 === 0 ? [at[k / 2] as number] : [at[at.length - 1 - (k - 1) / 2] as number]));

/** The changing calls grouped by kind (the reply masked, the paths changed), each kind and its calls from the ends. */
export function kindsOf(ask: ExampleAsk): number[][] {
  const r = ask.replay as Rollout;
  const reply = (j: number) => maskText(ask.ref.observations?.[j] ?? '', ask.actions[j] as Action, [NO_SUCH]);
  const key = (j: number) => `${reply(j)}|${[...(r.changes?.[j] ?? [])].sort().join(',')}`;
  const kinds = new Map<string, number[]>();
  for (const j of fromTheEnds(changingCalls(ask.actions, ask.replay, ask.tool)))
    kinds.set(key(j), [...(kinds.get(key(j)) ?? []), j]);
  return [...kinds.values()];
}

/** A kind's call tried by effect: the one nearest an end of the plan. */
const probeOf = (ask: ExampleAsk, kind: readonly number[]): AddedCall => {
  const at = kind[0] as number;
  return { ref: ask.ref, actions: ask.actions, at, reads: ask.readsOf(ask.actions[at] as Action) };
};

/** Whether the world took a call by effect: the log with it neutral scores less, or its entity answered otherwise. */
const takenByEffect = (p: AddedCall, [neutral, asIs, after]: readonly (RolloutResult | undefined)[]) =>
  (neutral?.ok === true && neutral.score < p.ref.score - 1e-9) || answeredOtherwise(p, asIs, after);

/** One kind's call tried, with the outcomes of its requests. */
interface Played {
  probe: AddedCall;
  out: RolloutResult[];
}

/**
 * For each ask with two kinds or more, each kind's call (`probeOf`) played by `requestsOf` (a fixed number of requests
 * a call), every ask's in one run; an ask with fewer kinds plays nothing.
 */
async function playKinds(
  asks: readonly ExampleAsk[],
  kinds: readonly (readonly (readonly number[])[])[],
  requestsOf: (p: AddedCall) => RolloutRequest[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<Played[][]> {
  const probes = asks.map((a, i) => ((kinds[i] ?? []).length > 1 ? (kinds[i] ?? []).map((k) => probeOf(a, k)) : []));
  const requests = probes.map((ps) => ps.map(requestsOf));
  const all = requests.flat(2);
  const out = all.length > 0 ? await run(all) : [];
  let from = 0;
  return probes.map((ps, i) =>
    ps.map((probe, k) => {
      const n = (requests[i]?.[k] ?? []).length;
      from += n;
      return { probe, out: out.slice(from - n, from) };
    }),
  );
}

/** Of some kinds (at least two), those whose call lies on the other side of the neutral call's refusal, if any. */
async function apartFromNeutral(
  asks: readonly ExampleAsk[],
  kinds: readonly (readonly number[][])[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<number[][][]> {
  const played = await playKinds(asks, kinds, (p) => traceRequests(p), run);
  return kinds.map((mine, i) => {
    if (mine.length < 2) return [...mine];
    const apart = mine.filter((_, k) => {
      const { probe, out } = played[i]?.[k] as Played;
      const t = tracesOf(probe, out);
      return t.call !== undefined && t.neutral !== undefined && shownRefused(t.neutral, [t.call]);
    });
    return apart.length > 0 ? apart : [...mine];
  });
}

/**
 * The reference's accepted calls of a tool as examples, the first and the last of those kept: where one
 * kind of call is all there is (the usual case, no replay), every call; else the kinds whose call was accepted by
 * effect (three replays each), those unlike the neutral call where effect admits both sides (three more each); where
 * effect admits none, every call, as the traces alone would.
 */
async function examplesOf(
  asks: readonly ExampleAsk[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<LoggedCall[][]> {
  const kinds = asks.map((a) => kindsOf(a).slice(0, EXAMPLE_KINDS));
  const played = await playKinds(
    asks,
    kinds,
    (p) => [neutralRequests(p)[1] as RolloutRequest, ...answerRequests(p)],
    run,
  );
  const admitted = kinds.map((mine, i) =>
    mine.length < 2
      ? []
      : mine.filter((_, k) => {
          const { probe, out } = played[i]?.[k] as Played;
          return takenByEffect(probe, out);
        }),
  );
  const kept = await apartFromNeutral(asks, admitted, run);
  return asks.map((a, i) => {
    const chosen = (kept[i] ?? []).length > 0 ? (kept[i] ?? []).flat() : changingCalls(a.actions, a.replay, a.tool);
    return endsOf(
      a.actions,
      [...chosen].sort((x, y) => x - y),
    );
  });
}

/** For each ask, the examples of its tool in its reference log: each log and tool answered once. */
export async function examplesByEffect(
  asks: readonly ExampleAsk[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<LoggedCall[][]> {
  const first = asks.map((a) => asks.findIndex((b) => b.actions === a.actions && b.tool === a.tool));
  const unique = asks.filter((_, i) => first[i] === i);
  const found = await examplesOf(unique, run);
  return asks.map((_, i) => found[unique.indexOf(asks[first[i] as number] as ExampleAsk)] ?? []);
}
