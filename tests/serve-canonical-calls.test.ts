// Canonical calls (issue 28): the host sorts an action's keys at every depth before step sees it, on every
// path. A module that echoes the key order it was handed (and pays a backdoor when an optional key comes
// first) sees the same call whatever order a client wrote: over HTTP sessions, stateless log scoring, the
// OpenEnv WebSocket and in-process replay (validation, play, exports' reference rollouts).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { admitEpisodic, type EpisodicSeed } from '../bench/episodic-library.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { runRollouts, type Rollout } from '../sandbox/rollouts.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { startServer } from '../serve/server.js';
import type { RunningServer } from '../serve/options.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
const source = readFileSync(new URL('./fixtures/episodic/covert-key-order.js', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'envforge-canonical-'));
let pool: SandboxPool;
let server: RunningServer;
let env: EpisodicSeed;

beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  const library = SqliteLibrary.open(dir, { create: true });
  [env] = (await admitEpisodic(library, pool, [{ name: 'covert-key-order', source }])) as [EpisodicSeed];
  await library.close();
  server = await startServer({ libraryDir: dir, port: 0, pool });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await pool?.close();
});

/** POSTs a body written as raw text, so the key order on the wire is exactly the one given. */
async function post(path: string, raw: string): Promise<Json> {
  const response = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw,
  });
  expect(response.status).toBe(200);
  return response.json();
}

/** The first claim's id of an episode (its listing), and the backdoor call: the memo key first, a wrong amount. */
async function firstClaim(seed: number): Promise<string> {
  const [r] = (
    await runRollouts(pool, source, env.meta, [
      { seed, level: 1, policy: { type: 'replay', actions: [{ tool: 'list_claims', args: {} }] }, observations: true },
    ])
  ).rollouts as [Rollout];
  return /^(C\d+):/.exec(r.observations?.[0] ?? '')?.[1] as string;
}
const memoFirst = (claim: string) => `{"tool":"pay_claim","args":{"memo":"x","claim":"${claim}","amount":1}}`;
const sorted = (claim: string) => `{"args":{"amount":1,"claim":"${claim}","memo":"x"},"tool":"pay_claim"}`;
const close = '{"tool":"close_desk","args":{}}';

describe('a call reaches step with its keys sorted, whatever order the client wrote', () => {
  it('over HTTP sessions: the same observation for both orders, and the backdoor log is not paid', {
    timeout: 60_000,
  }, async () => {
    const claim = await firstClaim(3);
    const outcomes = [];
    for (const call of [memoFirst(claim), sorted(claim)]) {
      const { episode } = await post('/v1/episodes', JSON.stringify({ env: env.name, seed: 3, level: 1 }));
      const paid = await post(`/v1/episodes/${episode}/step`, call);
      const closed = await post(`/v1/episodes/${episode}/step`, close);
      outcomes.push({ observation: paid.observation, score: closed.score });
    }
    expect(outcomes[0]).toEqual(outcomes[1]);
    expect(outcomes[0]).toEqual({ observation: `keys amount,claim,memo; paid ${claim}`, score: 0 });
  });

  it('in stateless scoring of a log, and over the OpenEnv WebSocket', { timeout: 60_000 }, async () => {
    const claim = await firstClaim(5);
    const scored = await post(
      '/v1/episodes/score',
      `{"env":"${env.name}","seed":5,"level":1,"actions":[${memoFirst(claim)},` +
        `${memoFirst(claim)},${memoFirst(claim)}]}`,
    );
    expect(scored.score).toBe(0);
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/openenv/${env.name}/ws`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const send = (text: string) =>
      new Promise<Json>(
        (resolve) => (socket.once('message', (data) => resolve(JSON.parse(String(data)))), socket.send(text)),
      );
    try {
      await send('{"type":"reset","data":{"seed":5,"level":1}}');
      const stepped = await send(`{"type":"step","data":${memoFirst(claim)}}`);
      expect(stepped.data.observation.text).toBe(`keys amount,claim,memo; paid ${claim}`);
      expect((await send(`{"type":"step","data":${close}}`)).data.reward).toBe(0);
    } finally {
      socket.close();
    }
  });

  it('in in-process replay, which records the canonical call in its log', { timeout: 60_000 }, async () => {
    const claim = await firstClaim(7);
    const actions = [JSON.parse(memoFirst(claim)), JSON.parse(close)];
    const [r] = (
      await runRollouts(pool, source, env.meta, [
        { seed: 7, level: 1, policy: { type: 'replay', actions }, observations: true },
      ])
    ).rollouts as [Rollout];
    expect([r.observations?.[0], r.score]).toEqual([`keys amount,claim,memo; paid ${claim}`, 0]);
    expect(JSON.stringify(r.actions[0])).toBe(sorted(claim));
  });

  it('sorts nested objects too, and leaves a refused call as it was sent', () => {
    const tools = [
      {
        name: 't',
        description: 'd',
        parameters: {
          type: 'object',
          properties: {
            o: {
              type: 'object',
              properties: {
                b: { type: 'integer' },
                a: {
                  type: 'array',
                  items: { type: 'object', properties: { z: { type: 'integer' }, y: { type: 'integer' } } },
                },
              },
            },
          },
        },
      },
    ];
    const rt = loadPlainRuntime().episodic;
    const ok = rt.normaliseAction(tools, { tool: 't', args: { o: { b: 1, a: [{ z: 2, y: 3 }] } } });
    expect([ok.problem, JSON.stringify(ok.action)]).toEqual([
      null,
      '{"args":{"o":{"a":[{"y":3,"z":2}],"b":1}},"tool":"t"}',
    ]);
    const refused = { tool: 't', args: { q: 1 } };
    expect(rt.normaliseAction(tools, refused)).toEqual({
      problem: 'args.q is not a declared argument',
      action: refused,
    });
  });
});
