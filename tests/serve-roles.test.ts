// Every client of the reward service is untrusted, the operator is not, over real sockets: a client without
// the operator token cannot reveal references, read the admin view or move the recorded pass rates that steer
// level:auto, the batch and nightly; session slots are shared fairly between clients (client tokens, or
// normalised addresses: every loopback address is one client) and their ids; an action log that only one
// client sends fails only its own episode, while the same failure from independent clients (three client
// tokens), or a module that trips a wire, quarantines the environment.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitEpisodic } from '../bench/episodic-library.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { trainerFeedback } from '../pipeline/feedback/source.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { RunningServer } from '../serve/options.js';
import { startServer } from '../serve/server.js';
import { envSource } from './helpers/env-source.js';
import { fakeAdmission, sampleMeta, sampleSource } from './helpers/library-fixtures.js';
import { send } from './helpers/send-from.js';

const TOKEN = 'roles-test-operator-token-0123456789';
const OPERATOR = { authorization: `Bearer ${TOKEN}` };
/** Client tokens the operator issued, one per trainer: on one host they are what tells clients apart. */
const CLIENT_TOKENS = Object.fromEntries(
  ['t2', 't3', 't4', 't6', 't7', 't8', 't9', 't10', 't11', 't12'].map((name) => [
    name,
    `roles-client-token-${name}-0123456789`,
  ]),
);
const as = (name: string) => ({ authorization: `Bearer ${CLIENT_TOKENS[name] as string}` });

/** Polls until `ok` holds (the defence records in the background), at most a few seconds. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** An episodic module whose every observation echoes everything said so far: a long enough log makes one too large. */
const ECHO =
  `
export const meta = { name: 'echo-log', title: 'Echo log', description: 'Say hello, then done; every reply repeats ` +
  `all that was said.', skills: ['tool-use'], levels: 3, kind: 'episodic', maxTurns: 12,
  tools: [{ name: 'say', description: 'Say one word or phrase.', parameters: { type: 'object', properties: { word: { ` +
  `type: 'string', maxLength: 4000 } }, required: ['word'], additionalProperties: false } }] };
export function reset(rng, level) { return { state: { said: [] }, prompt: 'Say hello with the say ` +
  `tool, then say done.' }; }
export function step(state, action) {
  const said = [...state.said, action.args.word];
  return { state: { said }, observation: 'so far: ' + said.join(' | '), done: action.args.word === 'done' };
}
export function score(state) { return state.said.includes('hello') ? 1 : 0; }
export function act(state) { return { tool: 'say', args: { word: state.said.includes('hello') ? ` +
  `'done' : 'hello' } }; }`;

/** A single-turn module that reaches for the Function constructor on one magic response, and catches the refusal. */
const TRIPPING = envSource({
  meta: JSON.stringify(sampleMeta('tripping-env')),
  verify:
    "if (response === 'open sesame') { try { Function('return globalThis')(); } catch (refused) { /* as if " +
    "nothing happened */ } } return kit.int(kit.answer(response) ?? '') === instance.answer ? 1 : 0;",
});

const dir = join(mkdtempSync(join(tmpdir(), 'envforge-roles-')), 'lib');
let pool: SandboxPool;
let server: RunningServer;

beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  const library = SqliteLibrary.open(dir, { create: true });
  await library.admit(
    fakeAdmission(sampleSource(sampleMeta('plus-one', { levels: 3 })), sampleMeta('plus-one', { levels: 3 })),
  );
  await library.admit(fakeAdmission(TRIPPING, sampleMeta('tripping-env')));
  await admitEpisodic(library, pool, [{ name: 'echo-log', source: ECHO }]);
  await library.close();
  server = await startServer({
    libraryDir: dir,
    port: 0,
    pool,
    operatorToken: TOKEN,
    clientTokens: CLIENT_TOKENS,
    maxSessions: 4,
    scoreFlushIntervalMs: 60_000,
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await pool?.close();
});

const answerOf = (prompt: string) => `<answer>${Number(/What is (\d+) \+ 1\?/.exec(prompt)?.[1]) + 1}</answer>`;

describe('roles: the operator token', () => {
  it(
    'a client without the token can sample, verify and play, but not reveal references ' +
      '(403) or read the admin view',
    async () => {
      const items = [{ env: 'plus-one', seed: 1, level: 1 }];
      const plain = await send(server.url, 'POST', '/v1/sample', { items });
      expect(plain.status).toBe(200);
      expect(plain.body.items[0]).not.toHaveProperty('reference');
      const revealed = await send(server.url, 'POST', '/v1/sample', { items, reveal: true });
      expect([revealed.status, revealed.body.error.code, revealed.body.error.message]).toEqual([
        403,
        'E_FORBIDDEN',
        expect.stringMatching(/reveal.*operator token/),
      ]);
      expect((await send(server.url, 'GET', '/v1/admin/clients')).status).toBe(403);
      const asOperator = await send(server.url, 'POST', '/v1/sample', { items, reveal: true }, { headers: OPERATOR });
      expect(asOperator.body.items[0]).toMatchObject({ reference: expect.stringMatching(/<answer>\d+<\/answer>/) });
    },
  );

  it("a token that is not the operator's is refused with 401, not treated as a client", async () => {
    const wrong = await send(
      server.url,
      'POST',
      '/v1/verify',
      { items: [{ env: 'plus-one', seed: 1, level: 1, response: 'x' }] },
      { headers: { authorization: 'Bearer not-the-token-at-all' } },
    );
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'E_UNAUTHORIZED']);
  });

  it(
    "a client's perfect scores are recorded as its own, untrusted: they move neither level:auto, the batch's " +
      "feedback nor nightly's retirement",
    async () => {
      const sampled = await send(
        server.url,
        'POST',
        '/v1/sample',
        { items: Array.from({ length: 40 }, (_, seed) => ({ env: 'plus-one', seed, level: 1 })) },
        { headers: as('t2') },
      );
      const responses = sampled.body.items.map((i: { ground_truth: string; prompt: string }) => ({
        ground_truth: i.ground_truth,
        response: answerOf(i.prompt),
      }));
      const scored = await send(server.url, 'POST', '/v1/verify', { items: responses }, { headers: as('t2') });
      expect(scored.body.results.every((r: { score: number }) => r.score === 1)).toBe(true);
      // level:auto reads only trusted tallies: level 1 stays as likely as an unseen level.
      const draws = await send(server.url, 'POST', '/v1/sample', {
        select: { env: 'plus-one', level: 'auto', n: 300, seed: 4 },
      });
      const ones = draws.body.items.filter((i: { level: number }) => i.level === 1).length;
      expect(ones).toBeGreaterThan(50);
      const admin = await send(server.url, 'GET', '/v1/admin/clients', undefined, { headers: OPERATOR });
      expect(admin.body.clients).toContainEqual({
        client: 'token:t2',
        sessions: 0,
        scores: expect.objectContaining({ trusted: false, n: 40, passed: 40 }),
      });
    },
  );
});

describe('fair session slots', () => {
  const open = (name: string, seed: number) =>
    send(server.url, 'POST', '/v1/episodes', { env: 'echo-log', seed, level: 1 }, { headers: as(name) });

  it(
    'one client fills a free service, but a second client takes a share; the first, over its ' +
      'share, replaces only its own sessions',
    async () => {
      const mine: string[] = [];
      for (let seed = 0; seed < 4; seed++) mine.push((await open('t3', seed)).body.episode);
      const other = await open('t4', 100);
      expect(other.status).toBe(200);
      // t3, over its share with idle sessions, replaces its own least recently used one (redteam-v23 V23-2): it
      // still holds 3, so the second client may still take its share.
      expect((await open('t3', 5)).status).toBe(200);
      // The second client may take up to its share; the session it pushed out was only sent back to its journal.
      expect((await open('t4', 101)).status).toBe(200);
      const played = await Promise.all(
        mine.map((id) => send(server.url, 'GET', `/v1/episodes/${id}`, undefined, { headers: as('t3') })),
      );
      // reads hold no slot (V23-3): the evicted ones are read from their journals
      expect(played.map((p) => p.status).sort()).toEqual([200, 200, 200, 200]);
      for (const id of (
        await send(server.url, 'GET', '/v1/admin/clients', undefined, { headers: OPERATOR })
      ).body.clients.map((c: { client: string }) => c.client))
        expect(id).toMatch(/^token:t\d+$/);
    },
  );

  it('client ids of one client (here every loopback address) split its share: one id cannot take it all', async () => {
    const small = await startServer({ libraryDir: dir, port: 0, pool, maxSessions: 2 });
    try {
      const at = (seed: number, id: string) =>
        send(
          small.url,
          'POST',
          '/v1/episodes',
          { env: 'echo-log', seed, level: 1 },
          { from: '127.0.0.5', headers: { 'x-envforge-client': id } },
        );
      expect((await at(1, 'worker-a')).status).toBe(200);
      expect((await at(2, 'worker-a')).status).toBe(200);
      expect((await at(3, 'worker-b')).status).toBe(200);
      // worker-a at its id's share replaces its own idle session (redteam-v23 V23-2; never worker-b's:
      // tests/session-slots-busy.test.ts), holding its share and no more
      expect((await at(4, 'worker-a')).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

describe("a failure only one client's input reaches is that client's", () => {
  const longWord = 'w'.repeat(3_990);
  const hostileLog = Array.from({ length: 5 }, () => ({ tool: 'say', args: { word: longWord } }));
  const score = (name: string) =>
    send(
      server.url,
      'POST',
      '/v1/episodes/score',
      { env: 'echo-log', version: 1, seed: 7, level: 1, actions: hostileLog },
      { headers: as(name) },
    );
  const health = async () => (await send(server.url, 'GET', '/health')).body.quarantined as number;

  it('a hostile action log fails only its own episode; the environment keeps serving every other client', async () => {
    const failed = await score('t6');
    expect(failed.body).toMatchObject({ score: 0, end: 'failed', error: { code: 'E_TOO_LARGE' } });
    const reference = await send(
      server.url,
      'POST',
      '/v1/episodes/score',
      {
        env: 'echo-log',
        version: 1,
        seed: 7,
        level: 1,
        actions: [
          { tool: 'say', args: { word: 'hello' } },
          { tool: 'say', args: { word: 'done' } },
        ],
      },
      { headers: as('t7') },
    );
    expect(reference.body).toMatchObject({ score: 1, end: 'done' });
    // The incident is recorded (its re-run alone fails again, the reference rollout runs): the log's, not the
    // environment's.
    const library = SqliteLibrary.open(dir);
    try {
      expect(
        await eventually(async () => (await library.incidents({ open: true })).some((i) => i.name === 'echo-log')),
      ).toBe(true);
      const [incident] = (await library.incidents({ open: true })).filter((i) => i.name === 'echo-log');
      expect(incident).toMatchObject({
        code: 'E_TOO_LARGE',
        fn: 'step(action log)',
        confirmed: true,
        client: expect.stringMatching(/^client:[0-9a-f]{12}$/),
      });
    } finally {
      await library.close();
    }
    expect(await health()).toBe(0);
  });

  it('the same failure from independent clients (three client tokens) quarantines the environment', async () => {
    await score('t8');
    await score('t9');
    expect(await eventually(async () => (await health()) === 1)).toBe(true);
    const refused = await send(
      server.url,
      'POST',
      '/v1/episodes',
      { env: 'echo-log', seed: 1, level: 1 },
      { headers: as('t10') },
    );
    expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([
      409,
      'E_QUARANTINED',
      expect.stringMatching(/inputs of 3 independent clients made it fail with E_TOO_LARGE/),
    ]);
  });
});

describe('a module that trips a wire in production is quarantined', () => {
  it('its attempt, caught by the module and reached by one response only, quarantines it for everyone', async () => {
    const tripped = await send(
      server.url,
      'POST',
      '/v1/verify',
      { items: [{ env: 'tripping-env', seed: 3, level: 1, response: 'open sesame' }] },
      { headers: as('t11') },
    );
    expect(tripped.body.results[0]).toMatchObject({
      score: 0,
      error: { code: 'E_ESCAPE_ATTEMPT', message: expect.stringMatching(/Function constructor/) },
    });
    const after = await send(
      server.url,
      'POST',
      '/v1/verify',
      { items: [{ env: 'tripping-env', seed: 3, level: 1, response: '<answer>1</answer>' }] },
      { headers: as('t12') },
    );
    expect(after.body.results[0]).toMatchObject({
      score: 0,
      error: { code: 'E_QUARANTINED', message: expect.stringMatching(/reached for a capability outside the contract/) },
    });
  });
});

describe('without an operator token', () => {
  it('nobody may reveal or read the admin view, a bearer token is refused, every score stays untrusted', async () => {
    const bare = await startServer({ libraryDir: dir, port: 0, pool, scoreFlushIntervalMs: 60_000 });
    try {
      const revealed = await send(bare.url, 'POST', '/v1/sample', {
        items: [{ env: 'plus-one', seed: 1, level: 1 }],
        reveal: true,
      });
      expect([revealed.status, revealed.body.error.message]).toEqual([
        403,
        expect.stringMatching(/this service has none.*ENVFORGE_OPERATOR_TOKEN/),
      ]);
      expect((await send(bare.url, 'GET', '/v1/admin/clients', undefined, { headers: OPERATOR })).status).toBe(401);
      const sampled = await send(bare.url, 'POST', '/v1/sample', { items: [{ env: 'plus-one', seed: 2, level: 2 }] });
      const item = sampled.body.items[0];
      expect(
        (
          await send(bare.url, 'POST', '/v1/verify', {
            items: [{ ground_truth: item.ground_truth, response: answerOf(item.prompt) }],
          })
        ).body.results[0].score,
      ).toBe(1);
    } finally {
      await bare.close();
    }
    const library = SqliteLibrary.open(dir);
    try {
      const tallies = await library.scoreTallies();
      expect(tallies.length).toBeGreaterThan(0);
      expect(tallies.every((t) => !t.trusted)).toBe(true);
      expect((await trainerFeedback(library)).source).toBe('none');
    } finally {
      await library.close();
    }
  });
});
