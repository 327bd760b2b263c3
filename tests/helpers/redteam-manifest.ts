// The red-team corpora's manifests (tests/fixtures/redteam*/manifest.json: hacks and honest twins, each closed or
// open) and the judgement their runners share: a module's codes at a validation seed, load codes aside.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { seedNoveltyIndex } from '../../library/novelty-index.js';
import type { SandboxPool } from '../../sandbox/pool.js';
import type { ValidatorOptions } from '../../validators/options.js';
import { validateCandidate } from '../../validators/validate.js';
import { judgedOnce, LOAD_CODES } from './run-cache.js';
import { episodicHackOptions } from './validation-seeds.js';

export interface RedteamEntry {
  /** The module's path under tests/fixtures/ (its corpus folder first). */
  file: string;
  kind: 'single-turn' | 'episodic' | 'code';
  class: string;
  expect: 'reject' | 'admit';
  status: 'open' | 'closed';
  note: string;
  /** Validated against the shipped seeds' novelty index (a retold seed), as `envforge validate` does. */
  novelty?: 'seeds';
  /** The code a closed hack is rejected with. */
  code?: string;
}

const FIXTURES = new URL('../fixtures/', import.meta.url);

/** The entries of the corpora's manifests, each file named by its path under tests/fixtures/. */
export function readRedteam(corpora: readonly string[]): RedteamEntry[] {
  return corpora.flatMap((dir) =>
    (JSON.parse(readFileSync(new URL(`${dir}/manifest.json`, FIXTURES), 'utf8')) as RedteamEntry[]).map((e) => ({
      ...e,
      file: `${dir}/${e.file}`,
    })),
  );
}

export const readFixture = (file: string): string => readFileSync(new URL(file, FIXTURES), 'utf8');

/**
 * The options an entry is judged at: a closed episodic hack whose manifest names its code at episodicHackOptions(code)
 * (the baseline probes it is not judged by cut to a few; expectDecided asserts that code), every other entry (an
 * honest twin, an open finding, a hack with no code named) at the defaults.
 */
export function judgedOptions(entry: RedteamEntry): Partial<ValidatorOptions> | undefined {
  const hack = entry.kind === 'episodic' && entry.status === 'closed' && entry.expect === 'reject';
  return hack && entry.code ? episodicHackOptions(entry.code) : undefined;
}

/** The entry's codes at `seed` (load codes aside), and the line a failure prints: how to replay it. */
export async function judge(
  pool: SandboxPool,
  entry: RedteamEntry,
  seed: number,
): Promise<{ codes: string[]; text: string }> {
  const options = judgedOptions(entry);
  const at = { pool, validationSeed: seed, ...(options ? { options } : {}) };
  // Another file may judge the same module at the same seed and options (a class's own test): validated once a run.
  const report =
    entry.novelty === 'seeds'
      ? await validateCandidate(readFixture(entry.file), { ...at, novelty: await seedNoveltyIndex(pool) })
      : await judgedOnce(readFixture(entry.file), at);
  const codes = report.problems.filter((p) => !LOAD_CODES.has(p.code)).map((p) => p.code);
  return { codes, text: `${entry.file} --validation-seed ${seed}: ${codes.join(', ') || 'admitted'}` };
}

/** A closed entry is decided as its manifest says: admitted with no code, or rejected (with its code if named). */
export async function expectDecided(pool: SandboxPool, entry: RedteamEntry, seed: number): Promise<void> {
  const { codes, text } = await judge(pool, entry, seed);
  if (entry.expect === 'admit') expect(codes, text).toEqual([]);
  else expect(codes.length, text).toBeGreaterThan(0);
  if (entry.code) expect(codes, text).toContain(entry.code);
}
