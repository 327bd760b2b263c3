// The hand-written seed environments shipped in seeds/: the library's first members and the
// generator's few-shot examples.
import { ALL_KINDS, kindNamed, type KindName } from '../kinds/registry.js';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { SEEDS_DIR } from '../contract/paths.js';

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

/**
 * The kinds a new library gets seeds of (a plug's seeds.library): single-turn (seeds/) and episodic (seeds/episodic/).
 */
export const SEED_KINDS: readonly KindName[] = ALL_KINDS.filter((kind) => kind.seeds.library).map((kind) => kind.name);
export type SeedKind = KindName;

/** Every shipped seed of the given kinds (both by default), single-turn first. */
export function listShippedSeeds(kinds: readonly SeedKind[] = SEED_KINDS): SeedFile[] {
  return SEED_KINDS.filter((kind) => kinds.includes(kind)).flatMap((kind) => listSeeds(kindNamed(kind).seeds.dir));
}

/** The seeds a new library gets for a batch of this kind ('mixed': both). */
export function seedKindsFor(kind: string): SeedKind[] {
  const one = SEED_KINDS.find((k) => k === kind);
  return one ? [one] : [...SEED_KINDS];
}

/** What a command that seeds a new library says first (the episodic seeds take about a minute to validate). */
export function seedingLine(dir: string, kinds: readonly SeedKind[]): string {
  const count = listShippedSeeds(kinds).length;
  const slow = kinds.some((kind) => kindNamed(kind).seeds.slow);
  return (
    `seeding a new library at ${dir} with ${count} ` +
    `${kinds.length === 1 ? `${kindNamed(kinds[0]!).label} ` : ''}seed environments (validated first` +
    `${slow ? ': about a minute' : ''}) …`
  );
}
