// The hand-written seed environments shipped in seeds/: the library's first members and the
// generator's few-shot examples.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { EPISODIC_SEEDS_DIR, SEEDS_DIR } from '../contract/paths.js';

export interface SeedFile {
  /** File name without .js; equals the environment's meta.name. */
  name: string;
  file: string;
  source: string;
}

export function listSeeds(dir = SEEDS_DIR): SeedFile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort()
    .map((f) => {
      const file = join(dir, f);
      return { name: basename(f, '.js'), file, source: readFileSync(file, 'utf8') };
    });
}

/** Every shipped seed, single-turn (seeds/) and episodic (seeds/episodic/). */
export function listShippedSeeds(): SeedFile[] {
  return [...listSeeds(), ...listSeeds(EPISODIC_SEEDS_DIR)];
}
