// A step's journal line goes out beside its rollout (not after it), so a step the sandbox never ran (a 503)
// must take its line back: after a restart the episode stands where the client was told it stands, and the
// turn can be sent again with another action. The journal reads a retraction, and a turn written again.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitEpisodicSeeds, type EpisodicSeed } from '../bench/episodic-library.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { runRollouts } from '../sandbox/rollouts.js';
import { EpisodeJournal, newEpisodeId } from '../serve/episode-journal.js';
import { startServer } from '../serve/server.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const response = await fetch(base + path, {
    method,
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const dir = mkdtempSync(join(tmpdir(), 'envforge-step-journal-'));
let pool: SandboxPool;
let seed: EpisodicSeed;

beforeAll(async () => {
  pool = new SandboxPool({ workers: 1 });
  const library = SqliteLibrary.open(dir, { create: true });
  seed = (await admitEpisodicSeeds(library, pool))[0] as EpisodicSeed;
  await library.close();
}, 60_000);
afterAll(async () => {
  await pool?.close();
});

describe('a step the sandbox did not run', () => {
  it('leaves the journal as it was: after a restart the episode is at the turn before, and that ' +
    'turn takes another action', {
    timeout: 60_000,
  }, async () => {
    const [plan] = (
      await runRollouts(pool, seed.source, seed.meta, [
        { seed: 16, level: 1, policy: { type: 'act' }, observations: true },
      ])
    ).rollouts;
    if (!plan?.ok || plan.actions.length < 3) throw new Error('the reference rollout should take at least three turns');
    const first = await startServer({ libraryDir: dir, port: 0, pool });
    const id = (await call(first.url, 'POST', '/v1/episodes', { env: seed.name, seed: 16, level: 1 })).body
      .episode as string;
    expect(
      (await call(first.url, 'POST', `/v1/episodes/${id}/step`, { ...(plan.actions[0] as object), turn: 1 })).status,
    ).toBe(200);
    // The sandbox fails the next job (as a dead worker would): the step is a 503 and nothing changed.
    const together = pool.runTogether.bind(pool);
    pool.runTogether = (requests) => {
      pool.runTogether = together;
      return requests.map(() => Promise.reject(new Error('injected: the worker died')));
    };
    const failed = await call(first.url, 'POST', `/v1/episodes/${id}/step`, { tool: 'not-the-reference', turn: 2 });
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('E_SANDBOX');
    expect((await call(first.url, 'GET', `/v1/episodes/${id}`)).body).toMatchObject({ turn: 1, done: false });
    await first.close();
    const second = await startServer({ libraryDir: dir, port: 0, pool });
    try {
      expect((await call(second.url, 'GET', `/v1/episodes/${id}`)).body).toMatchObject({ turn: 1, done: false });
      const again = await call(second.url, 'POST', `/v1/episodes/${id}/step`, {
        ...(plan.actions[1] as object),
        turn: 2,
      });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.observation).toBe(plan.observations?.[1]);
    } finally {
      await second.close();
    }
  });
});

describe('the journal read back', () => {
  it('drops a retracted last turn, and lets a later line for a turn replace it and what followed', async () => {
    const journal = new EpisodeJournal(mkdtempSync(join(tmpdir(), 'envforge-journal-')), 60_000);
    const identity = { env: 'e', version: 1, seed: 1, level: 1 };
    const id = newEpisodeId(identity);
    journal.create(id, { ...identity, hash: 'h' });
    journal.append(id, 1, { tool: 'a' });
    journal.append(id, 2, { tool: 'never ran' });
    journal.retract(id, 2);
    expect((await journal.read(id))?.actions).toEqual([{ tool: 'a' }]);
    journal.append(id, 2, { tool: 'b' });
    journal.append(id, 3, { tool: 'c' });
    journal.retract(id, 2); // not the last turn: ignored
    expect((await journal.read(id))?.actions).toEqual([{ tool: 'a' }, { tool: 'b' }, { tool: 'c' }]);
    journal.append(id, 3, { tool: 'c again' }); // its retraction could not be written: the step was sent again
    journal.append(id, 4, { tool: 'd' });
    expect((await journal.read(id))?.actions).toEqual([
      { tool: 'a' },
      { tool: 'b' },
      { tool: 'c again' },
      { tool: 'd' },
    ]);
    expect(readdirSync(journal.dir)).toHaveLength(1);
    await journal.settle();
  });
});
