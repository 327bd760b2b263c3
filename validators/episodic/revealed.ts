// An ablation may not keep what only the removed step revealed (redteam-s18e E2): a log whose calls send a value the
// world issued (a random ticket id first seen in a reply) before any reply of that log showed it is no policy's, so
// its score is no evidence about the step it removed or moved.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, asAction } from './adversaries.js';
import { givenText, issuesOf, wholeIn } from './issued.js';

const sent = (r: Rollout) =>
  actionsOf(r).flatMap((a) => Object.values(a.args).filter((v): v is string => typeof v === 'string'));

/**
 * The values reference `ref` sends that a reply issued (issued.ts: first seen in an observation, written nowhere the
 * episode was given), less those another reference episode sends too (a fixed name a policy may know without a reply).
 */
export function issuedValues(meta: EpisodicMeta, ref: Rollout, refs: readonly Rollout[]): Set<string> {
  if (!ref.observations) return new Set();
  const issues = issuesOf(actionsOf(ref), ref.observations, givenText(meta, ref.prompt ?? ''));
  const other = (o: Rollout) => o !== ref && (o.seed !== ref.seed || o.level !== ref.level);
  const elsewhere = new Set(refs.filter(other).flatMap(sent));
  return new Set(issues.flatMap((us) => us.map((u) => u.value)).filter((v) => !elsewhere.has(v)));
}

/** Whether replay `log` (with its observations) sends one of `values` before any reply of its own showed it. */
export function sendsUnrevealed(log: Rollout, values: ReadonlySet<string>): boolean {
  const obs = log.observations;
  if (!obs || values.size === 0) return false;
  const shown = (v: string, j: number) => obs.slice(0, j).some((o) => wholeIn(v, o.slice(0, 20_000)));
  return log.actions.some((x, j) => {
    const a = asAction(x);
    return a !== null && Object.values(a.args).some((v) => typeof v === 'string' && values.has(v) && !shown(v, j));
  });
}
