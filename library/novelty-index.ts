// Builds the novelty index the validator checks candidates against: from a library's stored fingerprints,
// always with the shipped seeds' references (seed-references.ts).
import type { EnvRecord, Library } from './contract.js';
import { libraryExists, openLibrary } from './open.js';
import { addSeedReferences, currentSeedReferences } from './seed-references.js';
export { fingerprintSource } from './fingerprint-source.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { NoveltyIndex } from '../validators/novelty/lsh.js';
import { noveltyId } from '../validators/stages/novelty.js';

/** The novelty index of a library's active environments (fingerprints stored at admission) and the shipped seeds. */
export async function noveltyIndexOf(library: Library): Promise<NoveltyIndex> {
  const index = new NoveltyIndex();
  addSeedReferences(index);
  for (const env of await library.list()) indexEnv(index, env);
  return index;
}

/** Adds an admitted environment to an index kept in memory, so callers need not rebuild it per candidate. */
export function indexEnv(index: NoveltyIndex, env: Pick<EnvRecord, 'name' | 'hash' | 'fingerprint'>): void {
  if (env.fingerprint) index.add(noveltyId(env.name, env.hash), env.fingerprint);
}

/** The shipped seeds' index (both kinds): what every library's index starts with. */
export async function seedNoveltyIndex(pool: SandboxPool): Promise<NoveltyIndex> {
  const index = new NoveltyIndex();
  addSeedReferences(index, await currentSeedReferences(pool));
  return index;
}

/** The index `validate --library DIR` checks against: the library's, or the seeds' when DIR holds no library yet. */
export async function buildNoveltyIndex(pool: SandboxPool, libraryDir: string | null): Promise<NoveltyIndex> {
  if (libraryDir && (await libraryExists(libraryDir))) {
    const library = openLibrary(libraryDir, { readonly: true });
    try {
      return await noveltyIndexOf(library);
    } finally {
      await library.close();
    }
  }
  return seedNoveltyIndex(pool);
}
