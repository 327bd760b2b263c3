// Red team v24 (Trust V round 6, session 21): the reward service's edges session 20 left read but not measured,
// shown against a real `envforge serve` (tests/fixtures/redteam-v24/FINDINGS.md) and asserted closed. The scripts
// run from dist/: npm run build first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { credentials, registerClients, requestClient } from '../serve/clients.js';
import { scriptRunner } from './helpers/fixture-script.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'redteam-v24');
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as Array<{
  id: string;
  status: string;
}>;
const status = (id: string) => manifest.find((e) => e.id === id)?.status;
const runScript = scriptRunner(FIXTURES);

it('every finding of the manifest is open or closed', () => {
  expect(manifest.every((e) => e.status === 'open' || e.status === 'closed')).toBe(true);
});

describe("V24-1: a client's unread answers held without a time bound, and refused to others", () => {
  it('V24-1 closed: the unread answer of the client holding the most is dropped for the honest one', async () => {
    expect(status('V24-1')).toBe('closed');
    // Two hostile tokens leave ~56 MB sample answers unread under a 128 MB budget; the honest token's ~28 MB answer
    // reclaims the first (closed short), where it was refused 503 E_OVERLOADED, and stayed refused, before the fix.
    const r = await runScript('unread-answers.mjs', ['4096', '0', '1000'], 240_000);
    expect(r.hostile, JSON.stringify(r)).toEqual(['200', '200']);
    expect(r.honestNow).toMatchObject({ status: '200', code: null });
    expect((r.hostileCutShort as boolean[])[0]).toBe(true);
    expect(r.honestLater).toMatchObject({ status: '200' });
  }, 300_000);
});

describe('V24-2: episode journals bounded by count, not bytes', () => {
  it("V24-2 closed: --max-journal-bytes bounds the journals' bytes; the honest client's episode stays", async () => {
    expect(status('V24-2')).toBe('closed');
    const r = await runScript('journal-bytes.mjs', ['8', '45', '65536', '40000'], 240_000);
    // 8 journals of ~9.8 KB each (88 KB unbounded before the fix) are held under 40,000 bytes (headers uncounted).
    expect(r.journalBytes as number, JSON.stringify(r)).toBeLessThanOrEqual(40_000 + 9 * 1_024);
    expect(r.journalFiles as number).toBeLessThan(9);
    expect(r.honestEpisodeAfter).toBe(200);
  }, 300_000);

  it('V24-2 control: without a byte bound the same client keeps every journal', async () => {
    const r = await runScript('journal-bytes.mjs', ['8', '45', '65536', String(2 ** 40)], 240_000);
    expect(r.journalFiles, JSON.stringify(r)).toBe(9);
    expect(r.journalBytes as number).toBeGreaterThan(70_000);
  }, 300_000);
});

describe('V24-3: proxy headers name no client', () => {
  it('X-Forwarded-For, X-Real-IP and Forwarded are ignored: the principal is the connection address', async () => {
    const app = Fastify({ logger: false });
    registerClients(app, credentials());
    app.get('/who', async (request) => ({ principal: requestClient(request).principal }));
    try {
      for (const headers of [
        { 'x-forwarded-for': '203.0.113.9' },
        { 'x-real-ip': '198.51.100.4' },
        { forwarded: 'for=192.0.2.60;proto=http' },
        { 'x-forwarded-for': '2001:db8:5::1, 203.0.113.9' },
      ]) {
        const r = await app.inject({ method: 'GET', url: '/who', headers, remoteAddress: '192.0.2.1' });
        expect(r.json(), JSON.stringify(headers)).toEqual({ principal: '192.0.2.1' });
      }
    } finally {
      await app.close();
    }
  });
});

describe("V24-4: an OpenEnv WebSocket's unread answers charged to no budget", () => {
  // ws-unread.mjs measures RSS, which does not fall back after GC: the budget's accounting is asserted instead, on
  // serveConnection itself, in tests/openenv-ws-budget.test.ts (charged until the send callback, 1013 past the share).
  it('V24-4 closed: the manifest says so, and names the code it is refused with', () => {
    const entry = manifest.find((e) => e.id === 'V24-4') as { status: string; code?: string };
    expect(entry.status).toBe('closed');
    expect(entry.code).toMatch(/1013/);
  });
});
