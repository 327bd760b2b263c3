// POST /v1/sample for episodic environments (contract v2): the episode's start as the agent sees it (the
// prompt and the tools; play it through /v1/episodes), and when revealed the reference rollout's actions
// with their observations, so `select` and `level: "auto"` draw from both kinds of a library.
import { parseEpisodicMeta } from '../contract/episodic.js';
import { identityString } from '../contract/identity.js';
import type { EnvRecord } from '../library/contract.js';
import { runRollouts } from '../sandbox/rollouts.js';
import type { Client } from './clients.js';
import { SANDBOX_FN } from './dispatcher.js';
import { defendEpisode } from './episode-defence.js';
import type { InstanceIdentity, SampledItem } from './schemas.js';
import type { Service } from './service.js';

export interface EpisodicEntry {
  index: number;
  identity: InstanceIdentity;
  record: EnvRecord;
}

/**
 * Samples every entry of one episodic environment version; each item is filled in `out` at its index. The first item
 * that fails is `client`'s incident, as a create's reset would be (whatever drew its seed: V22-1, defence.ts); its
 * defence (re-runs, then the record) is what this resolves to.
 */
export async function sampleEpisodic(
  service: Service,
  entries: EpisodicEntry[],
  reveal: boolean,
  out: SampledItem[],
  client: Client,
): Promise<{ defending: Promise<void> }> {
  const record = (entries[0] as EpisodicEntry).record;
  const meta = parseEpisodicMeta(record.meta);
  const ids = entries.map(({ identity }) => ({
    env: record.name,
    version: record.version,
    seed: identity.seed,
    level: identity.level,
  }));
  if (!meta) {
    entries.forEach(
      ({ index }, k) =>
        (out[index] = {
          ...ids[k]!,
          ground_truth: identityString(ids[k]!),
          error: { code: 'E_META', message: `${record.name}@${record.version}'s meta does not match contract v2` },
        }),
    );
    return { defending: Promise.resolve() };
  }
  const source = await service.source(record);
  const requests = ids.map((id) => ({
    seed: id.seed,
    level: id.level,
    policy: reveal ? { type: 'act' as const } : { type: 'replay' as const, actions: [] },
    observations: reveal,
  }));
  // In the client's turn, charged a budget per rollout (sandbox-gate.ts).
  const { rollouts } = await service.dispatcher.gate.run(client.key, requests.length, () =>
    runRollouts(service.pool, source, meta, requests, { limits: { callTimeoutMs: service.options.callTimeoutMs } }),
  );
  let defending: Promise<void> | null = null;
  entries.forEach(({ index }, k) => {
    const id = ids[k]!;
    const r = rollouts[k];
    const base = { ...id, ground_truth: identityString(id), kind: 'episodic' as const };
    if (!r?.ok) {
      const failure = r && r.fn !== SANDBOX_FN ? { code: r.code, message: r.message, fn: r.fn } : null;
      if (failure && !defending)
        defending = defendEpisode(service, { record, meta, ...id, ...failure, actions: [], client });
      out[index] = {
        ...base,
        error: { code: r?.code ?? 'E_PROTOCOL', message: `${r?.fn ?? 'rollout'}: ${r?.message ?? 'no result'}` },
      };
      return;
    }
    const start = { ...base, prompt: r.prompt ?? '', tools: meta.tools, maxTurns: meta.maxTurns };
    out[index] = reveal
      ? {
          ...start,
          reference: JSON.stringify(r.actions),
          referenceTurns: r.actions.map((action, i) => ({ action, observation: r.observations?.[i] ?? '' })),
          referenceScore: r.score,
        }
      : start;
  });
  return { defending: defending ?? Promise.resolve() };
}
