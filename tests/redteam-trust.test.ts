// The red-team corpus: each folder's manifest.json (redteam-trust/: issues 27 and 28; redteam/: earlier rounds)
// lists hacks and honest twins; a closed entry is one the validator already decides right, and is asserted at a
// recorded validation seed (named in the message, so a failure replays with `envforge validate FILE --validation-seed
// S`); an open entry is a finding of the folder's FINDINGS that the validator gets wrong today: only loaded and
// counted.
import { afterAll, describe, expect, it } from 'vitest';
import { expectDecided, readFixture, readRedteam } from './helpers/redteam-manifest.js';
import { validationSeeds } from './helpers/validation-seeds.js';
import { SandboxPool } from '../sandbox/pool.js';

const MANIFEST = readRedteam(['redteam-trust', 'redteam']);
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
const SLOW = { timeout: 240_000 };

const closed = MANIFEST.filter((e) => e.status === 'closed');
const open = MANIFEST.filter((e) => e.status === 'open');

describe('the red-team manifests', () => {
  it('name each module once, every one a file of its folder, with a known kind, verdict and status', () => {
    const files = MANIFEST.map((e) => e.file);
    expect(new Set(files).size).toBe(files.length);
    for (const e of MANIFEST) {
      expect(readFixture(e.file).length, e.file).toBeGreaterThan(0);
      expect(['single-turn', 'episodic']).toContain(e.kind);
      expect(['reject', 'admit']).toContain(e.expect);
      expect(['open', 'closed']).toContain(e.status);
      expect(e.class.length).toBeGreaterThan(0);
    }
  });
});

describe.each(closed.map((e) => [e.file, e] as const))('closed: %s', (_file, entry) => {
  it(`is ${entry.expect === 'admit' ? 'admitted' : 'rejected'} at a recorded validation seed`, SLOW, async () => {
    for (const seed of validationSeeds([11])) await expectDecided(pool, entry, seed);
  });
});

describe('open findings', () => {
  it.each(open.map((e) => [e.file, e] as const))(
    '%s loads in the sandbox as a module of its kind',
    SLOW,
    async (file, entry) => {
      const load = await pool.load(readFixture(file));
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
