// The hand-written seed environments shipped in seeds/: the library's first members and the
// generator's few-shot examples.
import { kindByShort } from '../kinds/registry.js';
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

/** The kinds of shipped seeds: single-turn (seeds/) and episodic (seeds/episodic/). */
export const SEED_KINDS = ['single', 'episodic'] as const;
export type SeedKind = (typeof SEED_KINDS)[number];
const SEEDS_OF: Record<SeedKind, () => SeedFile[]> = { single: () => listSeeds(), episodic: () => listSeeds(EPISODIC_SEEDS_DIR) };
/** The kinds whose seeds take about a minute to validate. */
const SLOW_SEEDS: Record<SeedKind, boolean> = { single: false, episodic: true };

/** Every shipped seed of the given kinds (both by default), single-turn first. */
export function listShippedSeeds(kinds: readonly SeedKind[] = SEED_KINDS): SeedFile[] {
  return SEED_KINDS.filter((kind) => kinds.includes(kind)).flatMap((kind) => SEEDS_OF[kind]());
}

/** The seeds a new library gets for a batch of this kind ('mixed': both). */
export function seedKindsFor(kind: string): SeedKind[] {
  const one = SEED_KINDS.find((k) => k === kind);
  return one ? [one] : [...SEED_KINDS];
}

/** What a command that seeds a new library says first (the episodic seeds take about a minute to validate). */
export function seedingLine(dir: string, kinds: readonly SeedKind[]): string {
  const count = listShippedSeeds(kinds).length;
  const slow = kinds.some((kind) => SLOW_SEEDS[kind]);
  return `seeding a new library at ${dir} with ${count} ${kinds.length === 1 ? `${kindByShort(kinds[0]!).name} ` : ''}seed environments (validated first${slow ? ': about a minute' : ''}) …`;
}
