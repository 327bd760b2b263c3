// The runtime defence for episode sessions: an environment that fails while an episode is played (a
// timeout, a crash, an invalid value) is an incident, confirmed by replaying the action log alone in a
// fresh realm, and recorded like /v1/verify's (defence.ts); the log is the response, as kinds/episodic.ts reads one.
import type { EpisodicMeta } from '../contract/episodic.js';
import type { EnvRecord } from '../library/contract.js';
import { rolloutShape, toRollout } from '../sandbox/rollouts.js';
import type { CallResult } from '../sandbox/protocol.js';
import { confirmAndRecord } from './defence.js';
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
}

/** Records the failure as an incident when its code is one (in the background: the client has its answer). */
export function defendEpisode(service: Service, f: EpisodeFailure): Promise<void> {
  if (!service.defence.isIncident(f.code)) return Promise.resolve();
  const misbehaviour = { record: f.record, seed: f.seed, level: f.level, code: f.code, message: f.message, fn: f.fn, response: JSON.stringify(f.actions) };
  const rerun = async () => {
    const source = await service.source(f.record);
    const call = { op: 'rollout' as const, seed: f.seed, level: f.level, keepInstance: false, rollout: { ...rolloutShape(f.meta), policy: { type: 'replay' as const, actions: f.actions } } };
    const run = await service.pool.run({ source, calls: [call], fresh: true, limits: { callTimeoutMs: service.options.callTimeoutMs } });
    const result = toRollout({ seed: f.seed, level: f.level, policy: call.rollout.policy }, run.results[0] as CallResult, false);
    return { code: result.ok ? null : result.code, responseOnly: false };
  };
  return confirmAndRecord(service.defence, [misbehaviour], rerun).catch(() => {});
}
