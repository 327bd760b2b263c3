// Time as a dimension of every probe (redteam-trust4 F1, F2): a log padded with neutral calls — the listings and
// the reference's calls of tools whose ablation keeps its score — before its finishing call, to the turn limit.
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
