// Red team v25 (Trust V round 7, session 22): scripts against a real `envforge serve`
// (tests/fixtures/redteam-v25/FINDINGS.md); each open finding is asserted still decided wrong. npm run build first.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { scriptRunner } from './helpers/fixture-script.js';
import { PYTHON } from './helpers/python.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'redteam-v25');
const manifest = JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) as Array<{
  id: string;
  status: string;
}>;
const status = (id: string) => manifest.find((e) => e.id === id)?.status;
const runScript = scriptRunner(FIXTURES);
const CLIENT_PY = join(import.meta.dirname, '..', 'export', 'python', 'envforge_client.py');

it('every finding of the manifest is open or closed', () => {
  expect(manifest.every((e) => e.status === 'open' || e.status === 'closed')).toBe(true);
});

describe('V25-1: an answer being read is reclaimed as unread', () => {
  it('control: without the hostile the honest 55 MB sample answer is read whole', async () => {
    const r = await runScript('reclaim-reading.mjs', ['control', '4000', '0', '64'], 120_000);
    expect(r.honest, JSON.stringify(r)).toMatchObject({ status: '200', complete: true });
  }, 150_000);

  it('V25-1 closed: headers only are refused; the honest answer, being read, is read whole', async () => {
    expect(status('V25-1')).toBe('closed');
    const r = await runScript('reclaim-reading.mjs', ['attack', '4000', '20', '64'], 120_000);
    expect(r.honest, JSON.stringify(r)).toMatchObject({ status: '200', complete: true });
    expect(r.hostile).toBe('503');
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
  it('V25-4 closed: partial frames past the share closed; an honest 15 MB body served beside the rest', async () => {
    expect(status('V25-4')).toBe('closed');
    const r = await runScript('ws-partial-frames.mjs', ['200', '262143', '64', '15'], 120_000);
    expect(r.statuses, JSON.stringify(r)).toEqual({ 101: 200 });
    expect(r.honestVerify).toBe(200);
    // The anonymous client's share is 32 MiB (--body-limit's default): 127 frames of 256 KiB, the rest closed 1013.
    expect(r.stillOpenAfterHonest as number).toBeLessThan(200);
    expect((r.stillOpenAfterHonest as number) * 262_143).toBeLessThanOrEqual(32 * 2 ** 20);
  }, 150_000);
});

describe('V25-5: episode ids on disk for every local account', () => {
  it('V25-5 closed: the episodes folder is 0700 and its files 0600; no other account reads an id', async () => {
    expect(status('V25-5')).toBe('closed');
    const r = await runScript('journal-ids.mjs', ['read'], 120_000);
    // Under the usual umask 022 (this machine's and CI's), whatever the umask lets through.
    expect(r.modes, JSON.stringify(r)).toEqual({ dir: '700', files: ['600'] });
    expect(r.othersMayRead).toBe(false);
    expect(r.journalFiles).toBe(2);
  }, 150_000);

  it('control: an id of the same shape, guessed, opens nothing; the victim plays on', async () => {
    const r = await runScript('journal-ids.mjs', ['control'], 120_000);
    expect(r.otherEnds, JSON.stringify(r)).toEqual({ status: 404, end: 'E_UNKNOWN_EPISODE' });
    expect(r.victimNextStep).toEqual({ status: 200, code: null });
  }, 150_000);
});

describe("V25-6: the exports' client does not retry an answer cut short", () => {
  it('V25-6 closed: a cut step retried under its turn is answered as played; service and client agree', async () => {
    expect(status('V25-6')).toBe('closed');
    const r = await runScript('cut-step.mjs', ['cut', PYTHON], 120_000);
    const calls = r.client as Record<string, { value?: string; raised?: string }>;
    // The retry carries turn 2 again: the service answers the turn it already took (the rooms of floor 1).
    expect(calls['step 2 (answer cut)']?.value, JSON.stringify(r)).toMatch(/^101 /);
    expect(calls['step 3']).not.toHaveProperty('raised');
    expect(r.clientTurn).toBe(4);
    expect(r.service).toMatchObject({
      turn: 4,
      actions: ['list_arrivals', 'list_rooms', 'list_rooms', 'list_arrivals'],
    });
  }, 150_000);

  it('V25-6 closed: an answer cut by a FIN or a reset is retried; what leaves is an EnvforgeServiceError', async () => {
    expect(status('V25-6')).toBe('closed');
    for (const mode of ['fin', 'rst']) {
      const { stdout } = await promisify(execFile)(PYTHON, [join(FIXTURES, 'cut_answer.py'), CLIENT_PY, mode], {
        timeout: 60_000,
      });
      const r = JSON.parse(stdout.trim().split('\n').at(-1) as string);
      expect(r, stdout).toMatchObject({
        raised: 'envforge_client.EnvforgeServiceError',
        isEnvforgeError: true,
        asked: 4,
      });
    }
  }, 150_000);

  it('control: without the cut the client plays all four steps', async () => {
    const r = await runScript('cut-step.mjs', ['control', PYTHON], 120_000);
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
