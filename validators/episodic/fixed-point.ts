// A probe's own history is state (redteam-trust7 I2/I3): a call sent again in a row is sent until it reaches a fixed
// point — its last send left the reply and the state its previous send did, so (step being a function of the state
// and the call) every further send would too — or a bound, instead of a fixed number of times.
import type { RolloutRequest, RolloutResult, Rollout } from '../../sandbox/rollouts.js';
import { subScreen, type Screen } from './near-miss.js';

/** A stretch of a log: the same call sent `length` times from `start`. */
export type Run = readonly [start: number, length: number];

/** Each maximal stretch of `log` sending the same call two times or more in a row. */
export function repeatedRuns(log: readonly unknown[]): Run[] {
  const runs: Run[] = [];
  const keys = log.map((a) => JSON.stringify(a));
  for (let i = 0; i < keys.length; ) {
    let j = i + 1;
    while (j < keys.length && keys[j] === keys[i]) j++;
    if (j - i >= 2) runs.push([i, j - i]);
    i = j;
  }
  return runs;
}

/**
 * Whether run `run` of a rollout (played with observations and hashes) is still moving: its last two sends left
 * different replies or states. A run the episode did not reach to its end is settled (nothing more to learn there).
 */
export function moving(outcome: RolloutResult | undefined, [start, length]: Run): boolean {
  if (!outcome?.ok || !outcome.hashes || length < 2) return false;
  const last = start + length - 1;
  const replies = outcome.observations ?? [];
  const after = outcome.hashes[last + 1];
  if (last >= replies.length || after === undefined) return false;
  return after !== outcome.hashes[last] || replies[last] !== replies[last - 1];
}

/** `log` with each stretch of the same call sent twice or more sent `times` times instead. */
export function stretched<A>(log: readonly A[], times: number): A[] {
  const runs = new Map(repeatedRuns(log).map(([s, n]) => [s, n]));
  const out: A[] = [];
  for (let i = 0; i < log.length; i++) {
    const n = runs.get(i);
    if (n === undefined) out.push(log[i] as A);
    else out.push(...Array.from({ length: times }, () => log[i] as A)), (i += n - 1);
  }
  return out;
}

/** How a probe is escalated: its request at a number of sends (null: none fits), and whether that outcome moves. */
export interface Escalation<P> {
  /** The number of sends the probes were first played with, and the most any is sent. */
  from: number;
  bound: number;
  play: (probe: P, times: number) => RolloutRequest | null;
  moves: (probe: P, times: number, outcome: RolloutResult | undefined) => boolean;
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>;
}

/**
 * The probes still moving at `from` sends played again with the sends doubled (one batch a round) while any still
 * moves, up to `bound`: each outcome with the number of sends it was played with.
 */
export async function touchUntilFixed<P>(
  pending: readonly P[],
  e: Escalation<P>,
): Promise<Array<{ probe: P; times: number; outcome: Rollout }>> {
  const out: Array<{ probe: P; times: number; outcome: Rollout }> = [];
  let left = [...pending];
  for (let times = e.from; left.length > 0 && times < e.bound; ) {
    times = Math.min(e.bound, times * 2);
    const t = times;
    const played = left.flatMap((probe) => {
      const request = e.play(probe, t);
      return request ? [{ probe, request }] : [];
    });
    const outcomes = await e.run(played.map((p) => p.request));
    left = [];
    played.forEach(({ probe }, k) => {
      const outcome = outcomes[k];
      if (!outcome?.ok) return;
      out.push({ probe, times: t, outcome });
      if (e.moves(probe, t, outcome)) left.push(probe);
    });
  }
  return out;
}

/** The near misses of `screen` that `moves` picks, in parts of at most `room` calls with the controls they need. */
export function movingParts(screen: Screen, room: number, moves: (i: number) => boolean): Screen[] {
  const parts: Screen[] = [];
  let group: number[] = [];
  const part = (extra?: number) => subScreen(screen, (j) => group.includes(j) || j === extra);
  screen.kinds.forEach((kind, i) => {
    if (kind === null || !moves(i)) return;
    if (group.length > 0 && part(i).log.length > room) parts.push(part()), (group = []);
    group.push(i);
  });
  if (group.length > 0) parts.push(part());
  return parts;
}
