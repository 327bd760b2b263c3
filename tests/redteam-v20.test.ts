// Red team v20 (Trust V, session 16): each open finding of tests/fixtures/redteam-v20/FINDINGS.md asserted still there,
// so the suite stays green while it is open and fails the day a fix closes it (then flip its manifest entry to "closed"
// and turn the assertion into the fix's own, as V20-4 and V20-5 are). The scripts run from dist/: npm run build first.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptRunner } from './helpers/fixture-script.js';
import { describe, expect, it, vi } from 'vitest';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { startServer } from '../serve/server.js';
import type { IncidentRecord } from '../library/contract.js';
import { IncidentLog } from '../library/quarantine.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'redteam-v20');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const manifest = JSON.parse(fixture('manifest.json')) as Array<{ id: string; status: string }>;
const closed = (id: string) => manifest.some((e) => e.id === id && e.status === 'closed');
const parseJson = JSON.parse;
const concat = Buffer.concat;

/** A fixture script's last stdout line, parsed (each prints one JSON line). */
const runScript = scriptRunner(FIXTURES);

describe.runIf(closed('V20-1'))("V20-1 closed: a client's unfinished bodies are charged to its share", () => {
  it('V20-1: of 20 unfinished 32 MB bodies, all past the share are refused unread; it lives', async () => {
    // The same attack as when open (a 768 MB heap, a 1 GB data limit): then the service died after 12 bodies.
    const r = await runScript('held-bodies.mjs', ['20', '768', '1024'], 120_000);
    expect(r.serverExit, JSON.stringify(r)).toBeNull();
    expect(r.honestBefore).toBe(200);
    expect(r.honestDuring).toBe(200);
    expect(r.honestAfterRelease).toMatch(/^200 /);
    // The client's share (a quarter of a quarter of the heap limit, at least one body limit): one 32 MB body.
    expect(r.heldMb).toBeLessThanOrEqual(48);
    // The rest were refused before their bodies were read: answered 503, or closed with that answer lost to the reset
    // (how many answers survive depends on the machine's load, so only their kinds and one 503 are asserted).
    const early = r.refusedEarly as Record<string, number>;
    expect(Object.keys(early).filter((k) => k !== '503' && k !== 'closed')).toEqual([]);
    expect(early['503']).toBeGreaterThanOrEqual(1);
  }, 180_000);
});

describe.runIf(closed('V20-2'))("V20-2 closed: a step waits for a slice of another client's job, not all of it", () => {
  it("V20-2: another client's cheap step is answered before nearly all of a client's 64 slow steps", async () => {
    const r = await runScript('shared-job-wait.mjs', ['64', '22'], 240_000);
    // No call of the attacker's fails (nor is left unrun by a slice: its yielded calls ran in later jobs).
    expect(r.attackerStatuses, JSON.stringify(r)).toEqual({ 200: 64 });
    expect(r.attackerErrors).toEqual([]);
    expect((r.victimUnderAttack as { status: number }).status).toBe(200);
    // Was 64 of 64 (the victim's step answered with the job's last call). The attacker's 64 steps are alike, so a
    // crossing plays one for real and answers the rest from its memo: a job whose first call outlasts the slice ends
    // in that call, and the victim's step may come after all 64 at the cost of one call (the second fresh-clone CI of
    // session 17 saw 64 here). The count is asserted where every step runs for real: the distinct variant below.
  }, 300_000);

  it('V20-2 variant: every one of the 64 steps distinct (none served from the crossing memo), the same', async () => {
    // Was (base build, same host): the victim's step answered after all 64, 8,020 ms; each step runs for real here.
    const r = await runScript('shared-job-wait.mjs', ['64', '22', 'distinct'], 240_000);
    expect(r.attackerStatuses, JSON.stringify(r)).toEqual({ 200: 64 });
    expect((r.victimUnderAttack as { status: number }).status).toBe(200);
    expect(r.attackerBeforeVictim).toBeLessThanOrEqual(16);
  }, 300_000);
});

describe.runIf(closed('V20-3'))('V20-3 closed: large bodies are gathered and parsed off the event loop', () => {
  it('V20-3: a 2 MB body (4,000 items) is answered, never concatenated or parsed on the loop', async () => {
    const libraryDir = mkdtempSync(join(tmpdir(), 'v20-3-'));
    await SqliteLibrary.open(libraryDir, { create: true }).close();
    const server = await startServer({ libraryDir, port: 0 });
    // Everything this thread does with a body of a megabyte or more (the service runs in it, in process).
    const large: string[] = [];
    const spies = [
      vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
        if (text.length >= 2 ** 20) large.push('JSON.parse');
        return parseJson(text, reviver);
      }),
      vi.spyOn(Buffer, 'concat').mockImplementation((list: readonly Uint8Array[], length?: number) => {
        if ((length ?? list.reduce((n, b) => n + b.length, 0)) >= 2 ** 20) large.push('Buffer.concat');
        return concat(list, length);
      }),
    ];
    try {
      const post = (body: string) =>
        fetch(`${server.url}/v1/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      // 4,000 items of 520 characters: a trainer's large batch
      const items = Array.from({ length: 4_000 }, (_, i) => ({
        env: 'x',
        version: 1,
        seed: i,
        level: 1,
        response: 'a'.repeat(520),
      }));
      const ok = await post(JSON.stringify({ items }));
      expect(ok.status).toBe(200);
      const { results } = (await ok.json()) as { results: Array<{ error?: { code: string } }> };
      expect(results.map((r) => r.error?.code)).toEqual(items.map(() => 'E_UNKNOWN_ENV'));
      // Parity with fastify's parser: not JSON, or a __proto__ key, is a 400 however large.
      const bad = await post(`{"items":[${' '.repeat(2 ** 20)}`);
      expect([bad.status, ((await bad.json()) as { error: { code: string } }).error.code]).toEqual([
        400,
        'E_BAD_REQUEST',
      ]);
      const proto = await post(`{"__proto__":{"x":1},"items":"${'b'.repeat(2 ** 20)}"}`);
      expect(proto.status).toBe(400);
      expect(large).toEqual([]);
    } finally {
      for (const spy of spies) spy.mockRestore();
      await server.close();
    }
  }, 60_000);
});

describe("V20-4 closed: a client's own incidents cannot push a quarantine's evidence out", () => {
  it("V20-4: one client's flood (retention 20) leaves trip-check quarantined, its evidence kept", async () => {
    const r = await runScript('evidence-flood.mjs', ['2', '300', '20'], 300_000);
    expect(r.tripCheckBefore, JSON.stringify(r)).toBe('409 E_QUARANTINED');
    // The client's requests make incidents of its own through the service (what the flood is made of).
    expect(r.incidentsFromClientRequests).toBe(2);
    expect(r.realShape).toEqual({ code: 'E_TIMEOUT', fn: 'step(action log)', confirmed: true, hasClient: true });
    // Fixed: retention is per version and client and drops only that client's own input failures (its newest 20
    // kept, and its first confirmed one of the code); the tripwire stays, and the quarantine is a stored state.
    expect(r.clientIncidentsKept).toBe(21);
    expect(r.tripEvidenceLeft).toBe(1);
    expect(r.tripCheckAfter).toBe('409 E_QUARANTINED');
    expect(r.quarantinesStored).toEqual(['trip-check']);
  }, 320_000);

  it('V20-4 variant: a flood before the verdict, of every shape, erases none of its evidence', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'v20-4-variant-'));
    const library = SqliteLibrary.open(dir, { create: true, incidentRetention: 5 });
    try {
      const x = 'd'.repeat(64);
      const at = (client: string, fn: string, code: string, confirmed: boolean, seed = 1) =>
        library.recordIncident({
          hash: x,
          name: 'x',
          version: 1,
          seed,
          level: 1,
          code,
          fn,
          message: 'm',
          origin: 'serve',
          confirmed,
          client,
        });
      // Short of a verdict: two of the environment's own unconfirmed time-outs, two clients' confirmed votes.
      await at('c1', 'generate', 'E_TIMEOUT', false);
      await at('c2', 'generate', 'E_TIMEOUT', false);
      await at('c2', 'verify(response)', 'E_THROWN', true);
      await at('c3', 'step(action log)', 'E_THROWN', true);
      // Voters and a stranger flood their own input failures of every code and fn they can reach, unconfirmed and
      // confirmed (the voters theirs again, the stranger any code but the voters': no third vote on any code).
      const codes = ['E_TIMEOUT', 'E_THROWN', 'E_TOO_LARGE', 'E_STATE_TOO_LARGE'];
      for (let i = 0; i < 200; i++) {
        const client = ['c2', 'c3', 'c4'][i % 3] as string;
        const code = codes[i % 4] as string;
        const confirmed = i % 5 === 0 && (client === 'c4') === (code !== 'E_THROWN');
        await at(client, i % 2 ? 'verify(response)' : 'step(action log)', code, confirmed, i);
      }
      const open = await library.incidents({ hash: x, open: true });
      expect(open.filter((i) => i.fn === 'generate')).toHaveLength(2);
      expect(new Set(open.filter((i) => i.code === 'E_THROWN' && i.confirmed).map((i) => i.client))).toEqual(
        new Set(['c2', 'c3']),
      );
      expect(open.length).toBeLessThan(3 * (5 + codes.length) + 4); // each client's own kept to its retention
      expect(await library.quarantines()).toEqual([]);
      // Either rule's last piece now decides it, and the verdict is stored.
      await at('c5', 'verify(response)', 'E_THROWN', true);
      expect((await library.quarantines()).map((q) => q.reason)).toEqual([
        expect.stringMatching(/3 independent clients made it fail with E_THROWN/),
      ]);
    } finally {
      await library.close();
    }
  });
});

describe("V20-5 closed: an item's quarantine check is one lookup", () => {
  it('V20-5: after a refresh, checks read none of the 1,000 client incidents of the environment', () => {
    const hash = 'a'.repeat(64);
    let reads = 0;
    const rows = Array.from({ length: 1_000 }, (_, i) => {
      const row = { hash, name: 'last-number', version: 1, seed: i, level: 1, fn: 'verify(response)', message: 'm' };
      Object.assign(row, { origin: 'serve', confirmed: true, client: 'c0', id: i + 1, createdAt: '', resolved: null });
      // Every read of an incident's code is counted.
      Object.defineProperty(row, 'code', { enumerable: true, get: () => (reads++, 'E_TIMEOUT') });
      return row as unknown as IncidentRecord;
    });
    const log = new IncidentLog(join(FIXTURES, 'no-library'), 'serve', true, () => {});
    log.refresh(rows);
    expect(log.quarantined(hash)).toBeNull(); // one client's incidents: not quarantined, as designed
    reads = 0;
    for (let i = 0; i < 8_192; i++) log.quarantined(hash); // one GRPO request's items
    // Fixed: the verdict was decided when the evidence came (refresh), not per item.
    expect(reads).toBe(0);
  });
});
