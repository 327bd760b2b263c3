// Episode sessions of the reward service over real sockets: sessions driven by reference (act) and random
// rollouts of every episodic seed score exactly what in-process replay scores, observation by observation;
// steps are idempotent by turn; an episode survives a server restart (HTTP and OpenEnv WebSocket); the
// session limit answers 429 + retry-after; bad input is a 4xx naming the problem; an action beyond the
// contract's limits is a rejected turn; a busy session is never evicted; a replay of slow steps resumes;
// an OpenEnv WebSocket is idempotent by turn, ends its previous episode on reset, and cuts off a non-reader;
// rewards are terminal: score() runs when an episode ends, not at every step.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { readFileSync } from 'node:fs';
import { admitEpisodic, admitEpisodicSeeds, type EpisodicSeed } from '../bench/episodic-library.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { runRollouts, type Rollout, type RolloutRequest } from '../sandbox/rollouts.js';
import { startServer } from '../serve/server.js';
import type { RunningServer } from '../serve/options.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  raw?: string,
  token?: string,
): Promise<{ status: number; headers: Headers; body: Json }> {
  const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const response = await fetch(base + path, {
    method,
    ...(body !== undefined || raw !== undefined
      ? { headers: { 'content-type': 'application/json', ...auth }, body: raw ?? JSON.stringify(body) }
      : { headers: auth }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null };
}

const dir = mkdtempSync(join(tmpdir(), 'envforge-episodes-'));
let pool: SandboxPool;
let seeds: EpisodicSeed[];
let server: RunningServer;
/** Two named clients besides the anonymous (loopback) one: independent of it and of each other (serve/clients.ts). */
const TOKENS = ['client-b-token-0123456789abcdef01234', 'client-c-token-0123456789abcdef01234'] as const;

beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  const library = SqliteLibrary.open(dir, { create: true });
  seeds = await admitEpisodicSeeds(library, pool);
  // Two modules the validator rejects, served anyway to see the service survive them: step throws on an unknown plate;
  // step hangs.
  const fixture = (file: string) => ({
    name: file,
    source: readFileSync(new URL(`./fixtures/episodic/${file}`, import.meta.url), 'utf8'),
  });
  // And one whose steps are slow but each within the budget (a replay of many of them is not).
  // And one whose score() fails before the episode is finished (quick steps: the slow work left out).
  const slow = fixture('slow-steps.js');
  const lateScore = slow.source
    .replace("name: 'slow-steps'", "name: 'late-score'")
    .replace('25_000_000', '1')
    .replace(
      'export function score(state) {',
      "export function score(state) {\n  if (!state.finished) throw new Error('not finished');",
    );
  await admitEpisodic(library, pool, [
    fixture('broken-step-throws.js'),
    fixture('hostile-step-hangs.js'),
    slow,
    { name: 'late-score', source: lateScore },
  ]);
  await library.close();
  const clientTokens = { b: TOKENS[0], c: TOKENS[1] };
  server = await startServer({ libraryDir: dir, port: 0, pool, maxSessions: 64, clientTokens });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await pool?.close();
});

/** In-process replay (the validator's rollouts) of a policy, with observations. */
async function reference(seed: EpisodicSeed, requests: RolloutRequest[]): Promise<Rollout[]> {
  const run = await runRollouts(
    pool,
    seed.source,
    seed.meta,
    requests.map((r) => ({ ...r, observations: true })),
  );
  return run.rollouts.map((r) => {
    if (!r.ok) throw new Error(`${seed.name}: ${r.code} ${r.message}`);
    return r;
  });
}

/** Plays `actions` through a session from `from` (turns already taken); returns the last step's answer. */
async function play(base: string, episode: string, actions: unknown[], from = 0, expected?: Rollout): Promise<Json> {
  let last: Json = null;
  for (let i = from; i < actions.length; i++) {
    const action = actions[i] as { tool: string; args?: unknown };
    const step = await call(base, 'POST', `/v1/episodes/${episode}/step`, { ...action, turn: i + 1 });
    expect(step.status, JSON.stringify(step.body)).toBe(200);
    expect(step.body.turn).toBe(i + 1);
    if (expected) expect(step.body.observation).toBe(expected.observations?.[i]);
    expect(step.body.done).toBe(i === actions.length - 1 && expected !== undefined && expected.end !== 'no-action');
    last = step.body;
  }
  return last;
}

describe('sessions score exactly what replay scores', () => {
  it('reference and random rollouts of every episodic seed', { timeout: 120_000 }, async () => {
    expect(seeds.length).toBeGreaterThanOrEqual(8);
    await Promise.all(
      seeds.map(async (seed, k) => {
        const level = 1 + (k % seed.meta.levels);
        const [act, random] = await reference(seed, [
          { seed: 100 + k, level, policy: { type: 'act' } },
          { seed: 200 + k, level, policy: { type: 'random', seed: 7 + k } },
        ]);
        for (const [r, s] of [
          [act, 100 + k],
          [random, 200 + k],
        ] as Array<[Rollout, number]>) {
          const created = await call(server.url, 'POST', '/v1/episodes', { env: seed.name, seed: s, level });
          expect(created.status, JSON.stringify(created.body)).toBe(200);
          expect(created.body).toMatchObject({
            prompt: r.prompt,
            maxTurns: seed.meta.maxTurns,
            tools: seed.meta.tools,
            version: 1,
          });
          const last = await play(server.url, created.body.episode, r.actions, 0, r);
          const ended =
            r.end === 'no-action'
              ? (await call(server.url, 'DELETE', `/v1/episodes/${created.body.episode}`)).body
              : last;
          expect(ended.score, `${seed.name} ${r.end}`).toBe(r.score);
          expect(ended.end).toBe(r.end);
          const stateless = await call(server.url, 'POST', '/v1/episodes/score', {
            env: seed.name,
            version: 1,
            seed: s,
            level,
            actions: r.actions,
          });
          expect(stateless.body).toMatchObject({ score: r.score, end: r.end, turns: r.turns });
        }
        expect(act?.score).toBe(1);
      }),
    );
  });
});

describe('steps', () => {
  it('are idempotent by turn and refuse what does not follow', { timeout: 60_000 }, async () => {
    const seed = seeds[0] as EpisodicSeed;
    const [r] = await reference(seed, [{ seed: 5, level: 1, policy: { type: 'act' } }]);
    const { body } = await call(server.url, 'POST', '/v1/episodes', { env: seed.name, seed: 5, level: 1 });
    const id = body.episode as string;
    const first = r?.actions[0] as Json;
    const a = await call(server.url, 'POST', `/v1/episodes/${id}/step`, { ...first, turn: 1 });
    const again = await call(server.url, 'POST', `/v1/episodes/${id}/step`, { ...first, turn: 1 });
    expect(again.body).toEqual({ ...a.body, replayed: true });
    expect((await call(server.url, 'POST', `/v1/episodes/${id}/step`, { tool: 'nope', turn: 1 })).body.error.code).toBe(
      'E_TURN_CONFLICT',
    );
    expect((await call(server.url, 'POST', `/v1/episodes/${id}/step`, { ...first, turn: 5 })).status).toBe(409);
    const got = await call(server.url, 'GET', `/v1/episodes/${id}`);
    expect(got.body).toMatchObject({
      episode: id,
      turn: 1,
      done: false,
      turns: [{ turn: 1, action: first, observation: a.body.observation }],
    });
    // An undeclared tool is a turn with an error observation (the contract's action check), not a 4xx.
    const bad = await call(server.url, 'POST', `/v1/episodes/${id}/step`, { tool: 'no_such_tool', args: {} });
    expect(bad.body).toMatchObject({
      turn: 2,
      done: false,
      observation: expect.stringMatching(/^error: unknown tool/),
    });
    // A bodiless DELETE that names a body type anyway (as urllib clients did) ends the episode like a plain one.
    const response = await fetch(`${server.url}/v1/episodes/${id}`, {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
    });
    expect([response.status, await response.json()]).toEqual([
      200,
      expect.objectContaining({ done: true, end: 'truncated', turn: 2 }),
    ]);
    const again2 = await fetch(`${server.url}/v1/episodes/${id}`, {
      method: 'DELETE',
      headers: { 'content-type': 'text/x-anything' },
    });
    expect(again2.status).toBe(200);
    const ended = await call(server.url, 'DELETE', `/v1/episodes/${id}`);
    expect(ended.body).toMatchObject({ done: true, end: 'truncated', turn: 2 });
    expect((await call(server.url, 'POST', `/v1/episodes/${id}/step`, first)).body.error.code).toBe('E_EPISODE_OVER');
  });

  it("refuse an action beyond the contract's limits at the host, as a rejected turn (never a failure, " +
    'a 5xx or a stored copy)', {
    timeout: 60_000,
  }, async () => {
    const seed = seeds[0] as EpisodicSeed;
    const id = (await call(server.url, 'POST', '/v1/episodes', { env: seed.name, seed: 8, level: 1 })).body
      .episode as string;
    const nest = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const bodies = [
      `{"tool":"x","args":{"a":${nest(40)}},"turn":1}`,
      `{"tool":"x","args":{"a":${nest(20_000)}}}`,
      JSON.stringify({ tool: 'x', args: { s: 'y'.repeat(5_000) } }),
    ];
    const answers = [];
    for (const raw of bodies) answers.push(await call(server.url, 'POST', `/v1/episodes/${id}/step`, undefined, raw));
    expect(answers.map((a) => [a.status, a.body.observation])).toEqual([
      [200, expect.stringMatching(/^error: the action is nested deeper than 6 levels/)],
      [200, expect.stringMatching(/^error: the action is nested deeper than 6 levels/)],
      [200, expect.stringMatching(/^error: the arguments take 5008 characters, over the limit of 4096/)],
    ]);
    expect(answers[2]?.body).toMatchObject({ done: true, end: 'errors' });
    // A retry of the refused turn is recognised; what is kept of each refused action is a short excerpt.
    expect((await call(server.url, 'POST', `/v1/episodes/${id}/step`, undefined, bodies[0])).body).toMatchObject({
      turn: 1,
      replayed: true,
    });
    const got = await call(server.url, 'GET', `/v1/episodes/${id}`);
    expect(got.body.turns.map((t: Json) => JSON.stringify(t.action).length < 600)).toEqual([true, true, true]);
    // /score refuses them the same way: the replay ends on the rejected actions, nothing fails.
    const actions = [
      { tool: 'x', args: { a: JSON.parse(nest(40)) } },
      { tool: 'x', args: { s: 'y'.repeat(5_000) } },
      { tool: 'x'.repeat(100) },
    ];
    const scored = await call(server.url, 'POST', '/v1/episodes/score', { env: seed.name, seed: 8, level: 1, actions });
    expect(scored.body).toMatchObject({ end: 'errors', rejected: [1, 2, 3] });
    const deep = await call(
      server.url,
      'POST',
      '/v1/episodes/score',
      undefined,
      `{"env":"${seed.name}","seed":8,"level":1,"actions":[{"tool":"x","args":{"a":${nest(20_000)}}}]}`,
    );
    expect([deep.status, deep.body.end]).toEqual([200, 'no-action']);
  });

  it('answer bad requests with a 4xx naming the problem', async () => {
    const id = (
      await call(server.url, 'POST', '/v1/episodes', { env: (seeds[1] as EpisodicSeed).name, seed: 1, level: 1 })
    ).body.episode as string;
    const cases: Array<[string, string, unknown, string | undefined, number, RegExp]> = [
      ['POST', '/v1/episodes', { env: 'nope', seed: 1, level: 1 }, undefined, 404, /unknown environment/],
      ['POST', '/v1/episodes', { env: (seeds[0] as EpisodicSeed).name, seed: -1, level: 1 }, undefined, 400, /seed/],
      ['POST', '/v1/episodes', { env: (seeds[0] as EpisodicSeed).name, seed: 1, level: 99 }, undefined, 400, /level/],
      ['POST', `/v1/episodes/${id}/step`, { args: {} }, undefined, 400, /tool: is required/],
      ['POST', `/v1/episodes/${id}/step`, { tool: 'x', args: [1] }, undefined, 400, /args: must be an object/],
      ['POST', `/v1/episodes/${id}/step`, undefined, '{"tool":', 400, /not valid JSON/],
      [
        'POST',
        `/v1/episodes/${id}/step`,
        { tool: 'x', args: { s: 'y'.repeat(300_000) } },
        undefined,
        413,
        /over the limit/,
      ],
      ['POST', '/v1/episodes/ep1.nope.0/step', { tool: 'x' }, undefined, 404, /no episode/],
      [
        'GET',
        `/v1/episodes/${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`,
        undefined,
        undefined,
        404,
        /no episode/,
      ],
      [
        'GET',
        `/v1/episodes/ep1.` +
          `${Buffer.from(JSON.stringify(['n'.repeat(200), 1, 1, 1])).toString('base64url')}.${'0'.repeat(32)}`,
        undefined,
        undefined,
        404,
        /no episode/,
      ],
      [
        'POST',
        '/v1/episodes/score',
        { env: (seeds[0] as EpisodicSeed).name, seed: 1, level: 1 },
        undefined,
        400,
        /actions: is required/,
      ],
    ];
    for (const [method, path, body, raw, status, message] of cases) {
      const r = await call(server.url, method, path, body, raw);
      expect([r.status, r.body.error?.message], `${method} ${path}`).toEqual([status, expect.stringMatching(message)]);
    }
  });
});

describe('creates with an Idempotency-Key', () => {
  const create = async (base: string, identity: unknown, key: string): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${base}/v1/episodes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(identity),
    });
    return { status: response.status, body: await response.json() };
  };

  it('a retried create gets the episode the key made (also concurrently and after a restart); another ' +
    'identity under the key is 409', {
    timeout: 90_000,
  }, async () => {
    const seed = seeds[0] as EpisodicSeed;
    const identity = { env: seed.name, seed: 41, level: 1 };
    const first = await startServer({ libraryDir: dir, port: 0, pool });
    let id: string;
    try {
      const [a, b] = await Promise.all([
        create(first.url, identity, 'retry-key-1'),
        create(first.url, identity, 'retry-key-1'),
      ]);
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      expect(b.body).toEqual(a.body);
      id = a.body.episode as string;
      const [r] = await reference(seed, [{ seed: 41, level: 1, policy: { type: 'act' } }]);
      await play(first.url, id, (r as Rollout).actions.slice(0, 1));
      // The retry answers with the episode as it stands, not a fresh one.
      expect((await create(first.url, { ...identity, version: a.body.version }, 'retry-key-1')).body.episode).toBe(id);
      const reused = await create(first.url, { ...identity, seed: 42 }, 'retry-key-1');
      expect(reused.status).toBe(409);
      expect(reused.body.error.code).toBe('E_IDEMPOTENCY_KEY_REUSED');
      // Without a key, or with another key, every create is a new episode.
      expect((await call(first.url, 'POST', '/v1/episodes', identity)).body.episode).not.toBe(id);
      expect((await create(first.url, identity, 'retry-key-2')).body.episode).not.toBe(id);
      for (const bad of ['', 'has space', 'x'.repeat(201)])
        expect((await create(first.url, identity, bad)).status).toBe(400);
    } finally {
      await first.close();
    }
    const second = await startServer({ libraryDir: dir, port: 0, pool });
    try {
      const again = await create(second.url, identity, 'retry-key-1');
      expect(again.body.episode).toBe(id);
      expect((await call(second.url, 'GET', `/v1/episodes/${id}`)).body.turn).toBe(1);
    } finally {
      await second.close();
    }
  });
});

describe('OpenEnv over HTTP', () => {
  it('reset, step (also as MCP call_tool, idempotent by turn) and state, with OpenEnv shapes', {
    timeout: 60_000,
  }, async () => {
    const seed = seeds[3] as EpisodicSeed;
    const [r] = (await reference(seed, [{ seed: 4, level: 1, policy: { type: 'act' } }])) as [Rollout];
    const base = `/openenv/${seed.name}`;
    const reset = await call(server.url, 'POST', `${base}/reset`, { seed: 4, level: 1, episode_id: 'my-run-7' });
    const listed = seed.meta.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.parameters,
    }));
    expect(reset.body).toEqual({
      observation: {
        text: r.prompt,
        prompt: r.prompt,
        turn: 0,
        max_turns: seed.meta.maxTurns,
        tools: listed,
        metadata: expect.objectContaining({ client_episode_id: 'my-run-7', seed: 4, level: 1, prompt: r.prompt }),
      },
      reward: null,
      done: false,
    });
    const id = reset.body.observation.metadata.episode_id as string;
    let out: Json = null;
    for (const [i, action] of (r.actions as Array<{ tool: string; args?: object }>).entries()) {
      const mcp =
        i % 2 === 1
          ? { type: 'call_tool', tool_name: action.tool, ...(action.args ? { arguments: action.args } : {}) }
          : action;
      out = await call(server.url, 'POST', `${base}/step`, { action: mcp, episode_id: id, turn: i + 1 });
      expect(out.body.observation).toMatchObject({
        text: r.observations?.[i],
        turn: i + 1,
        metadata: { episode_id: id, turn: i + 1 },
      });
      // OpenEnv's StepResponse has exactly these keys; a call_tool is answered as its CallToolObservation, the text as
      // MCP content.
      expect(Object.keys(out.body).sort()).toEqual(['done', 'observation', 'reward']);
      if (i % 2 === 1)
        expect(out.body.observation).toMatchObject({
          tool_name: action.tool,
          error: null,
          result: {
            content: [{ type: 'text', text: r.observations?.[i] }],
            data: r.observations?.[i],
            is_error: false,
          },
        });
    }
    expect(out.body).toMatchObject({
      done: true,
      reward: 1,
      observation: { metadata: { episode_id: id, end: 'done' } },
    });
    const retried = await call(server.url, 'POST', `${base}/step`, {
      action: r.actions.at(-1),
      episode_id: id,
      turn: r.actions.length,
    });
    expect(retried.body).toEqual(out.body);
    expect((await call(server.url, 'GET', `${base}/state?episode_id=${id}`)).body).toMatchObject({
      episode_id: id,
      step_count: r.actions.length,
      done: true,
    });
    expect(
      (await call(server.url, 'GET', `/openenv/${(seeds[4] as EpisodicSeed).name}/state?episode_id=${id}`)).status,
    ).toBe(400);
    // OpenEnv's own request shapes: a step without an episode plays a one-step episode (a fresh environment per
    // request, as OpenEnv's stateless HTTP step), scored as replay scores it; a state without one is an empty state.
    const [one] = (await reference(seed, [
      { seed: 4, level: 1, policy: { type: 'replay', actions: r.actions.slice(0, 1) } },
    ])) as [Rollout];
    const once = await call(server.url, 'POST', `${base}/step`, {
      action: r.actions[0],
      timeout_s: 5,
      request_id: 'r-1',
      seed: 4,
      level: 1,
    });
    expect(once.body).toMatchObject({
      observation: {
        text: one.observations?.[0],
        turn: 1,
        metadata: { end: one.end === 'no-action' ? 'truncated' : one.end },
      },
      reward: one.score,
      done: true,
    });
    expect((await call(server.url, 'GET', `${base}/state`)).body).toEqual({
      episode_id: null,
      step_count: 0,
      env: seed.name,
    });
  });

  it('ends an episode on request (end_episode) with its reward, and describes itself: /schema, /metadata, MCP ' +
    'tools/list and tools/call', {
    timeout: 60_000,
  }, async () => {
    const seed = seeds[1] as EpisodicSeed;
    const base = `/openenv/${seed.name}`;
    const [r] = (await reference(seed, [{ seed: 6, level: 2, policy: { type: 'act' } }])) as [Rollout];
    const id = (await call(server.url, 'POST', `${base}/reset`, { seed: 6, level: 2 })).body.observation.metadata
      .episode_id as string;
    await call(server.url, 'POST', `${base}/step`, { action: r.actions[0], episode_id: id });
    const [half] = (await reference(seed, [
      { seed: 6, level: 2, policy: { type: 'replay', actions: r.actions.slice(0, 1) } },
    ])) as [Rollout];
    const ended = await call(server.url, 'POST', `${base}/step`, { action: { type: 'end_episode' }, episode_id: id });
    expect(ended.body).toEqual({
      observation: { text: '', turn: 1, metadata: expect.objectContaining({ episode_id: id, end: 'truncated' }) },
      reward: half.score,
      done: true,
    });
    // list_tools needs no episode and takes no turn.
    expect((await call(server.url, 'POST', `${base}/step`, { action: { type: 'list_tools' } })).body).toEqual({
      observation: {
        tools: seed.meta.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
        metadata: {},
      },
      reward: null,
      done: false,
    });
    const schema = (await call(server.url, 'GET', `${base}/schema`)).body;
    expect(Object.keys(schema).sort()).toEqual(['action', 'observation', 'state']);
    expect(schema.action.oneOf.map((o: Json) => o.title)).toEqual([
      ...seed.meta.tools.map((t) => t.name),
      'call_tool',
      'list_tools',
      'end_episode',
    ]);
    expect((await call(server.url, 'GET', `${base}/metadata`)).body).toEqual({
      name: seed.name,
      description: seed.meta.description,
      version: '1',
    });
    // MCP over HTTP: tools/list with inputSchema; a session as OpenEnv's MCP client makes one; tools/call answered with
    // text content.
    const rpc = async (method: string, params: object = {}) =>
      (await call(server.url, 'POST', `${base}/mcp`, { jsonrpc: '2.0', id: 7, method, params })).body;
    expect((await rpc('tools/list')).result.tools).toEqual(
      seed.meta.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters })),
    );
    const session = (await rpc('openenv/session/create', { seed: 6, level: 2 })).result.session_id as string;
    const first = r.actions[0] as { tool: string; args?: object };
    const called = await rpc('tools/call', { name: first.tool, arguments: first.args ?? {}, session_id: session });
    expect(called).toMatchObject({
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: r.observations?.[0] }], is_error: false },
    });
    expect((await rpc('openenv/session/close', { session_id: session })).result).toEqual({
      session_id: session,
      closed: true,
      reward: half.score,
    });
    expect((await rpc('no/such')).error.code).toBe(-32601);
    expect((await call(server.url, 'POST', `${base}/mcp`, { method: 'tools/list' })).body.error.code).toBe(-32600);
  });
});

describe('limits and restarts', () => {
  it("past the session limit, takes back the client's own idle session, which stays resumable", async () => {
    const small = await startServer({ libraryDir: dir, port: 0, pool, maxSessions: 2 });
    try {
      const env = (seeds[0] as EpisodicSeed).name;
      const a = await call(small.url, 'POST', '/v1/episodes', { env, seed: 1, level: 1 });
      await call(small.url, 'POST', '/v1/episodes', { env, seed: 2, level: 1 });
      // A client at the limit whose sessions are idle (a trainer restarted after a crash: redteam-v23 V23-2) is not
      // refused: its least recently used session goes back to its journal (a 429 is for one whose sessions are busy:
      // tests/session-slots-busy.test.ts).
      expect((await call(small.url, 'POST', '/v1/episodes', { env, seed: 3, level: 1 })).status).toBe(200);
      expect((await call(small.url, 'GET', `/v1/episodes/${a.body.episode}`)).body).toMatchObject({ turn: 0 });
      expect((await call(small.url, 'DELETE', `/v1/episodes/${a.body.episode}`)).body).toMatchObject({ done: true });
    } finally {
      await small.close();
    }
  });

  it('resumes an episode of slow steps: a replay has a budget per turn', { timeout: 90_000 }, async () => {
    const first = await startServer({ libraryDir: dir, port: 0, pool });
    const id = (await call(first.url, 'POST', '/v1/episodes', { env: 'slow-steps', seed: 1, level: 1 })).body
      .episode as string;
    // Eleven steps of one unit each (a fraction of the per-call budget); their replay takes several budgets.
    await play(
      first.url,
      id,
      Array.from({ length: 11 }, () => ({ tool: 'work', args: { units: 1 } })),
    );
    await first.close();
    const second = await startServer({ libraryDir: dir, port: 0, pool });
    try {
      expect((await call(second.url, 'GET', `/v1/episodes/${id}`)).body).toMatchObject({ done: false, turn: 11 });
      expect(
        (await call(second.url, 'POST', `/v1/episodes/${id}/step`, { tool: 'finish', turn: 12 })).body,
      ).toMatchObject({ done: true, end: 'done', score: 1 });
    } finally {
      await second.close();
    }
  });

  it('reads an episode that ended by itself, after a restart, without a session slot', {
    timeout: 60_000,
  }, async () => {
    const seed = seeds[1] as EpisodicSeed;
    const [r] = (await reference(seed, [{ seed: 16, level: 1, policy: { type: 'act' } }])) as [Rollout];
    const first = await startServer({ libraryDir: dir, port: 0, pool });
    const id = (await call(first.url, 'POST', '/v1/episodes', { env: seed.name, seed: 16, level: 1 })).body
      .episode as string;
    expect(await play(first.url, id, r.actions, 0, r)).toMatchObject({ done: true, end: 'done' });
    await first.close();
    const full = await startServer({ libraryDir: dir, port: 0, pool, maxSessions: 1 });
    try {
      expect((await call(full.url, 'POST', '/v1/episodes', { env: seed.name, seed: 17, level: 1 })).status).toBe(200);
      expect((await call(full.url, 'GET', `/v1/episodes/${id}`)).body).toMatchObject({
        done: true,
        end: 'done',
        turn: r.actions.length,
        score: r.score,
      });
    } finally {
      await full.close();
    }
  });

  it('never evicts a session with requests queued (a rebuild would fork the live episode)', {
    timeout: 60_000,
  }, async () => {
    const seed = seeds[0] as EpisodicSeed;
    const [r] = (await reference(seed, [{ seed: 12, level: 1, policy: { type: 'act' } }])) as [Rollout];
    const eager = await startServer({ libraryDir: dir, port: 0, pool, sessionIdleMs: 1 });
    try {
      const id = (await call(eager.url, 'POST', '/v1/episodes', { env: seed.name, seed: 12, level: 1 })).body
        .episode as string;
      // Steps queued on the session for far longer than its idle time, then a read while they run.
      const steps = Promise.all(
        Array.from({ length: 40 }, () => call(eager.url, 'POST', `/v1/episodes/${id}/step`, r.actions[0])),
      );
      const reads = Promise.all(
        Array.from({ length: 10 }, (_, k) =>
          new Promise((resolve) => setTimeout(resolve, 10 * (k + 1))).then(() =>
            call(eager.url, 'GET', `/v1/episodes/${id}`),
          ),
        ),
      );
      // One live copy: every step made a turn of its own, in order, and reads never rebuilt an older copy.
      expect((await steps).map((s) => s.body.turn).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 40 }, (_, k) => k + 1),
      );
      await reads;
      expect((await call(eager.url, 'GET', `/v1/episodes/${id}`)).body.turn).toBe(40);
    } finally {
      await eager.close();
    }
  });

  it('finishes an episode begun before a restart (HTTP and OpenEnv WebSocket)', { timeout: 90_000 }, async () => {
    const seed = seeds[2] as EpisodicSeed;
    const [r] = (await reference(seed, [{ seed: 9, level: 2, policy: { type: 'act' } }])) as [Rollout];
    const half = Math.floor(r.actions.length / 2);
    let first = await startServer({ libraryDir: dir, port: 0, pool });
    const http = (await call(first.url, 'POST', '/v1/episodes', { env: seed.name, seed: 9, level: 2 })).body
      .episode as string;
    await play(first.url, http, r.actions.slice(0, half), 0);
    const ws = await connect(first.url, seed.name);
    const reset = await ws.send({ type: 'reset', data: { seed: 9, level: 2 } });
    expect(reset).toMatchObject({
      type: 'observation',
      data: { done: false, reward: null, observation: { text: r.prompt, turn: 0 } },
    });
    const wsId = reset.data.observation.metadata.episode_id as string;
    for (const action of r.actions.slice(0, half))
      expect((await ws.send({ type: 'step', data: action })).type).toBe('observation');
    // The server goes down under the open connection: its episode stays resumable (a client that leaves ends its
    // episode instead).
    await first.close();

    first = await startServer({ libraryDir: dir, port: 0, pool });
    try {
      // The same step retried after the restart returns its stored result instead of stepping again.
      if (half > 0)
        expect(
          (await call(first.url, 'POST', `/v1/episodes/${http}/step`, { ...(r.actions[half - 1] as Json), turn: half }))
            .body.replayed,
        ).toBe(true);
      const last = await play(first.url, http, r.actions, half, r);
      expect(last).toMatchObject({ done: true, score: 1, end: 'done' });
      expect((await call(first.url, 'GET', `/v1/episodes/${http}`)).body.turns).toHaveLength(r.actions.length);

      const again = await connect(first.url, seed.name);
      const resumed = await again.send({ type: 'reset', data: { episode_id: wsId } });
      expect(resumed.data).toMatchObject({
        done: false,
        observation: { turn: half, metadata: { episode_id: wsId, resumed: true } },
      });
      let out: Json = null;
      for (const action of r.actions.slice(half)) out = await again.send({ type: 'step', data: action });
      expect(out.data).toMatchObject({
        done: true,
        reward: 1,
        observation: { metadata: { episode_id: wsId, end: 'done' } },
      });
      expect((await again.send({ type: 'state' })).data).toMatchObject({
        episode_id: wsId,
        step_count: r.actions.length,
        done: true,
      });
      expect((await again.send({ type: 'bogus' })).data.code).toBe('UNKNOWN_TYPE');
      expect((await again.send('{not json' as unknown as object)).data.code).toBe('INVALID_JSON');
      expect((await again.send({ type: 'step', data: { tool: 'x' } })).data.envforge_code).toBe('E_EPISODE_OVER');
      again.close();
      // A frame over the size limit closes that connection only; the server goes on.
      const big = await connect(first.url, seed.name);
      const closed = new Promise((resolve) => big.socket.once('close', (code) => resolve(code)));
      big.socket.send(JSON.stringify({ type: 'step', data: { tool: 'x', args: { s: 'y'.repeat(400_000) } } }));
      expect(await closed).toBe(1009);
      expect((await call(first.url, 'GET', '/health')).status).toBe(200);
    } finally {
      await first.close();
    }
  });
});

describe('failing environments', () => {
  it('a step that throws or hangs ends its episode with score 0 and the error, is confirmed as an ' +
    'incident, and quarantines', {
    timeout: 120_000,
  }, async () => {
    const throws = (await call(server.url, 'POST', '/v1/episodes', { env: 'fleet-maintenance', seed: 1, level: 1 }))
      .body.episode as string;
    const hangs = (await call(server.url, 'POST', '/v1/episodes', { env: 'pick-route', seed: 1, level: 5 })).body
      .episode as string;
    const hang = { tool: 'optimize_route', args: {}, turn: 1 };
    const [thrown, hung] = await Promise.all([
      call(server.url, 'POST', `/v1/episodes/${throws}/step`, {
        tool: 'log_service',
        args: { plate: 'NOPE-1', service: 'oil' },
        turn: 1,
      }),
      call(server.url, 'POST', `/v1/episodes/${hangs}/step`, hang),
    ]);
    expect(thrown.body).toMatchObject({ turn: 1, done: true, score: 0, end: 'failed', error: { code: 'E_THROWN' } });
    expect(hung.body).toMatchObject({ turn: 1, done: true, score: 0, end: 'failed', error: { code: 'E_TIMEOUT' } });
    // The journal says how it ended: the failure is answered again, and replays cannot step it.
    expect((await call(server.url, 'GET', `/v1/episodes/${hangs}`)).body).toMatchObject({ done: true, end: 'failed' });
    // The hang is the reference's too at this seed, which the client chose: the environment's own at once where the
    // re-run at a seed the service draws hangs as well, else this client's vote (V21-3). Independent clients meeting
    // it (the named ones here, each at its own episode) quarantine it either way.
    for (const token of TOKENS) {
      const created = await call(
        server.url,
        'POST',
        '/v1/episodes',
        { env: 'pick-route', seed: 1, level: 5 },
        undefined,
        token,
      );
      if (created.status === 409) {
        expect(created.body.error.code).toBe('E_QUARANTINED');
        continue;
      }
      const step = await call(server.url, 'POST', `/v1/episodes/${created.body.episode}/step`, hang, undefined, token);
      expect(step.body).toMatchObject({ done: true, score: 0, end: 'failed', error: { code: 'E_TIMEOUT' } });
    }
    // Polled with creates, each ended as soon as it is open (no session is left holding a slot).
    let refused: Json = null;
    for (let i = 0; i < 250 && refused?.status !== 409; i++) {
      await new Promise((r) => setTimeout(r, 200));
      refused = await call(server.url, 'POST', '/v1/episodes', { env: 'pick-route', seed: 2, level: 1 });
      if (refused.status === 200)
        expect((await call(server.url, 'DELETE', `/v1/episodes/${refused.body.episode}`)).status).toBe(200);
    }
    expect(refused.body.error.code).toBe('E_QUARANTINED');
    // Others play on.
    const other = await call(server.url, 'POST', '/v1/episodes', {
      env: (seeds[0] as EpisodicSeed).name,
      seed: 3,
      level: 1,
    });
    expect(other.status).toBe(200);
    expect((await call(server.url, 'DELETE', `/v1/episodes/${other.body.episode}`)).status).toBe(200);
  });
});

describe('terminal rewards', () => {
  it('a score() that fails before the end: steps go on unscored, a finished episode scores, one ended ' +
    'early fails with the error', {
    timeout: 60_000,
  }, async () => {
    const work = { tool: 'work', args: { units: 1 } };
    const finished = (await call(server.url, 'POST', '/v1/episodes', { env: 'late-score', seed: 1, level: 1 })).body
      .episode as string;
    for (let turn = 1; turn <= 3; turn++)
      expect((await call(server.url, 'POST', `/v1/episodes/${finished}/step`, { ...work, turn })).body).toEqual({
        episode: finished,
        turn,
        observation: `Done ${turn} unit(s).`,
        done: false,
      });
    expect(
      (await call(server.url, 'POST', `/v1/episodes/${finished}/step`, { tool: 'finish', turn: 4 })).body,
    ).toMatchObject({ done: true, end: 'done', score: 1 });
    const cut = (await call(server.url, 'POST', '/v1/episodes', { env: 'late-score', seed: 2, level: 1 })).body
      .episode as string;
    expect((await call(server.url, 'POST', `/v1/episodes/${cut}/step`, { ...work, turn: 1 })).status).toBe(200);
    expect((await call(server.url, 'DELETE', `/v1/episodes/${cut}`)).body).toMatchObject({
      done: true,
      turn: 1,
      score: 0,
      end: 'failed',
      error: { code: 'E_THROWN' },
    });
    expect((await call(server.url, 'GET', `/v1/episodes/${cut}`)).body).toMatchObject({ done: true, end: 'failed' });
  });
});

describe('OpenEnv over WebSocket', () => {
  it('steps are idempotent by turn, a reset ends the episode before it, and a client that does not read is cut off', {
    timeout: 60_000,
  }, async () => {
    const seed = seeds[0] as EpisodicSeed;
    const [r] = (await reference(seed, [{ seed: 14, level: 1, policy: { type: 'act' } }])) as [Rollout];
    const ws = await connect(server.url, seed.name);
    const first = (await ws.send({ type: 'reset', data: { seed: 14, level: 1 } })).data.observation.metadata
      .episode_id as string;
    const step = await ws.send({ type: 'step', data: { ...(r.actions[0] as object), turn: 1 } });
    expect(step.data).toMatchObject({ observation: { text: r.observations?.[0], turn: 1 } });
    expect((await ws.send({ type: 'step', data: { ...(r.actions[0] as object), turn: 1 } })).data).toEqual(step.data);
    expect((await ws.send({ type: 'step', data: { tool: 'other', turn: 1 } })).data.envforge_code).toBe(
      'E_TURN_CONFLICT',
    );
    expect((await ws.send({ type: 'step', data: { ...(r.actions[1] as object), turn: 0 } })).data.code).toBe(
      'VALIDATION_ERROR',
    );
    // OpenEnv's "mcp" message: JSON-RPC on the connection's episode.
    const listed = await ws.send({ type: 'mcp', data: { jsonrpc: '2.0', id: 'a', method: 'tools/list' } });
    expect(listed).toEqual({
      type: 'mcp',
      data: {
        jsonrpc: '2.0',
        id: 'a',
        result: {
          tools: seed.meta.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters })),
        },
      },
    });
    const second1 = r.actions[1] as { tool: string; args?: object };
    const viaMcp = await ws.send({
      type: 'mcp',
      data: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: second1.tool, arguments: second1.args ?? {} },
      },
    });
    expect(viaMcp.data.result.content).toEqual([{ type: 'text', text: r.observations?.[1] }]);
    expect((await ws.send({ type: 'state' })).data).toMatchObject({ step_count: 2 });
    // A second reset on the connection abandons the first episode: it ends ("truncated") and holds no slot.
    const second = (await ws.send({ type: 'reset', data: { seed: 15, level: 1 } })).data.observation.metadata
      .episode_id as string;
    expect((await call(server.url, 'GET', `/v1/episodes/${first}`)).body).toMatchObject({
      done: true,
      end: 'truncated',
      turn: 2,
    });
    // The client leaving ends the connection's episode too, as OpenEnv destroys a closed session.
    ws.close();
    let left: Json = null;
    for (let i = 0; i < 100 && !left?.done; i++) left = (await call(server.url, 'GET', `/v1/episodes/${second}`)).body;
    expect(left).toMatchObject({ done: true, end: 'truncated', turn: 0 });
    // A client that sends without reading the answers: its connection closes once too many wait.
    const flood = await connect(server.url, seed.name);
    const closed = new Promise((resolve) => flood.socket.once('close', (code) => resolve(code)));
    for (let i = 0; i < 200; i++) flood.socket.send(JSON.stringify({ type: 'state' }));
    expect(await closed).toBe(1008);
    expect((await call(server.url, 'GET', '/health')).status).toBe(200);
  });
});

describe('hostile load', () => {
  it('a flood of malformed steps, unknown episodes and oversized args: 4xx each, while every ' +
    'reference rollout scores 1', {
    timeout: 120_000,
  }, async () => {
    const plans = await Promise.all(
      seeds.map(async (seed, k) => ({
        seed,
        k,
        rollout: (await reference(seed, [{ seed: 300 + k, level: 1, policy: { type: 'act' } }]))[0] as Rollout,
      })),
    );
    const ids: string[] = [];
    const references = plans.map(async ({ seed, k, rollout }) => {
      const id = (await call(server.url, 'POST', '/v1/episodes', { env: seed.name, seed: 300 + k, level: 1 })).body
        .episode as string;
      ids.push(id);
      return (await play(server.url, id, rollout.actions, 0, rollout)).score as number;
    });
    const forged = (n: number) =>
      `ep1.${Buffer.from(JSON.stringify([(seeds[0] as EpisodicSeed).name, 1, n, 1])).toString('base64url')}.` +
      `${n.toString(16).padStart(32, '0')}`;
    const bad: Array<() => Promise<{ status: number }>> = [];
    for (let i = 0; i < 60; i++) {
      const live = () => ids[i % Math.max(1, ids.length)] ?? forged(i);
      bad.push(
        () => call(server.url, 'POST', `/v1/episodes/${live()}/step`, undefined, '{"tool": "x", "args": {'),
        () => call(server.url, 'POST', `/v1/episodes/${live()}/step`, { tool: 7 }),
        () => call(server.url, 'POST', `/v1/episodes/${live()}/step`, { tool: 'x', args: 'nope' }),
        () =>
          call(server.url, 'POST', `/v1/episodes/${live()}/step`, {
            tool: 'x',
            args: { big: 'z'.repeat(300_000 + i) },
          }),
        () => call(server.url, 'POST', `/v1/episodes/${live()}/step`, { tool: 'x', turn: 500 + i }),
        () => call(server.url, 'POST', `/v1/episodes/${forged(i)}/step`, { tool: 'x' }),
        () => call(server.url, 'GET', `/v1/episodes/${'ep1.'.repeat(200)}`),
        () => call(server.url, 'DELETE', `/v1/episodes/garbage-${i}`),
        () => call(server.url, 'POST', '/v1/episodes', { env: 'x'.repeat(300), seed: 1, level: 1 }),
        () =>
          call(server.url, 'POST', '/v1/episodes/score', {
            env: (seeds[0] as EpisodicSeed).name,
            seed: 1,
            level: 1,
            actions: 'no',
          }),
        () =>
          call(server.url, 'POST', `/openenv/${(seeds[0] as EpisodicSeed).name}/step`, {
            action: { tool: 'x' },
            episode_id: forged(i),
          }),
      );
    }
    const statuses = await Promise.all(
      bad.map(async (send, i) => {
        await new Promise((r) => setTimeout(r, i % 50)); // spread over the references' steps
        return (await send()).status;
      }),
    );
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.every((s) => s >= 400 && s < 500)).toBe(true);
    expect(await Promise.all(references)).toEqual(plans.map(() => 1));
  });
});

/** A minimal OpenEnv-style WebSocket client: one message out, the next message in. */
async function connect(
  base: string,
  env: string,
): Promise<{ socket: WebSocket; send(message: object): Promise<Json>; close(): void }> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}/openenv/${env}/ws`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  return {
    socket,
    send: (message) =>
      new Promise((resolve) => {
        socket.once('message', (data) => resolve(JSON.parse(String(data))));
        socket.send(typeof message === 'string' ? message : JSON.stringify(message));
      }),
    close: () => socket.close(),
  };
}
