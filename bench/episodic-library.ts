// A library of the episodic seeds (contract v2) for the episode-session benchmark and tests: each module
// admitted with a minimal report (the seeds' own validation is tests/episodic-validator.test.ts's job).
import { EPISODIC_SEEDS_DIR } from '../contract/paths.js';
import { hashSource } from '../contract/hash.js';
import type { EpisodicMeta } from '../contract/episodic.js';
import type { Meta } from '../contract/schema.js';
import { episodicMeta } from '../kinds/episodic.js';
import type { Library } from '../library/contract.js';
import { listSeeds } from '../library/seeds.js';
import type { SandboxPool } from '../sandbox/pool.js';

export interface EpisodicSeed {
  name: string;
  source: string;
  meta: EpisodicMeta;
}

/** Admits every episodic seed into an empty library; returns them with their metas. */
export function admitEpisodicSeeds(library: Library, pool: SandboxPool): Promise<EpisodicSeed[]> {
  return admitEpisodic(library, pool, listSeeds(EPISODIC_SEEDS_DIR));
}

/** Admits episodic modules as they are (no validation: a test may want a broken one served). */
export async function admitEpisodic(
  library: Library,
  pool: SandboxPool,
  modules: ReadonlyArray<{ name: string; source: string }>,
): Promise<EpisodicSeed[]> {
  const seeds: EpisodicSeed[] = [];
  for (const { name, source } of modules) {
    const meta = await episodicMeta(pool, source);
    if (!meta) throw new Error(`episodic module ${name} does not load`);
    const report = {
      verdict: 'admit' as const,
      name: meta.name,
      hash: hashSource(source),
      meta: meta as Meta,
      stages: [],
      problems: [],
      curve: [],
      fingerprint: null,
      validatorVersion: 'bench',
      validationSeed: 0,
      ms: 1,
    };
    await library.admit({ source, report, lineage: { author: 'seed' } });
    seeds.push({ name: meta.name, source, meta });
  }
  return seeds;
}
