// Red teams rt28, rt28b, rt-final, rt6, rt9, rt11 to rt18, rt20, rt21 and rt17's fixers on the episodic trust checks
// (issue 28): the manifests of tests/fixtures/redteam-trust4/ to redteam-trust7/, redteam-trust9/, redteam-trust11/ to
// 18/, redteam-trust20/, redteam-trust21/ and redteam-trust17-*/ list hacks and honest twins; each entry is judged at
// the recorded validation seeds. A closed entry is decided right and must stay so; an open one is a finding of
// FINDINGS.md that the validator decides wrong today: its test asserts the wrong verdict, so CI stays green while the
// hole exists and fails the day a fix closes it (then mark it closed).
import { afterAll, describe, expect, it } from 'vitest';
import { expectDecided, judge, readFixture, readRedteam } from './helpers/redteam-manifest.js';
import { validationSeeds } from './helpers/validation-seeds.js';
import { SandboxPool } from '../sandbox/pool.js';

const MANIFEST = readRedteam([
  'redteam-trust4',
  'redteam-trust5',
  'redteam-trust6',
  'redteam-trust7',
  'redteam-trust9',
  'redteam-trust11',
  'redteam-trust12',
  'redteam-trust13',
  'redteam-trust14',
  'redteam-trust15',
  'redteam-trust16',
  'redteam-trust17',
  'redteam-trust17-trace',
  'redteam-trust17-pool',
  'redteam-trust18',
  'redteam-trust20',
  'redteam-trust21',
  // rt23e (session 18): the episodic rule readers and canonical calls session 17 added.
  'redteam-s18e',
  // rt26e (session 20): the episodic judging's new mechanisms (merged.ts, copies.ts, tool-words.ts, undoneLater).
  'redteam-s20e',
  // rt27e (session 21): session 20's episodic fixes (caps.ts, undoneLater, directedCopy, observationLeaks).
  'redteam-s21e',
  // rt28e (session 22): session 21's episodic fixes (pick-universe.ts, judgePick, caps.ts statedCaps).
  'redteam-s22e',
  // rt29e (session 23): session 22's episodic fixes (shown-derivation.ts, pick-universe.ts, cap-units.ts).
  'redteam-s23e',
  // rt30e (session 24): session 23's episodic fixes (announced.ts, shown-derivation.ts, cap-units.ts).
  'redteam-s24e',
  // rt22 (session 17), rt24 (session 18) and rt25 (session 19) attacked every kind: their episodic entries (the
  // others: redteam.test.ts, redteam-code.test.ts).
]).concat(readRedteam(['redteam-s17', 'redteam-s18', 'redteam-s19']).filter((e) => e.kind === 'episodic'));
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
const SLOW = { timeout: 240_000 };

describe("the red teams' manifests (rt28, rt28b, rt-final, rt6, rt9, rt11 to rt17, rt17's fixers)", () => {
  it('names each module once, every one a file of the folder, with a known kind, verdict and status', () => {
    const files = MANIFEST.map((e) => e.file);
    expect(new Set(files).size).toBe(files.length);
    for (const e of MANIFEST) {
      expect(readFixture(e.file).length, e.file).toBeGreaterThan(0);
      expect(e.kind).toBe('episodic');
      expect(['reject', 'admit']).toContain(e.expect);
      expect(['open', 'closed']).toContain(e.status);
      expect(e.class.length).toBeGreaterThan(0);
    }
  });
});

describe.each(MANIFEST.filter((e) => e.status === 'closed').map((e) => [e.file, e] as const))(
  'closed: %s',
  (_file, entry) => {
    it(`is ${entry.expect === 'admit' ? 'admitted' : 'rejected'} at the recorded validation seeds`, SLOW, async () => {
      for (const seed of validationSeeds([11])) await expectDecided(pool, entry, seed);
    });
  },
);

describe.each(MANIFEST.filter((e) => e.status === 'open').map((e) => [e.file, e] as const))(
  'open: %s',
  (_file, entry) => {
    const wrong = entry.expect === 'reject' ? 'admitted' : 'rejected';
    it(`is still ${wrong} at the recorded validation seed (fails once fixed: then mark it closed)`, SLOW, async () => {
      const { codes, text: seen } = await judge(pool, entry, 11);
      const text = `${seen}; if a fix decides it right, set its status to closed`;
      if (entry.expect === 'reject') expect(codes, text).toEqual([]);
      else expect(codes.length, text).toBeGreaterThan(0);
    });
  },
);
