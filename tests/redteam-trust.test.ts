// The red-team corpus: each folder's manifest.json (redteam-trust/: issues 27 and 28; redteam/: earlier rounds)
// lists hacks and honest twins; a closed entry is one the validator already decides right, and is asserted at a
// random validation seed (named in the message, so a failure replays with `envforge validate FILE --validation-seed
// S`); an open entry is a finding of the folder's FINDINGS that the validator gets wrong today: only loaded and
// counted.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { validationSeeds } from './helpers/validation-seeds.js';
import { SandboxPool } from '../sandbox/pool.js';
import { seedNoveltyIndex } from '../library/novelty-index.js';
import { validateCandidate } from '../validators/validate.js';

interface Entry {
  file: string;
  kind: 'single-turn' | 'episodic';
  class: string;
  expect: 'reject' | 'admit';
  status: 'open' | 'closed';
  note: string;
  /** Validated against the shipped seeds' novelty index (a retold seed), as `envforge validate` does. */
  novelty?: 'seeds';
  /** The code a closed hack is rejected with. */
  code?: string;
}

const CORPORA = ['redteam-trust', 'redteam'];
const MANIFEST = CORPORA.flatMap((dir) =>
  (JSON.parse(readFileSync(new URL(`./fixtures/${dir}/manifest.json`, import.meta.url), 'utf8')) as Entry[]).map(
    (e) => ({ ...e, file: `${dir}/${e.file}` }),
  ),
);
const read = (file: string) => readFileSync(new URL(`./fixtures/${file}`, import.meta.url), 'utf8');
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
/** Codes a loaded machine can cause on its own: they say nothing about a module. */
const LOAD = new Set(['E_TIMEOUT', 'E_TOO_SLOW', 'E_CRASHED', 'E_MEMORY']);
const SLOW = { timeout: 240_000 };

const closed = MANIFEST.filter((e) => e.status === 'closed');
const open = MANIFEST.filter((e) => e.status === 'open');

describe('the red-team manifests', () => {
  it('name each module once, with a known kind, verdict and status', () => {
    const files = MANIFEST.map((e) => e.file);
    expect(new Set(files).size).toBe(files.length);
    for (const e of MANIFEST) {
      expect(['single-turn', 'episodic']).toContain(e.kind);
      expect(['reject', 'admit']).toContain(e.expect);
      expect(['open', 'closed']).toContain(e.status);
      expect(e.class.length).toBeGreaterThan(0);
    }
  });
});

describe.each(closed.map((e) => [e.file, e] as const))('closed: %s', (file, entry) => {
  it(`is ${entry.expect === 'admit' ? 'admitted' : 'rejected'} at a recorded validation seed`, SLOW, async () => {
    for (const seed of validationSeeds([11])) await judgeAt(seed);
  });
  async function judgeAt(seed: number) {
    const novelty = entry.novelty === 'seeds' ? { novelty: await seedNoveltyIndex(pool) } : {};
    const report = await validateCandidate(read(file), { pool, validationSeed: seed, ...novelty });
    const codes = report.problems.filter((p) => !LOAD.has(p.code)).map((p) => p.code);
    const text = `${file} --validation-seed ${seed}: ${codes.join(', ') || 'admitted'}`;
    if (entry.expect === 'admit') expect(codes, text).toEqual([]);
    else expect(codes.length, text).toBeGreaterThan(0);
    if (entry.code) expect(codes, text).toContain(entry.code);
  }
});

describe('open findings', () => {
  it.each(open.map((e) => [e.file, e] as const))(
    '%s loads in the sandbox as a module of its kind',
    SLOW,
    async (file, entry) => {
      const load = await pool.load(read(file));
      expect(load.ok, file).toBe(true);
      const meta = (load.ok ? load.meta : null) as { kind?: string } | null;
      expect(meta?.kind === 'episodic', file).toBe(entry.kind === 'episodic');
    },
  );
  it('are summarised', () => {
    const hacks = open.filter((e) => e.expect === 'reject').length;
    console.log(
      `red-team corpus: ${open.length} open findings (${hacks} hacks admitted, ${open.length - hacks} honest ` +
        `modules rejected); ${closed.length} closed entries`,
    );
    expect(open.length + closed.length).toBe(MANIFEST.length);
  });
});
