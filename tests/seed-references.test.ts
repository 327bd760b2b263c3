// The shipped seeds as novelty references: the written file matches the seeds, and a retold seed of either
// kind is a duplicate in a library that does not hold it (red team rt4 R19).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hashSource } from '../contract/hash.js';
import { noveltyIndexOf } from '../library/novelty-index.js';
import { computeSeedReferences, seedReferences } from '../library/seed-references.js';
import { listShippedSeeds } from '../library/seeds.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { DEFAULT_VALIDATOR_OPTIONS } from '../validators/options.js';
import { validateCandidate } from '../validators/validate.js';

const pool = new SandboxPool();
const root = mkdtempSync(join(tmpdir(), 'envforge-seed-refs-'));
afterAll(async () => {
  await pool.close();
  rmSync(root, { recursive: true, force: true });
});

describe('seed references', () => {
  it('seeds/fingerprints.json holds every shipped seed as it is now (else: npm run seeds:references)', async () => {
    const seeds = listShippedSeeds();
    expect(seeds.some((s) => s.file.includes('episodic'))).toBe(true);
    expect(
      seedReferences()
        .map((r) => r.hash)
        .sort(),
    ).toEqual(seeds.map((s) => hashSource(s.source)).sort());
    const written = new Map(seedReferences().map((r) => [r.hash, r]));
    const differ = (refs: Awaited<ReturnType<typeof computeSeedReferences>>) =>
      refs.filter((r) => JSON.stringify(written.get(r.hash)) !== JSON.stringify(r));
    // A sampled episode that timed out on a loaded machine changes a print: sample those once more before failing.
    const first = differ(await computeSeedReferences(pool));
    const again = first.length ? differ(await computeSeedReferences(pool, new Set(first.map((r) => r.hash)))) : [];
    expect(again.map((r) => r.name)).toEqual([]);
  }, 120_000);

  it('an episodic seed with its name and nouns changed is a duplicate in an empty library', async () => {
    const seed = readFileSync(new URL('../seeds/episodic/package-routing.js', import.meta.url), 'utf8');
    const copy = seed.replace(/package-routing/g, 'parcel-dispatch').replace(/package/g, 'parcel');
    const library = SqliteLibrary.open(join(root, 'lib'), { create: true });
    // Novelty reads the sampled episodes and the code, not the hack stage's probes: those are cut to a few (half the
    // CPU).
    const fewProbes = {
      repeatedPerLevel: 0,
      adversaryPerLevel: 0,
      randomPerLevel: 2,
      finishAloneSamples: 2,
      readerEpisodesPerLevel: 0,
    };
    const options = {
      episodic: { ...DEFAULT_VALIDATOR_OPTIONS.episodic, ...fewProbes, surfaceEntities: 0, surfaceLogsPerEpisode: 0 },
    };
    try {
      const report = await validateCandidate(copy, { pool, novelty: await noveltyIndexOf(library), options });
      expect(report.problems.map((p) => p.code).filter((c) => c.startsWith('E_DUPLICATE'))).not.toHaveLength(0);
      // The seed itself (same name) is not a duplicate of its own reference.
      const self = await validateCandidate(seed, { pool, novelty: await noveltyIndexOf(library), options });
      expect(self.problems.map((p) => p.code).filter((c) => c.startsWith('E_DUPLICATE'))).toEqual([]);
    } finally {
      await library.close();
    }
  }, 180_000);
});
