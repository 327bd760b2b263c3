// The shipped seeds as novelty references (seeds/fingerprints.json): every shipped seed, single-turn and
// episodic, counts against a candidate's novelty in every library, member or not, so a retold seed is
// never "new" (red team rt4 R19: the episodic seeds were in no index).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashSource } from '../contract/hash.js';
import { SEEDS_DIR } from '../contract/paths.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { Fingerprint } from '../validators/novelty/fingerprint.js';
import type { NoveltyIndex } from '../validators/novelty/lsh.js';
import { noveltyId } from '../validators/stages/novelty.js';
import { fingerprintSource } from './fingerprint-source.js';
import { listShippedSeeds } from './seeds.js';

export const SEED_REFERENCES_FILE = join(SEEDS_DIR, 'fingerprints.json');
const NOTE = 'novelty references of the shipped seeds; regenerate with npm run seeds:references';

export interface SeedReference {
  name: string;
  /** hashSource of the seed's text: an entry whose seed changed since it was written is not used. */
  hash: string;
  fingerprint: Fingerprint;
}

let cached: SeedReference[] | null = null;

/** The references written for the shipped seeds as they are now (stale or missing entries are left out). */
export function seedReferences(): SeedReference[] {
  if (!cached) {
    let written: SeedReference[] = [];
    try {
      written = (JSON.parse(readFileSync(SEED_REFERENCES_FILE, 'utf8')) as { seeds: SeedReference[] }).seeds;
    } catch {
      // No file (or a broken one): references then come only from sampling (seedNoveltyIndex with a pool).
    }
    const current = new Set(listShippedSeeds().map((s) => hashSource(s.source)));
    cached = written.filter((r) => current.has(r.hash));
  }
  return cached;
}

/**
 * Adds the shipped seeds' references to an index; the caller's own entries (a library's members) go in after, so theirs
 * win.
 */
export function addSeedReferences(index: NoveltyIndex, references: readonly SeedReference[] = seedReferences()): void {
  for (const r of references) index.add(noveltyId(r.name, r.hash), r.fingerprint);
}

/** Samples every shipped seed in the sandbox (what the file holds, and the fallback for a seed the file lacks). */
export async function computeSeedReferences(pool: SandboxPool, only?: ReadonlySet<string>): Promise<SeedReference[]> {
  const seeds = listShippedSeeds().filter((s) => !only || only.has(hashSource(s.source)));
  const prints = await Promise.all(seeds.map((s) => fingerprintSource(pool, s.source)));
  return prints.flatMap((p, i) =>
    p ? [{ name: p.name, hash: hashSource((seeds[i] as { source: string }).source), fingerprint: p.fingerprint }] : [],
  );
}

/** The shipped seeds' references, sampling only those the file lacks or holds for an older text. */
export async function currentSeedReferences(pool: SandboxPool): Promise<SeedReference[]> {
  const written = seedReferences();
  const have = new Set(written.map((r) => r.hash));
  const missing = new Set(
    listShippedSeeds()
      .map((s) => hashSource(s.source))
      .filter((h) => !have.has(h)),
  );
  return missing.size ? [...written, ...(await computeSeedReferences(pool, missing))] : written;
}

/** Rewrites seeds/fingerprints.json from the seeds as they are (`npm run seeds:references` after editing a seed). */
export async function writeSeedReferences(pool: SandboxPool): Promise<SeedReference[]> {
  const seeds = await computeSeedReferences(pool);
  writeFileSync(SEED_REFERENCES_FILE, `${JSON.stringify({ note: NOTE, seeds })}\n`);
  cached = null;
  return seeds;
}
