// Scoring the sessions one client ends never delays another client's opens and steps (rt-final H5): before,
// those scorings ran in their module's dispatcher slot (at most two groups at once), so another client's
// open of the same environment waited in that slot's queue until one finished, with a worker idle; now they
// go by a lane of their own (serve/scoring-lane.ts) that holds at most all workers but one.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitEpisodic } from '../bench/episodic-library.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool, type RunRequest } from '../sandbox/pool.js';
import type { RunningServer } from '../serve/options.js';
import { startServer } from '../serve/server.js';

// score() is slow (seconds); reset and a `look` step are quick.
const none = "parameters: { type: 'object', properties: {}, additionalProperties: false }";
const source = `export const meta = { name: 'slow-score', title: 'Slow score', description: 'Look, then finish.',
  skills: ['tool-use'], levels: 3, kind: 'episodic', maxTurns: 6,
  tools: [{ name: 'look', description: 'Look.', ${none} }, { name: 'finish', description: 'End.', ${none} }] };
export function reset(rng, level) { return { state: { finished: false }, prompt: 'Look, then finish.' }; }
export function step(state, action) {
  if (action.tool === 'finish') return { state: { finished: true }, observation: 'Done.', done: true };
  return { state: { finished: false }, observation: 'Nothing here.', done: false };
}
export function score(state) {
  let acc = 0;
  for (let i = 0; i < 60000000; i++) acc = (acc * 31 + i) % 1000003;
  return state.finished ? 1 : 0;
}
export function act(state) { return { tool: 'finish', args: {} }; }`;

const dir = mkdtempSync(join(tmpdir(), 'envforge-ending-lane-'));
let pool: SandboxPool;
let server: RunningServer;
/** Scorings of ended sessions (a rollout from a held state with no action) that reached the sandbox pool. */
let scoringsInPool = 0;

beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  const library = SqliteLibrary.open(dir, { create: true });
  await admitEpisodic(library, pool, [{ name: 'slow-score', source }]);
  await library.close();
  const isScoring = (r: RunRequest) =>
    (r.calls ?? []).some(
      (c) =>
        c.op === 'rollout' &&
        c.rollout?.from &&
        c.rollout.policy.type === 'replay' &&
        c.rollout.policy.actions.length === 0 &&
        !c.rollout.scoreAtEnd,
    );
  const [run, together] = [pool.run.bind(pool), pool.runTogether.bind(pool)];
  pool.run = ((r: RunRequest, convert?: never) => {
    if (isScoring(r)) scoringsInPool++;
    return run(r, convert as never);
  }) as typeof pool.run;
  pool.runTogether = (rs: RunRequest[]) => {
    scoringsInPool += rs.filter(isScoring).length;
    return together(rs);
  };
  // Both workers started and holding the module, so no open waits for a worker to start.
  await Promise.all([1, 2].map(() => pool.load(source)));
  server = await startServer({ libraryDir: dir, port: 0, pool, maxSessions: 16, callTimeoutMs: 60_000 });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await pool?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
async function call(
  who: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Json }> {
  const r = await fetch(server.url + path, {
    method,
    headers: { 'x-envforge-client': who, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}
const open = (who: string, seed: number) => call(who, 'POST', '/v1/episodes', { env: 'slow-score', seed, level: 1 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('scoring the sessions a client ends', () => {
  it("never delays another client's open and step of the same environment", async () => {
    const events: string[] = [];
    const ids: string[] = [];
    for (const seed of [1, 2, 3]) ids.push((await open('A', seed)).body.episode);
    // A ends its three sessions one after another (each in a request of its own): each is scored slowly.
    const ends = ids.map(async (id, i) => {
      await sleep(40 * i);
      const r = await call('A', 'DELETE', `/v1/episodes/${id}`);
      events.push('A end');
      return r;
    });
    while (scoringsInPool === 0) await sleep(10); // A's first scoring runs
    await sleep(200); // and its others have arrived
    const b = await open('B', 4);
    events.push('B open');
    const step = await call('B', 'POST', `/v1/episodes/${b.body.episode}/step`, { tool: 'look' });
    events.push('B step');
    const ended = await Promise.all(ends);
    expect([b.status, step.status, step.body.observation]).toEqual([200, 200, 'Nothing here.']);
    expect(ended.map((r) => [r.status, r.body.end, r.body.score])).toEqual(Array(3).fill([200, 'truncated', 0]));
    // B was answered while every one of A's scorings was still going or waiting its turn.
    expect(events).toEqual(['B open', 'B step', 'A end', 'A end', 'A end']);
  }, 120_000);
});
