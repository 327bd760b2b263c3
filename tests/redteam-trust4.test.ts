// Red teams rt28 and rt28b on the episodic trust checks (issue 28): the manifests of tests/fixtures/redteam-trust4/
// and redteam-trust5/ list hacks and honest twins; each entry is judged at the recorded validation seeds. A closed
// entry is decided right and must stay so; an open one is a finding of FINDINGS.md that the validator decides wrong
// today: its test asserts the wrong verdict, so CI stays green while the hole exists and fails the day a fix closes it
// (then mark the entry closed).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { validationSeeds } from './helpers/validation-seeds.js';
import { SandboxPool } from '../sandbox/pool.js';
import { validateCandidate } from '../validators/validate.js';

interface Entry {
  file: string;
  kind: 'single-turn' | 'episodic';
  class: string;
  expect: 'reject' | 'admit';
  status: 'open' | 'closed';
  note: string;
  /** The code a closed hack is rejected with. */
  code?: string;
}

const CORPORA = ['redteam-trust4', 'redteam-trust5'];
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

async function codesAt(file: string, seed: number): Promise<string[]> {
  const report = await validateCandidate(read(file), { pool, validationSeed: seed });
  return report.problems.filter((p) => !LOAD.has(p.code)).map((p) => p.code);
}

describe('the rt28 and rt28b manifests', () => {
  it('names each module once, every one a file of the folder, with a known kind, verdict and status', () => {
    const files = MANIFEST.map((e) => e.file);
    expect(new Set(files).size).toBe(files.length);
    for (const e of MANIFEST) {
      expect(read(e.file).length, e.file).toBeGreaterThan(0);
      expect(e.kind).toBe('episodic');
      expect(['reject', 'admit']).toContain(e.expect);
      expect(['open', 'closed']).toContain(e.status);
      expect(e.class.length).toBeGreaterThan(0);
    }
  });
});

describe.each(MANIFEST.filter((e) => e.status === 'closed').map((e) => [e.file, e] as const))(
  'closed: %s',
  (file, entry) => {
    it(`is ${entry.expect === 'admit' ? 'admitted' : 'rejected'} at the recorded validation seeds`, SLOW, async () => {
      for (const seed of validationSeeds([11])) {
        const codes = await codesAt(file, seed);
        const text = `${file} --validation-seed ${seed}: ${codes.join(', ') || 'admitted'}`;
        if (entry.expect === 'admit') expect(codes, text).toEqual([]);
        else expect(codes.length, text).toBeGreaterThan(0);
        if (entry.code) expect(codes, text).toContain(entry.code);
      }
    });
  },
);

describe.each(MANIFEST.filter((e) => e.status === 'open').map((e) => [e.file, e] as const))(
  'open: %s',
  (file, entry) => {
    const wrong = entry.expect === 'reject' ? 'admitted' : 'rejected';
    it(`is still ${wrong} at the recorded validation seed (fails once fixed: then mark it closed)`, SLOW, async () => {
      const codes = await codesAt(file, 11);
      const text =
        `${file} --validation-seed 11: ${codes.join(', ') || 'admitted'}; if a fix decides it right, ` +
        `set its status to closed`;
      if (entry.expect === 'reject') expect(codes, text).toEqual([]);
      else expect(codes.length, text).toBeGreaterThan(0);
    });
  },
);
