// Sample instances for an environment's page: a few per level, run in the sandbox through the module's
// kind, shaped for the page (prompt; hidden fields and reference behind the reveal toggle). An episodic
// environment (contract v2) shows its prompt and tools, and its reference rollout turn by turn with observations.
import type { EnvRecord, Library } from '../library/contract.js';
import { kindOf } from '../kinds/registry.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { parseEpisodicMeta, type EpisodicMeta } from '../contract/episodic.js';
import { runRollouts } from '../sandbox/rollouts.js';
import { toolUsageLines } from '../kinds/tool-text.js';

/** One sample as the page shows it. */
export interface SampleView {
  seed: number;
  level: number;
  prompt?: string;
  hidden?: Record<string, unknown>;
  reference?: string;
  referenceScore?: number | null;
  /** An episodic environment's reference rollout, turn by turn (when its kind's episodes carry turns). */
  turns?: unknown[];
  error?: { code: string; fn: string; message: string };
}

export interface SampleSet {
  kind: string;
  /** The kind's episodes are rollouts (the page shows them turn by turn). */
  rollouts: boolean;
  level: number;
  samples: SampleView[];
}

export const MAX_SAMPLES = 10;

/** n samples of one level, seeds 0..n-1, so a page shows the same instances every time. */
export async function sampleLevel(
  library: Library,
  pool: SandboxPool,
  record: EnvRecord,
  level: number,
  n: number,
): Promise<SampleSet> {
  const kind = kindOf(record.meta);
  const source = await library.source(record);
  const requests = Array.from({ length: Math.min(MAX_SAMPLES, Math.max(1, n)) }, (_, seed) => ({ seed, level }));
  const meta = kind.rollouts ? parseEpisodicMeta(record.meta) : null;
  if (meta)
    return {
      kind: kind.label,
      rollouts: kind.rollouts,
      level,
      samples: await episodicSamples(pool, source, meta, requests),
    };
  const { episodes } = await kind.runEpisodes(pool, source, requests);
  const samples = episodes.map((e): SampleView => {
    if (!e.ok) return { seed: e.seed, level: e.level, error: { code: e.code, fn: e.fn, message: e.message } };
    const { prompt, ...hidden } = e.instance;
    const turns = (e as { turns?: unknown }).turns;
    return {
      seed: e.seed,
      level: e.level,
      prompt: kind.exportView(e.instance).prompt ?? prompt,
      hidden,
      reference: e.reference,
      referenceScore: e.referenceVerdict.ok ? e.referenceVerdict.score : null,
      ...(Array.isArray(turns) ? { turns } : {}),
    };
  });
  return { kind: kind.label, rollouts: kind.rollouts, level, samples };
}

/**
 * An episodic environment's samples: the episode's prompt with its tools, and the reference rollout turn by turn with
 * each observation.
 */
async function episodicSamples(
  pool: SandboxPool,
  source: string,
  meta: EpisodicMeta,
  requests: Array<{ seed: number; level: number }>,
): Promise<SampleView[]> {
  const { rollouts } = await runRollouts(
    pool,
    source,
    meta,
    requests.map((r) => ({ ...r, policy: { type: 'act' as const }, observations: true })),
  );
  return rollouts.map((r): SampleView => {
    if (!r.ok) return { seed: r.seed, level: r.level, error: { code: r.code, fn: r.fn, message: r.message } };
    return {
      seed: r.seed,
      level: r.level,
      prompt: `${r.prompt ?? ''}\n\nTools:\n${toolUsageLines(meta.tools)}`,
      reference: JSON.stringify(r.actions),
      referenceScore: r.end === 'done' ? r.score : 0,
      turns: r.actions.map((action, i) => ({ action, observation: r.observations?.[i] ?? '' })),
    };
  });
}
