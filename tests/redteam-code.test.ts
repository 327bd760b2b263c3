// Red team rtcode on the code kind's validator, and the hold-outs of its fixers: tests/fixtures/redteam-code/'s
// manifest lists hacks and honest twins, each judged at the recorded validation seed. A closed entry is decided right
// and must stay so (a closed hack with the code it is rejected with); an open one is a finding of FINDINGS.md that the
// validator decides wrong today: its test asserts the wrong verdict, so CI stays green while the hole exists and fails
// the day a fix closes it (then mark the entry closed). Load codes are set aside (helpers/redteam-manifest.ts).
// A code validation costs 25-30 CPU-s, so the modules are judged only with ENVFORGE_REDTEAM_CODE=1 (the suite checks
// the manifest's shape; the mechanisms are unit-tested on built samples: tests/code-acceptance.test.ts,
// tests/code-reader.test.ts).
import { afterAll, describe, expect, it } from 'vitest';
import { expectDecided, judge, readFixture, readRedteam } from './helpers/redteam-manifest.js';
import { validationSeeds } from './helpers/validation-seeds.js';
import { SandboxPool } from '../sandbox/pool.js';

// With the code entries of red teams rtS, rts20, rts21, rt22, rt23s, rt24, rt25, rt27s, rt28s, rt29s and rt30s
// (tests/fixtures/redteam-st19/, st20/, st21/, s17/, s18s/, s18/, s19/, s21c/, s22c/, s23c/ and s24c/;
// tests/redteam.test.ts judges their single-turn ones).
const MANIFEST = [
  ...readRedteam(['redteam-code']),
  ...readRedteam([
    'redteam-st19',
    'redteam-st20',
    'redteam-st21',
    'redteam-s17',
    'redteam-s18s',
    'redteam-s18',
    'redteam-s19',
    'redteam-s21c',
    'redteam-s22c',
    'redteam-s23c',
    'redteam-s24c',
  ]).filter((e) => e.kind === 'code'),
];
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());
const SLOW = { timeout: 400_000 };
/** The modules are validated only on request (a slow tier): each is a whole code validation. */
const JUDGE = process.env.ENVFORGE_REDTEAM_CODE === '1';

describe("the code red team's manifest (rtcode)", () => {
  it('names each module once, every one a code module of the folder with a known verdict and status', () => {
    const files = MANIFEST.map((e) => e.file);
    expect(new Set(files).size).toBe(files.length);
    for (const e of MANIFEST) {
      expect(readFixture(e.file)).toMatch(/kind: 'code'/);
      expect(e.kind).toBe('code');
      expect(['reject', 'admit']).toContain(e.expect);
      expect(['open', 'closed']).toContain(e.status);
      expect(e.class.length).toBeGreaterThan(0);
    }
  });
});

describe.skipIf(!JUDGE)('the modules, validated (ENVFORGE_REDTEAM_CODE=1: a code validation costs 25-30 CPU-s)', () => {
  describe.each(MANIFEST.filter((e) => e.status === 'closed').map((e) => [e.file, e] as const))(
    'closed: %s',
    (_file, entry) => {
      it(
        `is ${entry.expect === 'admit' ? 'admitted' : 'rejected'} at the recorded validation seeds`,
        SLOW,
        async () => {
          for (const seed of validationSeeds([11])) await expectDecided(pool, entry, seed);
        },
      );
    },
  );

  describe.each(MANIFEST.filter((e) => e.status === 'open').map((e) => [e.file, e] as const))(
    'open: %s',
    (_file, entry) => {
      const wrong = entry.expect === 'reject' ? 'admitted' : 'rejected';
      it(
        `is still ${wrong} at the recorded validation seed (fails once fixed: then mark it closed)`,
        SLOW,
        async () => {
          const { codes, text: seen } = await judge(pool, entry, 11);
          const text = `${seen}; if a fix decides it right, set its status to closed`;
          if (entry.expect === 'reject') expect(codes, text).toEqual([]);
          else expect(codes.length, text).toBeGreaterThan(0);
        },
      );
    },
  );
});
