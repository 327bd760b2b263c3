// The runtime defence for episode sessions: an environment that fails while an episode is played (a
// timeout, a crash, an invalid value) is an incident, confirmed by replaying the action log alone in a
// fresh realm, and recorded like /v1/verify's (defence.ts); the log is the response, as kinds/episodic.ts
// reads one. A failure that only the client's log reaches (the reference rollout of the same episode runs)
// is that log's incident (ACTION_LOG_FN), never alone the environment's quarantine. A re-run has the budgets the
// failing episode had live (one per turn it reached, and the failing call's: replayBudgetMs), never one call's.
import type { EpisodicMeta } from '../contract/episodic.js';
import type { EnvRecord } from '../library/contract.js';
import { ACTION_LOG_FN, type Misbehaviour } from '../library/quarantine.js';
import { rolloutShape, toRollout } from '../sandbox/rollouts.js';
import type { CallResult, RolloutPolicy } from '../sandbox/protocol.js';
import { incidentParties, type Client } from './clients.js';
import { confirmAndRecord } from './defence.js';
import { replayBudgetMs, type Session } from './episode-session.js';
import type { Service } from './service.js';

export interface EpisodeFailure {
  record: EnvRecord;
  meta: EpisodicMeta;
  seed: number;
  level: number;
  actions: unknown[];
  code: string;
  message: string;
  fn: string;
  /** The client whose actions these are. */
  client: Client;
}

/** Records the failure as an incident when its code is one (in the background: the client has its answer). */
export function defendEpisode(service: Service, f: EpisodeFailure): Promise<void> {
  if (!service.defence.isIncident(f.code)) return Promise.resolve();
  const misbehaviour = {
    record: f.record,
    seed: f.seed,
    level: f.level,
    code: f.code,
    message: f.message,
    fn: f.fn,
    ...(f.actions.length > 0 ? { response: JSON.stringify(f.actions) } : {}),
    ...incidentParties(f.client),
  };
  // The budgets the failing episode had live: a call's for each turn it reached and one for the failing call.
  const budgetMs = replayBudgetMs(service.options.callTimeoutMs, f.actions.length + 1, f.meta.maxTurns + 1);
  // At the failure's seed, or (confirmAndRecord's re-run at a seed the service draws) at the re-run's.
  const alone = async (policy: RolloutPolicy, seed: number) => {
    const source = await service.source(f.record);
    const call = {
      op: 'rollout' as const,
      seed,
      level: f.level,
      keepInstance: false,
      rollout: { ...rolloutShape(f.meta), policy },
    };
    // In the client's turn, charged to it: a failure's re-runs are its replay's cost again (sandbox-gate.ts).
    const run = await service.dispatcher.gate.run(f.client.principal, f.actions.length + 2, () =>
      service.pool.run({ source, calls: [call], fresh: true, limits: { callTimeoutMs: budgetMs } }),
    );
    const result = toRollout({ seed, level: f.level, policy }, run.results[0] as CallResult, false);
    return result.ok ? null : result.code;
  };
  const rerun = async (m: Misbehaviour) => {
    // The reference policy from reset (no client input): when it runs, the failure is the client's log's (a reset
    // that fails, with no actions at all, fails the reference too).
    const reference = await alone({ type: 'act' }, m.seed);
    return {
      reference,
      input:
        reference !== null || m.response === undefined
          ? reference
          : await alone({ type: 'replay', actions: f.actions }, m.seed),
    };
  };
  return confirmAndRecord(service.defence, [misbehaviour], rerun, ACTION_LOG_FN).catch(() => {});
}

/** `defendEpisode` for a failure in an open session's episode, its actions so far. */
export function defendSession(
  service: Service,
  s: Session,
  r: { code: string; message: string; fn: string },
  client: Client,
): void {
  const { code, message, fn } = r;
  const actions = s.turns.map((t) => t.action);
  void defendEpisode(service, { record: s.record, meta: s.meta, ...s.identity, actions, code, message, fn, client });
}
