// Red team v25 (Trust V round 7, session 22): scripts against a real `envforge serve`
// (tests/fixtures/redteam-v25/FINDINGS.md); each open finding is asserted still decided wrong. npm run build first.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptRunner } from './helpers/fixture-script.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'redteam-v25');
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as Array<{
  id: string;
  status: string;
}>;
const status = (id: string) => manifest.find((e) => e.id === id)?.status;
const runScript = scriptRunner(FIXTURES);

it('every finding of the manifest is open or closed', () => {
  expect(manifest.every((e) => e.status === 'open' || e.status === 'closed')).toBe(true);
});

describe('V25-1: an answer being read is reclaimed as unread', () => {
  it('control: without the hostile the honest 55 MB sample answer is read whole', async () => {
    const r = await runScript('reclaim-reading.mjs', ['control', '4000', '0', '64'], 120_000);
    expect(r.honest, JSON.stringify(r)).toMatchObject({ status: '200', complete: true });
  }, 150_000);

  it('V25-1 open: a hostile request of headers only cuts the honest answer mid-transfer', async () => {
    expect(status('V25-1')).toBe('open');
    const r = await runScript('reclaim-reading.mjs', ['attack', '4000', '0', '64'], 120_000);
    expect(r.honest, JSON.stringify(r)).toMatchObject({ status: '200', complete: false });
  }, 150_000);
});

describe('V25-2: sessions bounded by count, not bytes, in memory', () => {
  it('control: 300 idle sessions of a large state fit a 128 MB heap; the honest episode is served', async () => {
    const r = await runScript('session-memory.mjs', ['300', '0', '3', '128', '8'], 150_000);
    expect(r.serverExit, JSON.stringify(r)).toBeNull();
    expect(r.honestEpisodeAfter).toBe(200);
  }, 180_000);

  it('V25-2 closed: 1,000 idle sessions of a large state within a 128 MB heap: the service lives', async () => {
    expect(status('V25-2')).toBe('closed');
    const r = await runScript('session-memory.mjs', ['1000', '0', '3', '128', '8'], 270_000);
    // Closed (session-memory.ts): past the sessions' heap budget the client's idle sessions go back to their
    // journals (resumable), so every create is served and the process holds what its heap allows.
    expect(r.serverExit, JSON.stringify(r)).toBeNull();
    expect(r.statuses).toEqual({ 'create 200': 1000 });
    expect(r.honestEpisodeAfter).toBe(200);
  }, 300_000);
});

describe('V25-3: one more session, and every step is a replay', () => {
  // The finding is a cost (every step replays its episode from reset), measured by hand in round times; timings are
  // not asserted here. What is asserted: the other client's create is served and no honest step is refused, so the
  // cost is all there is to see from outside (FINDINGS.md has the figures).
  // Closed: a resume reads the snapshot written at eviction (episode-snapshots.ts) and takes back the client's most
  // recently used idle session; that no turn is replayed is asserted in tests/session-memory.test.ts.
  it("V25-3 closed: the honest trainer is served through another client's arrival, every step 200", async () => {
    expect(status('V25-3')).toBe('closed');
    const r = await runScript('slot-thrash.mjs', ['other', '8', '20', '2'], 150_000);
    expect(r.otherCreate, JSON.stringify(r)).toBe(200);
    expect(r.statuses).toEqual({ 200: 8 * 24 });
  }, 180_000);
});

describe('V25-4: a WebSocket frame still arriving is charged to no one', () => {
  it('V25-4 open: 200 partial frames (50 MB) unseen by a 64 MB budget: an honest 15 MB body beside them', async () => {
    expect(status('V25-4')).toBe('open');
    const r = await runScript('ws-partial-frames.mjs', ['200', '262143', '64', '15'], 120_000);
    expect(r.statuses, JSON.stringify(r)).toEqual({ 101: 200 });
    expect(r.honestVerify).toBe(200);
    // A budget that charged them would have closed some (1013 past the share) or reclaimed them for the honest body.
    expect(r.stillOpenAfterHonest).toBe(200);
  }, 150_000);
});

describe('V25-5: episode ids on disk for every local account', () => {
  it('V25-5 open: the journals are world-readable; another client ends the episode by an id read there', async () => {
    expect(status('V25-5')).toBe('open');
    const r = await runScript('journal-ids.mjs', ['read'], 120_000);
    // Under the usual umask 022 (this machine's and CI's): the folder 755, the files 644.
    expect(r.othersMayRead, JSON.stringify(r)).toBe(true);
    expect(r.readIdIsVictims).toBe(true);
    expect(r.otherEnds).toEqual({ status: 200, end: 'truncated' });
    expect(r.victimNextStep).toEqual({ status: 409, code: 'E_EPISODE_OVER' });
  }, 150_000);

  it('control: an id of the same shape, guessed, opens nothing; the victim plays on', async () => {
    const r = await runScript('journal-ids.mjs', ['control'], 120_000);
    expect(r.otherEnds, JSON.stringify(r)).toEqual({ status: 404, end: 'E_UNKNOWN_EPISODE' });
    expect(r.victimNextStep).toEqual({ status: 200, code: null });
  }, 150_000);
});

describe("V25-6: the exports' client does not retry an answer cut short", () => {
  it('V25-6 open: a cut step raises IncompleteRead, later steps are 409, the service is a turn ahead', async () => {
    expect(status('V25-6')).toBe('open');
    const r = await runScript('cut-step.mjs', ['cut'], 120_000);
    const calls = r.client as Record<string, { raised?: string; status?: number }>;
    expect(calls['step 2 (answer cut)'], JSON.stringify(r)).toEqual({ raised: 'http.client.IncompleteRead' });
    expect(calls['step 3']).toMatchObject({ raised: 'EnvforgeServiceError', status: 409 });
    expect(r.service).toMatchObject({ turn: 2, actions: ['list_arrivals', 'list_rooms'] });
  }, 150_000);

  it('control: without the cut the client plays all four steps', async () => {
    const r = await runScript('cut-step.mjs', ['control'], 120_000);
    expect(r.clientTurn, JSON.stringify(r)).toBe(4);
    expect((r.service as { turn: number }).turn).toBe(4);
  }, 150_000);
});

describe('real clients (held)', () => {
  it('a Python OpenEnv WebSocket client: unfinished, two calls in one turn, reused instance, resume', async () => {
    const r = await runScript('real-clients.mjs', [], 150_000);
    expect(r.unfinished, JSON.stringify(r)).toMatchObject({ status: 200, done: true, end: 'truncated', turn: 3 });
    expect(r.two_calls_one_turn).toEqual({ turns: [1, 2], types: ['observation', 'observation'] });
    expect(r.reused_instance).toEqual({ episodes: 3, ends: [true, 'truncated', 'truncated'] });
    expect(r.resumed).toEqual({ resumed: true, turn: 2 });
  }, 180_000);
});
