// A rollout call as the runtime reads it (episodic-runtime.js): the host's spec plus the rng states the
// worker derives: reset's, and the base the runtime mixes with each turn number (docs/rng.md), so a
// module's chance is a function of (name, seed, level, turn).
import type { Call } from './protocol.js';
import { deriveRngState, deriveTurnRngState } from './rng.js';

export function rolloutFields(call: Call, name: string): Record<string, unknown> {
  const spec = call.rollout;
  if (!spec) return {};
  const policy =
    spec.policy.type === 'random'
      ? { ...spec.policy, s: deriveRngState(`${name}\u0000random-policy`, spec.policy.seed, call.level) }
      : spec.policy;
  return {
    op: 'rollout',
    t: deriveTurnRngState(name, call.seed, call.level),
    maxTurns: spec.maxTurns,
    maxErrors: spec.maxErrors,
    tools: spec.tools,
    policy,
    ...(spec.from ? { from: spec.from } : {}),
    observations: spec.observations === true,
    hashes: spec.hashes === true,
    keepState: spec.keepState === true,
    scoreAtEnd: spec.scoreAtEnd === true,
    ...(spec.changes ? { changes: true } : {}),
  };
}
