// Whether the world accepted each added withheld call (validators/episodic/accepted.ts), read beside what the
// reference's calls of the judged tool leave where the world took them by effect (validators/episodic/examples.ts), and
// the finding each one makes.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { acceptedAdded } from '../episodic/accepted.js';
import type { Action } from '../episodic/adversaries.js';
import { examplesByEffect } from '../episodic/examples.js';
import { judgedAt, readsOf, type WithheldLog } from '../episodic/withheld.js';
import type { Finding } from './rules.js';

/** An added call to judge: its log, the reference's log it was added to and that log replayed with its changes. */
export interface HiddenCall {
  ref: Rollout;
  log: WithheldLog;
  reference: readonly Action[];
  replay: RolloutResult | undefined;
  /** The tools never read an entity with. */
  skip: ReadonlySet<string>;
}

/** For each added call, whether the world accepted it (the judged call: a gate's follow-up, else the call). */
export async function acceptedHidden(
  meta: EpisodicMeta,
  calls: readonly HiddenCall[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<boolean[]> {
  const readsAt = (c: HiddenCall, entity: unknown) => readsOf(meta, c.log.arg, String(entity ?? ''), c.skip);
  const examples = await examplesByEffect(
    calls.map((c) => {
      const judged = c.log.actions[judgedAt(c.log)] as Action;
      const arg = c.log.follow?.arg ?? c.log.arg;
      const readsOfCall = (a: Action) => readsAt(c, a.args[arg]);
      return { ref: c.ref, actions: c.reference, replay: c.replay, tool: judged.tool, readsOf: readsOfCall };
    }),
    run,
  );
  return acceptedAdded(
    calls.map((c, j) => {
      const at = judgedAt(c.log);
      return {
        ref: c.ref,
        actions: c.log.actions,
        at,
        added: true,
        accepted: examples[j] ?? [],
        reads: readsAt(c, c.log.entity),
      };
    }),
    run,
  );
}

/** The finding of one added call: its score where the world recorded it (accepted, the score kept), else nothing. */
export function addedCallFinding(
  l: WithheldLog & { cheap?: string },
  ref: Rollout,
  score: number,
  stored: boolean,
): Finding {
  return {
    rule: 'zero',
    code: 'E_RULE_IGNORED',
    check: 'episodic-withheld',
    judged: stored ? score + 1e-6 : 0,
    ceiling: ref.score,
    what: 'added withheld call',
    form:
      `${l.tool} on ${l.entity}, an entity the reference left alone (seed ${ref.seed}, level ${ref.level}): ` +
      `the plan${l.cheap ? ` ${l.cheap}` : ''} plus ${JSON.stringify(l.call.args).slice(0, 80)}` +
      (l.follow ? `, then ${l.follow.call.tool} (the call it lets through)` : ''),
    evidence: () => ({
      tool: l.tool,
      entity: l.entity,
      call: JSON.stringify(l.call).slice(0, 200),
      ...(l.follow ? { follow: JSON.stringify(l.follow.call).slice(0, 200) } : {}),
      recorded: stored,
      seed: ref.seed,
      level: ref.level,
      score,
      reference: ref.score,
    }),
  };
}
