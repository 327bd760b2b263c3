// Red team v22 (Trust V round 4, session 19): each open finding of tests/fixtures/redteam-v22/FINDINGS.md asserted
// still there, so the suite stays green while it is open and fails the day a fix closes it (then flip its manifest
// entry to "closed" and turn the assertion into the fix's own). The scripts run from dist/: npm run build first.
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { scriptRunner } from './helpers/fixture-script.js';
import { describe, expect, it } from 'vitest';
import { clientAddress, LOOPBACK } from '../serve/client-address.js';
import { clientOf, credentials, incidentClient } from '../serve/clients.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'redteam-v22');
const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const manifest = JSON.parse(fixture('manifest.json')) as Array<{ id: string; status: string }>;
const status = (id: string) => manifest.find((e) => e.id === id)?.status;

/** A fixture script's last stdout line, parsed (each prints one JSON line). */
const runScript = scriptRunner(FIXTURES);

it('every finding of the manifest is open or closed', () => {
  expect(manifest.every((e) => e.status === 'open' || e.status === 'closed')).toBe(true);
});

describe("V22-1: a sample the service 'draws' at the client's environment, levels and count", () => {
  it("V22-1: one request of 8,000 draws at the failing level is that client's vote; the victim is served", async () => {
    expect(status('V22-1')).toBe('closed');
    const r = await runScript('drawn-scan.mjs', ['rare-generate.js', 'drawn', '8000'], 240_000);
    expect(r.victimBefore, JSON.stringify(r)).toEqual(['scored', 'scored']);
    expect(r.failedAt).toMatchObject({ level: 3, code: 'E_THROWN' });
    // Closed: the client sized the draw, so the failure is its vote (the service's own three draws did not meet it).
    expect(r.incidents).toEqual([
      { fn: 'instance(client seed)', code: 'E_THROWN', confirmed: true, client: expect.any(String) },
    ]);
    expect(r.victimAfter).toEqual(['scored', 'scored']);
  }, 300_000);

  it('V22-1 variant (episodic): select {env, n} without a seed meets a reset failing 1 in 10,000', async () => {
    const r = await runScript('drawn-episodic.mjs', ['rare-reset.js', '10'], 300_000);
    expect(r.victimBefore, JSON.stringify(r)).toBe(200);
    expect(r.itemsFailed).toBeGreaterThanOrEqual(1);
    expect(r.incidents).toEqual([{ fn: 'instance(client seed)', code: 'E_THROWN', confirmed: true }]);
    expect(r.victimAfter).toBe(200);
  }, 360_000);

  it('V22-1 control: the same select with a seed of the client is its vote; the victim is served', async () => {
    const r = await runScript('drawn-scan.mjs', ['rare-generate.js', 'seeded', '8000'], 240_000);
    expect(r.itemsFailed, JSON.stringify(r)).toBeGreaterThanOrEqual(1);
    expect(r.incidents).toEqual([
      { fn: 'instance(client seed)', code: 'E_THROWN', confirmed: true, client: expect.any(String) },
    ]);
    expect(r.victimAfter).toEqual(['scored', 'scored']);
  }, 300_000);

  it('V22-1 twin: the honest twin (takes the next code) fails nowhere and is served', async () => {
    const r = await runScript('drawn-scan.mjs', ['rare-generate-twin.js', 'drawn', '8000'], 240_000);
    expect(r.itemsFailed, JSON.stringify(r)).toBe(0);
    expect(r.incidents).toEqual([]);
    expect(r.victimAfter).toEqual(['scored', 'scored']);
  }, 300_000);
});

describe('V22-2: an answer nobody reads is charged to no one', () => {
  it("V22-2: unread /v1/sample answers hold their client's share, and past it the client is refused", async () => {
    expect(status('V22-2')).toBe('closed');
    const r = await runScript('slow-reader.mjs', ['unread', '8', '8192', '0'], 400_000);
    // Closed: the first ~107 MB answer is the client's (over its share, alone); the rest are refused 503, no growth.
    expect(r.statuses, JSON.stringify(r)).toEqual(['200', ...Array(7).fill('503')]);
    const rss = r.rssMbAfterEach as number[];
    expect((rss.at(-1) as number) - (rss[1] as number), JSON.stringify(r)).toBeLessThan(300);
    expect(r.after).toMatchObject({ health: { status: 200 }, verify: { status: 200 } });
  }, 450_000);

  it('V22-2 control: the same answers read to their end leave the service flat', async () => {
    const r = await runScript('slow-reader.mjs', ['read', '8', '8192', '0'], 400_000);
    const rss = r.rssMbAfterEach as number[];
    expect((rss.at(-1) as number) - (rss[1] as number), JSON.stringify(r)).toBeLessThan(300);
  }, 450_000);
});

describe("V22-3: the host's own addresses are other clients", () => {
  it("V22-3: one process connecting to three of its host's addresses is one voter; the victim is served", async () => {
    expect(status('V22-3')).toBe('closed');
    const r = await runScript('three-addresses.mjs', ['spread', '8000'], 240_000);
    if (r.skipped) return; // a host with fewer than three addresses (no IPv6, say) cannot show it
    expect(r.victimBefore, JSON.stringify(r)).toBe('scored');
    expect(r.votes).toEqual(['E_THROWN', 'E_THROWN']);
    // Closed: the host's addresses are its one client, and clients without a token are one voter anyway.
    expect(r.clients).toBe(1);
    expect(r.victimAfter).toBe('scored');
  }, 300_000);

  it("V22-3 (the mechanism): independence is a token; the host's own addresses are loopback", () => {
    const anonymous = (ip: string, id?: string) =>
      clientOf({ headers: id ? { 'x-envforge-client': id } : {}, ip }, credentials());
    // Clients without a token at any addresses (other hosts, other /64s) are one voter, each still its own share.
    const far = ['203.0.113.7', '198.51.100.9', '2001:db8:1:2::1', '2001:db8:9:9::1', '::ffff:192.0.2.77'];
    expect(new Set(far.map((ip) => incidentClient(anonymous(ip, ip)))).size).toBe(1);
    expect(new Set(far.map((ip) => anonymous(ip).principal)).size).toBe(far.length);
    // Client tokens stay independent of each other and of the anonymous voter.
    const known = credentials(undefined, { a: 'token-a-0123456789abcdef', b: 'token-b-0123456789abcdef' });
    const token = (t: string) =>
      incidentClient(clientOf({ headers: { authorization: `Bearer ${t}` }, ip: '::1' }, known));
    const voters = new Set([
      token('token-a-0123456789abcdef'),
      token('token-b-0123456789abcdef'),
      incidentClient(anonymous('::1')),
    ]);
    expect(voters.size).toBe(3);
    // Every address of this host's interfaces, in any spelling, is loopback for fair shares too.
    for (const list of Object.values(networkInterfaces()))
      for (const { address } of list ?? []) {
        expect(clientAddress(address), address).toBe(LOOPBACK);
        expect(clientAddress(address.toUpperCase()), address).toBe(LOOPBACK);
      }
    const v4 = Object.values(networkInterfaces())
      .flatMap((l) => l ?? [])
      .find((a) => a.family === 'IPv4' && !a.internal);
    if (v4) expect(clientAddress(`::ffff:${v4.address}`)).toBe(LOOPBACK);
  });

  it('V22-3 control: the same requests from loopback alone are one client; the victim is served', async () => {
    const r = await runScript('three-addresses.mjs', ['loopback', '8000'], 240_000);
    if (r.skipped) return;
    expect(r.clients, JSON.stringify(r)).toBe(1);
    expect(r.victimAfter).toBe('scored');
  }, 300_000);
});

describe("V22-4: a module's prose writes lines of the operator's terminal", () => {
  it("V22-4 (closed): a description's line feeds stay inside its line of library show: one hash line", async () => {
    expect(status('V22-4')).toBe('closed');
    const r = await runScript('description-show.mjs', ['description-lines.js'], 120_000);
    expect(r.admitted, JSON.stringify(r)).toBe('admitted');
    // Closed: the description's line feeds are escaped inside its own line (cli/io.ts line).
    expect(r.hashLines).toBe(1);
    expect(r.quarantineLines).toBe(0);
  }, 150_000);

  it('V22-4 control: the same words on one line stay inside the description', async () => {
    const r = await runScript('description-show.mjs', ['description-plain.js'], 120_000);
    expect(r.admitted, JSON.stringify(r)).toBe('admitted');
    expect(r.hashLines).toBe(1);
    expect(r.quarantineLines).toBe(0);
  }, 150_000);
});

describe("V22-5: a client's failing responses are kept whole, 100 per environment", () => {
  it("V22-5: 4 distinct 1 MB failing responses to each of 8 environments keep at most the client's bytes", async () => {
    expect(status('V22-5')).toBe('closed');
    const r = await runScript('incident-disk.mjs', ['nested-sum.js', '8', '4', 'victim'], 240_000);
    expect(r.codes, JSON.stringify(r)).toEqual({ E_THROWN: 32 });
    // Closed: what the flood keeps is charged to its principal (INCIDENT_CLIENT_BYTES, 16 MiB), 32 MB sent; a token
    // client's three failing responses, recorded first, stay whole; every environment keeps one whole to replay.
    expect(r.victimKept).toBe(3);
    expect(r.victimWhole).toBe(3);
    expect((r.responseMbKept as number) - 3).toBeLessThanOrEqual(16);
    expect(r.libraryMbAfter as number).toBeLessThanOrEqual(16 + 3 + 2);
    expect(r.envsWithWhole).toBe(8);
  }, 300_000);

  it('V22-5 (one shape): 8 failing alike on each of 2 environments keep 3 whole each, the rest cut', async () => {
    const r = await runScript('incident-disk.mjs', ['nested-sum.js', '2', '8'], 240_000);
    expect(r.codes, JSON.stringify(r)).toEqual({ E_THROWN: 16 });
    expect(r.incidentsKept).toBe(16); // the failures stay counted, their responses by prefix and digest
    expect(r.responsesCut).toBe(10);
    expect(r.libraryMbAfter as number).toBeLessThanOrEqual(8);
  }, 300_000);

  it('V22-5 twin: the iterative walk scores the same responses and keeps nothing', async () => {
    const r = await runScript('incident-disk.mjs', ['nested-sum-twin.js', '2', '8'], 240_000);
    expect(r.codes, JSON.stringify(r)).toEqual({ scored: 16 });
    expect(r.incidentsKept).toBe(0);
    expect(r.libraryMbAfter as number).toBeLessThan(2);
  }, 300_000);
});
