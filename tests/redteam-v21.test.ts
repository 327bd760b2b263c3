// Red team v21 (Trust V round 3, session 17): each open finding of tests/fixtures/redteam-v21/FINDINGS.md asserted
// still there, so the suite stays green while it is open and fails the day a fix closes it (then flip its manifest
// entry to "closed" and turn the assertion into the fix's own, as V21-1..3's are). The scripts run from dist/: npm run
// build first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scriptRunner } from './helpers/fixture-script.js';
import { describe, expect, it } from 'vitest';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'redteam-v21');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const manifest = JSON.parse(fixture('manifest.json')) as Array<{ id: string; status: string }>;

/** A fixture script's last stdout line, parsed (each prints one JSON line). */
const runScript = scriptRunner(FIXTURES);

it('every finding of the manifest is closed, each with the code or note of its fix', () => {
  expect(manifest.filter((e) => e.status !== 'closed').map((e) => e.id)).toEqual([]);
});

describe('V21-1 closed: a hung-up body keeps its charge until its parse ends, and a waiting parse is cancelled', () => {
  it('V21-1: one client sending 32 MB bodies and hanging up after each leaves a 1 GB service serving', async () => {
    const r = await runScript('hangup-bodies.mjs', ['40', '768', '1024', '0'], 240_000);
    expect(r.honestBefore, JSON.stringify(r)).toMatchObject({ health: { status: 200 } });
    // Closed: the bodies still charged (parses waiting) refuse the next ones 503 at their headers; the service lives.
    expect(r.serverExit, JSON.stringify(r)).toBeNull();
    expect(r.answers, JSON.stringify(r)).toHaveProperty('503');
    expect(r.honestAfter).toMatchObject({ health: { status: 200 }, verify: { status: 200 } });
  }, 300_000);
});

describe('V21-2 closed: a body is bounded by the values it parses into, counted before it is parsed', () => {
  it('V21-2: one 32 MB body of empty arrays is refused 413 E_BODY_TOO_COMPLEX; the service serves on', async () => {
    const r = await runScript('amplified-body.mjs', ['arrays', '1', '768', '1024'], 240_000);
    expect(r.honestBefore, JSON.stringify(r)).toMatchObject({ status: 200 });
    expect(r.answers, JSON.stringify(r)).toEqual([
      expect.objectContaining({ status: 413, code: 'E_BODY_TOO_COMPLEX' }),
    ]);
    expect(r.serverExit).toBeNull();
    expect(r.honestAfter).toMatchObject({ status: 200 });
  }, 300_000);
});

describe("V21-3 closed: an instance failing at a client's seed or level is that client's vote", () => {
  const vote = { fn: 'instance(client seed)', code: 'E_THROWN', confirmed: true, client: expect.any(String) };

  it("V21-3: one client's create at a seed its sample showed failing leaves the environment serving", async () => {
    const r = await runScript('seed-quarantine.mjs', ['rare-reset.js', '8000'], 240_000);
    expect(r.victimBefore, JSON.stringify(r)).toBe(200);
    expect(r.itemsFailed).toBeGreaterThanOrEqual(1);
    expect(r.attackerCreate).toBe('422 E_THROWN');
    // Closed: the sample's failure and the create's are recorded, each the attacker's vote (a re-run at a seed the
    // service drew met neither); one client's votes quarantine nothing, and the victim is served.
    expect(r.incidents).toEqual([vote, vote]);
    expect(r.victimAfter).toBe(200);
  }, 300_000);

  it('V21-3 twin: the same scan and create on the honest twin record nothing', async () => {
    const r = await runScript('seed-quarantine.mjs', ['rare-reset-twin.js', '8000'], 240_000);
    expect(r.itemsFailed, JSON.stringify(r)).toBe(0);
    expect(r.attackerCreate).toBe('200');
    expect(r.incidents).toEqual([]);
    expect(r.victimAfter).toBe(200);
  }, 300_000);

  it('V21-3 variant: a generate failing at a level and seed the client listed (sample items, a verify)', async () => {
    const r = await runScript('level-quarantine.mjs', ['8000'], 240_000);
    expect(r.victimBefore, JSON.stringify(r)).toEqual(['scored', 'scored']);
    expect(r.failedAt).toMatchObject({ level: 3, code: 'E_THROWN' });
    expect(r.attack).toBe('E_THROWN');
    expect(r.incidents).toEqual([vote, vote]);
    expect(r.victimAfter).toEqual(['scored', 'scored']);
  }, 300_000);
});

describe("V21-4 closed: a client's text in the service's log breaks no line", () => {
  it('V21-4: one verify item whose env holds line feeds writes one service line, its line feeds escaped', async () => {
    const r = await runScript('log-forge.mjs', ['forge'], 60_000);
    expect(r.code, JSON.stringify(r)).toBe('E_UNKNOWN_ENV');
    // Closed (session 17): startServer's log writes logLine(line): a line break in a value is \u000a, never a line.
    expect(r.forgedLines, JSON.stringify(r)).toBe(0);
  }, 90_000);
});
