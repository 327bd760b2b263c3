// Time as a dimension of every probe (redteam-trust4 F1, F2; redteam-trust5 G1): a log padded with neutral calls —
// the listings and the reference's calls of tools whose ablation keeps its score — before its finishing call, to the
// turn limit; and the states the reference reaches with decisions left undone (ablation ∘ cut), padded in turn.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, keyOf, type Action } from './adversaries.js';

/**
 * The neutral calls of reference `r`: each no-argument tool other than the finishing one (a listing), then each
 * distinct call of the reference to a tool that does not decide its score (`decides(tool)` false: its ablation
 * keeps the score), at most `cap`. A tool that decides the score is never neutral, a listing included.
 */
export function neutralCalls(meta: EpisodicMeta, r: Rollout, decides: (tool: string) => boolean, cap = 6): Action[] {
  const acts = actionsOf(r);
  const finish = acts.at(-1)?.tool;
  const listings = meta.tools
    .filter((t) => t.name !== finish && Object.keys(t.parameters.properties ?? {}).length === 0)
    .map((t) => ({ tool: t.name, args: {} }));
  const reads = acts.slice(0, -1);
  const calls = new Map<string, Action>();
  for (const a of [...listings, ...reads])
    if (a.tool !== finish && !decides(a.tool) && !calls.has(keyOf(a))) calls.set(keyOf(a), a);
  return [...calls.values()].slice(0, cap);
}

/**
 * `log` (its last call the finish) with the neutral calls inserted in turn before the finish until it holds
 * `maxTurns - 1` calls; null where there is nothing to insert or no room.
 */
export function padded(log: readonly Action[], neutral: readonly Action[], maxTurns: number): Action[] | null {
  const room = maxTurns - 1 - log.length;
  if (neutral.length === 0 || room < 1 || log.length === 0) return null;
  const fill = Array.from({ length: room }, (_, i) => neutral[i % neutral.length] as Action);
  return [...log.slice(0, -1), ...fill, log.at(-1) as Action];
}

/** A state the reference's non-final calls reach, as a log then the finish: what reaches it and the tool it ablates. */
export interface Reached {
  how: string;
  tool: string;
  actions: Action[];
}

/**
 * The states the reference's calls reach with decisions left undone (ablation ∘ cut, redteam-trust5 G1), each a
 * log then the finish, for each deciding tool (`deciding`, the one called last first: the decision before the
 * reads it relies on): every call of the tool removed (all the reads, no decision), only its first `j` calls kept
 * (a partly decided plan), and the plan cut before its `k`-th call with every call of it removed (`k` entities
 * read, none decided); `j` and `k` the extremes first. At most `cap` distinct logs, none the finish alone.
 */
export function reachedStates(log: readonly Action[], deciding: readonly string[], cap: number): Reached[] {
  const body = log.slice(0, -1);
  const finish = log.at(-1) as Action;
  const last = (t: string) => body.findLastIndex((a) => a.tool === t);
  const out = new Map<string, Reached>();
  for (const tool of [...deciding].sort((x, y) => last(y) - last(x))) {
    const at = body.flatMap((a, i) => (a.tool === tool ? [i] : []));
    const m = at.length;
    if (m === 0) continue;
    const inner = [...new Set([m - 1, 1, Math.ceil(m / 2)])].filter((j) => j >= 1 && j < m);
    const keep = (j: number, upTo: number) => body.filter((a, i) => i < upTo && (a.tool !== tool || at.indexOf(i) < j));
    const made: Array<[string, Action[]]> = [
      [`every ${tool} call removed`, keep(0, body.length)],
      ...inner.flatMap(
        (j): Array<[string, Action[]]> => [
          [`only the first ${j} of ${m} ${tool} calls kept`, keep(j, body.length)],
          [`cut before ${tool} call ${j + 1} of ${m}, every ${tool} call removed`, keep(0, at[j] as number)],
        ],
      ),
    ];
    for (const [how, calls] of made) {
      const key = calls.map(keyOf).join('\n');
      if (calls.length > 0 && !out.has(key)) out.set(key, { how, tool, actions: [...calls, finish] });
    }
  }
  return [...out.values()].slice(0, cap);
}
