// A module's novelty fingerprint from a fixed sample (4 seeds per level): how the shipped seeds' references
// and the seeds' index are made.
import { MetaSchema } from '../contract/schema.js';
import { kindOf } from '../kinds/registry.js';
import type { Episode } from '../sandbox/episodes.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { Fingerprint } from '../validators/novelty/fingerprint.js';
import { fingerprintOf } from '../validators/stages/novelty.js';

/** Samples a module (4 seeds per level) and fingerprints it; null when it does not load. */
export async function fingerprintSource(
  pool: SandboxPool,
  source: string,
): Promise<{ name: string; fingerprint: Fingerprint } | null> {
  const load = await pool.load(source);
  const meta = load.ok ? MetaSchema.safeParse(load.meta) : null;
  if (!meta?.success) return null;
  const requests = [];
  for (let level = 1; level <= meta.data.levels; level++)
    for (let seed = 0; seed < 4; seed++) requests.push({ seed, level });
  const kind = kindOf(load.ok ? load.meta : null);
  const { episodes } = await kind.runEpisodes(pool, source, requests);
  return {
    name: meta.data.name,
    fingerprint: fingerprintOf({ source, kind, episodes: episodes.filter((e): e is Episode => e.ok) }),
  };
}
