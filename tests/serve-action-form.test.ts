// V27-2 (tests/fixtures/redteam-v27): an action has one form wherever the service holds it (canonicalAction, made
// once before step sees it): a retry of a call sent bare, with its keys in another order or with args {} is the same
// turn live, after an eviction with and without a snapshot, after a restart, and on a journal written in another form.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitEpisodic, type EpisodicSeed } from '../bench/episodic-library.js';
import { hashSource } from '../contract/hash.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { canonicalAction, isRefused } from '../serve/action-limits.js';
import { EpisodeJournal, newEpisodeId } from '../serve/episode-journal.js';
import { EpisodeSnapshots } from '../serve/episode-snapshots.js';
import type { RunningServer } from '../serve/options.js';
import { startServer } from '../serve/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const call = async (base: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(base + path, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : null) as Json };
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const HOTEL = join(import.meta.dirname, 'fixtures', 'episodic', 'good-hotel-checkin.js');
const dir = mkdtempSync(join(tmpdir(), 'envforge-action-form-'));
let pool: SandboxPool;
let hotel: EpisodicSeed;

beforeAll(async () => {
  pool = new SandboxPool({ workers: 1 });
  const library = SqliteLibrary.open(dir, { create: true });
  hotel = (
    await admitEpisodic(library, pool, [{ name: 'hotel', source: readFileSync(HOTEL, 'utf8') }])
  )[0] as EpisodicSeed;
  await library.close();
}, 60_000);
afterAll(async () => {
  await pool?.close();
});

/** One call of a tool without parameters written three ways, and one with them written two ways. */
const BARE = [{ tool: 'list_arrivals' }, { args: {}, tool: 'list_arrivals' }, { tool: 'list_arrivals', args: {} }];
const ROOMS = [
  { tool: 'list_rooms', args: { floor: 1 } },
  { args: { floor: 1 }, tool: 'list_rooms' },
];

describe('canonicalAction', () => {
  it('gives every way of writing one call the same text, and is its own form', () => {
    const tools = hotel.meta.tools;
    const forms = [...BARE, ...ROOMS].map((a) => JSON.stringify(canonicalAction(tools, a)));
    expect(new Set(forms.slice(0, 3)).size).toBe(1);
    expect(new Set(forms.slice(3)).size).toBe(1);
    expect(forms[0]).toBe('{"args":{},"tool":"list_arrivals"}');
    for (const f of forms) expect(JSON.stringify(canonicalAction(tools, JSON.parse(f)))).toBe(f);
  });

  it('keeps the values of a call the check refuses, keys sorted; a stand-in over the limits stays refused', () => {
    const tools = hotel.meta.tools;
    const unknown = canonicalAction(tools, { tool: 'nope', args: { b: 1, a: 2 } });
    expect(JSON.stringify(unknown)).toBe('{"args":{"a":2,"b":1},"tool":"nope"}');
    // a call its schema refuses keeps what was sent (no args {} added: step never sees it)
    expect(canonicalAction(tools, { tool: 'list_rooms' })).toEqual({ tool: 'list_rooms' });
    const over = canonicalAction(tools, { tool: 'list_rooms', args: { floor: 'x'.repeat(20_000) } });
    expect(isRefused(over)).toBe(true);
    expect(canonicalAction(tools, over)).toEqual(over);
  });
});

describe('a retry is the same turn whichever way its call was written (V27-2)', () => {
  const episodes = mkdtempSync(join(tmpdir(), 'envforge-action-form-episodes-'));
  const journal = new EpisodeJournal(episodes, 60_000);
  const start = (idle = 60_000): Promise<RunningServer> =>
    startServer({ libraryDir: dir, port: 0, pool, episodesDir: episodes, sessionIdleMs: idle });

  /** Every retry of turns 1 and 2, in every form: each the stored turn, none a conflict. */
  const retries = async (url: string, id: string) => {
    const answers = [];
    for (const a of BARE) answers.push(await call(url, 'POST', `/v1/episodes/${id}/step`, { ...a, turn: 1 }));
    for (const a of ROOMS) answers.push(await call(url, 'POST', `/v1/episodes/${id}/step`, { ...a, turn: 2 }));
    return answers.map((a) => [a.status, a.body?.replayed ?? a.body?.error?.code]);
  };
  const allReplayed = Array.from({ length: BARE.length + ROOMS.length }, () => [200, true]);
  const view = async (url: string, id: string) => (await call(url, 'GET', `/v1/episodes/${id}`)).body;
  /** Whether the snapshot on disk belongs to the journal's actions as written there. */
  const snapshotFits = async (id: string) => {
    const entry = await journal.read(id);
    return (await new EpisodeSnapshots(journal).load(id, entry?.actions ?? [])) !== null;
  };

  it('live, after a restart, and after evictions with and without a snapshot', { timeout: 90_000 }, async () => {
    let server = await start();
    const id = (await call(server.url, 'POST', '/v1/episodes', { env: hotel.name, seed: 7, level: 2 })).body.episode;
    for (const [turn, a] of [BARE[0], ROOMS[1]].entries())
      expect((await call(server.url, 'POST', `/v1/episodes/${id}/step`, { ...a, turn: turn + 1 })).status).toBe(200);
    expect(await retries(server.url, id)).toEqual(allReplayed);
    // the comparison still tells another action: turn 2 sent without its floor is a conflict
    const other = await call(server.url, 'POST', `/v1/episodes/${id}/step`, { tool: 'list_rooms', turn: 2 });
    expect([other.status, other.body.error.code]).toEqual([409, 'E_TURN_CONFLICT']);
    const live = await view(server.url, id);
    await server.close();

    // a restart: the session rebuilt by a replay of its journal holds what the live one held
    server = await start(300);
    try {
      expect(await retries(server.url, id)).toEqual(allReplayed);
      expect(await view(server.url, id)).toEqual(live);
      // idle past its time: evicted with a snapshot that belongs to its journal
      await sleep(1_200);
      expect(await snapshotFits(id)).toBe(true);
      expect(await retries(server.url, id)).toEqual(allReplayed);
      expect(await view(server.url, id)).toEqual(live);
      // evicted again, its snapshot gone (a refused write, a lost file): rebuilt by a replay
      await sleep(1_200);
      rmSync(journal.snapshotFile(id), { force: true });
      expect(await retries(server.url, id)).toEqual(allReplayed);
      expect(await view(server.url, id)).toEqual(live);
      expect((await call(server.url, 'POST', `/v1/episodes/${id}/step`, { ...BARE[1], turn: 3 })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('on a journal that holds its calls as they were sent (written before the one form)', {
    timeout: 60_000,
  }, async () => {
    const identity = { env: hotel.name, version: 1, seed: 9, level: 2 };
    const id = newEpisodeId(identity);
    await journal.create(id, { ...identity, hash: hashSource(hotel.source) });
    await journal.append(id, 1, { tool: 'list_arrivals' });
    await journal.append(id, 2, { args: { floor: 1 }, tool: 'list_rooms' });
    const server = await start(300);
    try {
      expect(await retries(server.url, id)).toEqual(allReplayed);
      await sleep(1_200); // evicted: its snapshot is of the one form, and a resume reads it
      const entry = await journal.read(id);
      const actions = (entry?.actions ?? []).map((a) => canonicalAction(hotel.meta.tools, a));
      expect(await new EpisodeSnapshots(journal).load(id, actions)).not.toBeNull();
      expect(await retries(server.url, id)).toEqual(allReplayed);
    } finally {
      await server.close();
    }
  });
});
