// Builds the novelty index the validator checks candidates against, from environment sources (the
// seeds and a library folder's modules) by sampling each in the sandbox and fingerprinting it.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MetaSchema } from '../contract/schema.js';
import { listSeeds } from '../library/seeds.js';
import { runEpisodes, type Episode } from '../sandbox/episodes.js';
import { hashSource, type SandboxPool } from '../sandbox/pool.js';
import { NoveltyIndex, type Fingerprint } from './novelty.js';
import { fingerprintOf, noveltyId } from './stages/novelty.js';

/** Samples a module (4 seeds per level) and fingerprints it; null when it does not load. */
export async function fingerprintSource(pool: SandboxPool, source: string): Promise<{ name: string; fingerprint: Fingerprint } | null> {
  const load = await pool.load(source);
  const meta = load.ok ? MetaSchema.safeParse(load.meta) : null;
  if (!meta?.success) return null;
  const requests = [];
  for (let level = 1; level <= meta.data.levels; level++) for (let seed = 0; seed < 4; seed++) requests.push({ seed, level });
  const { episodes } = await runEpisodes(pool, source, requests);
  return { name: meta.data.name, fingerprint: fingerprintOf({ source, episodes: episodes.filter((e): e is Episode => e.ok) }) };
}

/** Every .js file under dir (missing dir: none), at most `max`. */
export function listModules(dir: string, max = 100_000): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d).sort()) {
      if (out.length >= max || entry.startsWith('.') || entry === 'node_modules') continue;
      const path = join(d, entry);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else if (entry.endsWith('.js')) out.push(path);
    }
  };
  walk(dir);
  return out;
}

export async function buildNoveltyIndex(pool: SandboxPool, libraryDir: string | null, includeSeeds = true): Promise<NoveltyIndex> {
  const index = new NoveltyIndex();
  const sources = [...(includeSeeds ? listSeeds().map((s) => s.source) : []), ...(libraryDir ? listModules(libraryDir).map((f) => readFileSync(f, 'utf8')) : [])];
  const prints = await Promise.all(sources.map(async (source) => ({ source, print: await fingerprintSource(pool, source) })));
  for (const { source, print } of prints) if (print) index.add(noveltyId(print.name, hashSource(source)), print.fingerprint);
  return index;
}
