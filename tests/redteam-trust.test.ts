// Red team on the trust validator (issues 27 and 28): tests/fixtures/redteam-trust/manifest.json lists hacks and
// honest twins; a closed entry is one the validator already decides right, and is asserted at a random
// validation seed (named in the message, so a failure replays with `envforge validate FILE --validation-seed S`);
// an open entry is a finding of FINDINGS.md that the validator gets wrong today: it is only loaded and counted.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../sandbox/pool.js';
import { newValidationSeed } from '../validators/seeds.js';
import { validateCandidate } from '../validators/validate.js';

interface Entry { file: string; kind: 'single-turn' | 'episodic'; class: string; expect: 'reject' | 'admit'; status: 'open' | 'closed'; note: string }

const DIR = new URL('./fixtures/redteam-trust/', import.meta.url);
const MANIFEST = JSON.parse(readFileSync(new URL('manifest.json', DIR), 'utf8')) as Entry[];
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
/** Codes a loaded machine can cause on its own: they say nothing about a module. */
const LOAD = new Set(['E_TIMEOUT', 'E_TOO_SLOW', 'E_CRASHED', 'E_MEMORY']);
const SLOW = { timeout: 240_000 };

const closed = MANIFEST.filter((e) => e.status === 'closed');
const open = MANIFEST.filter((e) => e.status === 'open');

describe('the red-team-trust manifest', () => {
  it('names every module of the folder once, with a known kind, verdict and status', () => {
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
  it(`is ${entry.expect === 'admit' ? 'admitted' : 'rejected'} at a random validation seed`, SLOW, async () => {
    const seed = newValidationSeed();
    const report = await validateCandidate(readFileSync(new URL(file, DIR), 'utf8'), { pool, validationSeed: seed });
    const codes = report.problems.filter((p) => !LOAD.has(p.code)).map((p) => p.code);
    const text = `${file} --validation-seed ${seed}: ${codes.join(', ') || 'admitted'}`;
    if (entry.expect === 'admit') expect(codes, text).toEqual([]);
    else expect(codes.length, text).toBeGreaterThan(0);
  });
});

describe('open findings', () => {
  it.each(open.map((e) => [e.file, e] as const))('%s loads in the sandbox as a module of its kind', SLOW, async (file, entry) => {
    const load = await pool.load(readFileSync(new URL(file, DIR), 'utf8'));
    expect(load.ok, file).toBe(true);
    const meta = (load.ok ? load.meta : null) as { kind?: string } | null;
    expect(meta?.kind === 'episodic', file).toBe(entry.kind === 'episodic');
  });
  it('are summarised', () => {
    const hacks = open.filter((e) => e.expect === 'reject').length;
    console.log(`redteam-trust: ${open.length} open findings (${hacks} hacks admitted, ${open.length - hacks} honest modules rejected); ${closed.length} closed entries`);
    expect(open.length + closed.length).toBe(MANIFEST.length);
  });
});
