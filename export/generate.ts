// Step 5 of the export scheme: the prompts of one chunk of rows, generated in the sandbox by the
// environment's kind (single-turn: generate/solve/verify; episodic: reset and the reference rollout), with
// repeated prompts and failed attempts redrawn and every misbehaviour recorded as an incident.
import { createHash } from 'node:crypto';
import type { EpisodeResult } from '../sandbox/episodes.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { IncidentLog } from '../library/quarantine.js';
import { kindOf } from '../kinds/registry.js';
import { ExportError } from './contract.js';
import { MAX_ATTEMPTS, seedFor, type PlannedEnv, type Slot } from './select.js';

/** Sandbox failures that say nothing about the seed (load, deadline, a dead worker): retried, never skipped. */
const TRANSIENT = new Set(['E_TIMEOUT', 'E_CRASHED', 'E_PROTOCOL']);
const TRANSIENT_RETRIES = 2;

/** What a chunk tells its environment's summary. */
export interface ChunkCounts {
  redrawn: number;
  failed: number;
  dropped: number;
}

export interface Found {
  slot: Slot;
  seed: number;
  /** What the row shows the policy (the kind's export view). */
  prompt: string;
  /** Episodic rows: reset's prompt alone. */
  task?: string;
}

interface Pending {
  slot: Slot;
  attempt: number;
  transient: number;
  /** The code its last failed attempt had (a repeat on the same seed confirms an incident). */
  lastCode?: string;
}

/** Generates one chunk's rows in rounds of one sandbox run each and returns those found, in slot order. */
export async function generateChunk(
  pool: SandboxPool,
  env: PlannedEnv,
  source: string,
  slots: Slot[],
  exportSeed: number,
  seen: Set<string>,
  counts: ChunkCounts,
  incidents: IncidentLog,
): Promise<Found[]> {
  const { name, version } = env.record;
  const kind = kindOf(env.record.meta);
  const found: Found[] = [];
  let pending: Pending[] = slots.map((slot) => ({ slot, attempt: 0, transient: 0 }));
  while (pending.length > 0) {
    const seeds = pending.map((p) => seedFor(name, exportSeed, p.slot.k, p.attempt));
    const run = await kind.runEpisodes(
      pool,
      source,
      pending.map((p, i) => ({ seed: seeds[i] as number, level: p.slot.level })),
      { parallel: true },
    );
    if (!run.load.ok)
      throw new ExportError(`${name}@${version} does not load in the sandbox: ${run.load.code}: ${run.load.message}`);
    const next: Pending[] = [];
    for (const [i, p] of pending.entries()) await recordFailure(incidents, env, seeds[i] as number, p, run.episodes[i]);
    if (incidents.quarantined(env.record.hash)) return found;
    pending.forEach((p, i) => {
      const episode = run.episodes[i];
      const seed = seeds[i] as number;
      if (episode && !episode.ok && TRANSIENT.has(episode.code)) {
        if (++p.transient > TRANSIENT_RETRIES) {
          throw new ExportError(
            `${name}@${version} seed ${seed} level ${p.slot.level}: generate failed ${p.transient} times ` +
              `with ${episode.code}: ${episode.message} (an overloaded machine or a hanging environment; ` +
              `retry, or leave it out with --env)`,
          );
        }
        next.push(p);
        return;
      }
      if (episode?.ok) {
        const key = createHash('sha256').update(episode.instance.prompt).digest('base64').slice(0, 16);
        if (!seen.has(key)) {
          seen.add(key);
          const prompt = kind.exportView(episode.instance).prompt;
          found.push({
            slot: p.slot,
            seed,
            prompt,
            ...(prompt !== episode.instance.prompt ? { task: episode.instance.prompt } : {}),
          });
          return;
        }
        counts.redrawn++;
      } else {
        counts.failed++;
      }
      p.attempt++;
      if (p.attempt < MAX_ATTEMPTS) next.push(p);
      else counts.dropped++;
    });
    pending = next;
  }
  return found.sort((a, b) => a.slot.k - b.slot.k);
}

/** A failed generation is an incident; one that failed the same way before on this seed is confirmed. */
async function recordFailure(
  incidents: IncidentLog,
  env: PlannedEnv,
  seed: number,
  p: Pending,
  episode: EpisodeResult | undefined,
): Promise<void> {
  const failure = !episode
    ? null
    : !episode.ok
      ? { code: episode.code, message: episode.message, fn: episode.fn }
      : !episode.referenceVerdict.ok || episode.referenceVerdict.score !== 1
        ? { code: 'E_UNSOLVED', message: "verify does not give this instance's reference a score of 1", fn: 'verify' }
        : null;
  if (!failure || !incidents.isIncident(failure.code)) return;
  await incidents.record(
    { record: env.record, seed, level: p.slot.level, ...failure },
    p.transient > 0 && p.lastCode === failure.code,
  );
  p.lastCode = failure.code;
}
