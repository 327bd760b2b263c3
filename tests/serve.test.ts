// The reward service over a real library and real sockets: scores match in-process verification, sampling
// is deterministic, bad input is a 4xx naming the field, a hanging verifier fails only its own item, a full
// queue answers 503 + retry-after, new admissions appear without a restart, and close() lets requests finish.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { runEpisodes, scoreOf } from '../sandbox/episodes.js';
import { SandboxPool } from '../sandbox/pool.js';
import { startServer } from '../serve/server.js';
import { validateCandidate } from '../validators/validate.js';
import { envSource } from './helpers/env-source.js';
import { seededLibraryCopy } from './helpers/seeded-library.js';
import type { RunningServer } from '../serve/options.js';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** A small valid environment (sums of numbers, more of them per level) whose verify hangs on 'hang'. */
function sumEnv(name: string): string {
  return envSource({
    meta:
      `{ name: '${name}', title: 'Sum', description: 'Adds a list of numbers; the verifier hangs on one magic ` +
      `response.', skills: ['testing'], levels: 4 }`,
    generate:
      'const xs = []; for (let i = 0; i < 2 + 4 * level; i++) xs.push(rng.int(1, 99 * level)); return { ' +
      "prompt: 'Add these numbers: ' + xs.join(' ') + '. Answer as <answer>N</answer>.', answer: " +
      'xs.reduce((a, b) => a + b, 0) };',
    verify:
      "if (response === 'hang') { for (;;) {} } return kit.int(kit.answer(response) ?? '') === " +
      'instance.answer ? 1 : 0;',
  });
}

interface Sampled {
  env: string;
  version: number;
  seed: number;
  level: number;
  prompt: string;
  ground_truth: string;
  hidden?: Record<string, unknown>;
  reference?: string;
  error?: { code: string; message: string };
}
interface Result {
  score: number;
  feedback?: string;
  error?: { code: string; message: string };
}

/** The operator's token: these tests sample with reveal, which needs it (tests/serve-roles.test.ts tests the roles). */
const TOKEN = 'serve-test-operator-token';
const AS_OPERATOR = { authorization: `Bearer ${TOKEN}` };

async function call(base: string, path: string, body?: unknown, init: { raw?: string; contentType?: string } = {}) {
  const response = await fetch(base + path, {
    method: body === undefined && init.raw === undefined ? 'GET' : 'POST',
    ...(body === undefined && init.raw === undefined
      ? { headers: AS_OPERATOR }
      : {
          headers: { ...AS_OPERATOR, 'content-type': init.contentType ?? 'application/json' },
          body: init.raw ?? JSON.stringify(body),
        }),
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as any };
}

const tmp = mkdtempSync(join(tmpdir(), 'envforge-serve-'));
const dirA = join(tmp, 'a');
const dirB = join(tmp, 'b');
let pool: SandboxPool;
let poolB: SandboxPool;
let libA: SqliteLibrary;
let A: RunningServer;
let B: RunningServer;

beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  // The single-turn seeds, validated once per test run (tests/helpers/seeded-library.ts).
  const { outcomes } = await seededLibraryCopy('single', dirA);
  libA = SqliteLibrary.open(dirA);
  expect(outcomes.filter((o) => o.status !== 'admitted')).toEqual([]);
  A = await startServer({
    operatorToken: TOKEN,
    libraryDir: dirA,
    port: 0,
    bodyLimitBytes: 4 * 2 ** 20,
    maxItemsPerRequest: 2_000,
    reloadIntervalMs: 200,
  });

  // Library B: one environment whose verifier hangs on the response 'hang' (never probed, so admitted).
  const source = sumEnv('hang-env');
  const report = await validateCandidate(source, { pool });
  expect(report.problems).toEqual([]);
  const libB = SqliteLibrary.open(dirB, { create: true });
  await libB.admit({ source, report, lineage: { author: 'test' } });
  await libB.close();
  poolB = new SandboxPool({ workers: 1 });
  // These tests are about containment and backpressure: the runtime defence (quarantine) has its own below.
  B = await startServer({
    operatorToken: TOKEN,
    libraryDir: dirB,
    port: 0,
    pool: poolB,
    maxQueue: 2,
    callTimeoutMs: 500,
    quarantine: false,
  });
}, 600_000); // the seeded library: the first file to ask makes it, the others wait (minutes under load)

afterAll(async () => {
  await A?.close();
  await B?.close();
  await poolB?.close();
  await pool?.close();
  await libA?.close();
});

async function sample(base: string, body: unknown): Promise<Sampled[]> {
  const { status, body: out } = await call(base, '/v1/sample', body);
  expect(status).toBe(200);
  return out.items as Sampled[];
}

describe('envforge serve: catalog', () => {
  it('GET /health and /v1/envs list the active environments', async () => {
    const health = await call(A.url, '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', envs: 12 });
    const { body } = await call(A.url, '/v1/envs');
    expect(body.envs).toHaveLength(12);
    expect(body.envs.map((e: { name: string }) => e.name)).toContain('planted-sat');
    for (const env of body.envs) {
      expect(Object.keys(env).sort()).toEqual([
        'description',
        'hash',
        'kind',
        'levels',
        'name',
        'skills',
        'title',
        'version',
      ]);
      expect(env.version).toBe(1);
      expect(env.hash).toBe((await libA.get(env.name))?.hash);
    }
    const all = (await call(A.url, '/v1/envs?versions=all')).body.envs;
    expect(all.map((e: { name: string; status: string }) => [e.name, e.status])).toEqual(
      body.envs.map((e: { name: string }) => [e.name, 'active']),
    );
  });

  it('logs per-item errors of the scoring endpoints: the first of each code at once, then the rate', async () => {
    const lines: string[] = [];
    // A long interval: the rate line comes from close(), which flushes, so no timing is involved.
    const C = await startServer({
      operatorToken: TOKEN,
      libraryDir: dirB,
      port: 0,
      pool: poolB,
      log: (line) => lines.push(line),
      errorLogIntervalMs: 600_000,
    });
    try {
      const unknown = JSON.stringify({ env: 'not-in-this-library', version: 1, seed: 1, level: 1 });
      const answer = await call(C.url, '/v1/verify', {
        items: [
          { ground_truth: unknown, response: 'x' },
          { ground_truth: unknown, response: 'y' },
          { env: 'hang-env', seed: 1, level: 9, response: 'z' },
        ],
      });
      expect(answer.body.results.map((r: Result) => r.error?.code)).toEqual([
        'E_UNKNOWN_ENV',
        'E_UNKNOWN_ENV',
        'E_LEVEL_RANGE',
      ]);
      await call(C.url, '/get_reward', { query: ['p!'], prompts: ['p'], labels: [unknown] });
      expect(
        lines.filter((l) => /an item scored 0 with E_UNKNOWN_ENV: unknown environment "not-in-this-library"/.test(l)),
      ).toHaveLength(1);
      expect(lines.filter((l) => /an item scored 0 with E_LEVEL_RANGE/.test(l))).toHaveLength(1);
    } finally {
      await C.close();
    }
    expect(lines.at(-1)).toMatch(
      new RegExp(
        String.raw`^envforge serve: 4 of 4 scored items \(100\.0%\) failed in the last \d+\.\d s: E_UNKNOWN_ENV ` +
          '3, E_LEVEL_RANGE 1$',
      ),
    );
  });
});

describe('envforge serve: sampling', () => {
  it('select is deterministic for the same seed, honours its filters and reveals only when asked', async () => {
    const select = { n: 20, seed: 42, levels: [2, 5] };
    const first = await sample(A.url, { select });
    const again = await sample(A.url, { select });
    expect(again).toEqual(first);
    const other = await sample(A.url, { select: { ...select, seed: 43 } });
    expect(other).not.toEqual(first);
    expect(new Set(first.map((s) => s.env)).size).toBeGreaterThan(3);
    for (const item of first) {
      expect(item.level).toBeGreaterThanOrEqual(2);
      expect(item.level).toBeLessThanOrEqual(5);
      expect(item.hidden).toBeUndefined();
      expect(item.reference).toBeUndefined();
      expect(typeof item.prompt).toBe('string');
      expect(JSON.parse(item.ground_truth)).toEqual({ env: item.env, version: 1, seed: item.seed, level: item.level });
    }
    const revealed = await sample(A.url, { select, reveal: true });
    expect(revealed.map(({ hidden: _h, reference: _r, ...rest }) => rest)).toEqual(first);
    for (const item of revealed) {
      expect(typeof item.reference).toBe('string');
      expect(item.hidden).toBeTypeOf('object');
      expect(item.hidden).not.toHaveProperty('prompt');
    }
    const filtered = await sample(A.url, { select: { n: 5, seed: 1, env: 'planted-sat' } });
    expect(new Set(filtered.map((s) => s.env))).toEqual(new Set(['planted-sat']));
    const envs = (await call(A.url, '/v1/envs')).body.envs as Array<{ name: string; skills: string[] }>;
    const skill = (envs[0] as { skills: string[] }).skills[0] as string;
    const bySkill = await sample(A.url, { select: { n: 10, seed: 3, skills: [skill] } });
    const allowed = new Set(envs.filter((e) => e.skills.includes(skill)).map((e) => e.name));
    expect(bySkill.every((s) => allowed.has(s.env))).toBe(true);
    // Without a seed the server picks one and returns it, so the draw can be repeated.
    const { body } = await call(A.url, '/v1/sample', { select: { n: 3 } });
    expect(typeof body.seed).toBe('number');
    expect(await sample(A.url, { select: { n: 3, seed: body.seed } })).toEqual(body.items);
  });

  it('items regenerate exactly the instance the sandbox generates in-process', async () => {
    const items = await sample(A.url, {
      items: [
        { env: 'expression-eval', seed: 5, level: 3 },
        { env: 'topological-order', version: 1, seed: 0, level: 1 },
      ],
      reveal: true,
    });
    for (const item of items) {
      const record = await libA.get(item.env);
      const { episodes } = await runEpisodes(pool, await libA.source(record!), [
        { seed: item.seed, level: item.level },
      ]);
      const episode = episodes[0]!;
      if (!episode.ok) throw new Error(episode.message);
      expect(item.prompt).toBe(episode.instance.prompt);
      expect(item.reference).toBe(episode.reference);
      const { prompt: _p, ...hidden } = episode.instance;
      expect(item.hidden).toEqual(hidden);
    }
  });
});

describe('envforge serve: scoring', () => {
  let items: Sampled[];
  beforeAll(async () => {
    items = await sample(A.url, { select: { n: 24, seed: 9 }, reveal: true });
  });

  it('scores the reference 1 and a wrong answer 0, through both item forms', async () => {
    const { status, body } = await call(A.url, '/v1/verify', {
      items: [
        ...items.map((s) => ({ env: s.env, version: s.version, seed: s.seed, level: s.level, response: s.reference })),
        ...items.map((s) => ({ ground_truth: s.ground_truth, response: s.reference })),
        ...items.map((s) => ({ env: s.env, seed: s.seed, level: s.level, response: 'I do not know.' })),
        ...items.map((s) => ({ ground_truth: s.ground_truth, response: '<answer>not it</answer>' })),
      ],
    });
    expect(status).toBe(200);
    const scores = (body.results as Result[]).map((r) => r.score);
    const n = items.length;
    expect(scores.slice(0, 2 * n)).toEqual(Array(2 * n).fill(1));
    expect(scores.slice(2 * n)).toEqual(Array(2 * n).fill(0));
    expect((body.results as Result[]).every((r) => r.error === undefined)).toBe(true);
  });

  it('POST /get_reward speaks the OpenRLHF protocol and strips the prompt prefix', async () => {
    const query = [
      ...items.map((s) => s.prompt + s.reference),
      ...items.map((s) => s.prompt + 'no idea'),
      ...items.map((s) => s.reference as string),
    ];
    const prompts = [
      ...items.map((s) => s.prompt),
      ...items.map((s) => s.prompt),
      ...items.map((s) => `a different prompt for ${s.env}`),
    ];
    const labels = [...items, ...items, ...items].map((s) => s.ground_truth);
    const { status, body } = await call(A.url, '/get_reward', { query, prompts, labels });
    expect(status).toBe(200);
    const n = items.length;
    expect(body.rewards).toEqual([...Array(n).fill(1), ...Array(n).fill(0), ...Array(n).fill(1)]);
    expect(body.scores).toEqual(body.rewards);
    expect(body.extra_logs).toEqual({ envforge_error: Array(3 * n).fill(0) });
  });

  it('scores equal in-process verification for reference, wrong and adversarial responses', async () => {
    const chosen = items.filter((s, i) => items.findIndex((t) => t.env === s.env) === i).slice(0, 6);
    for (const s of chosen) {
      const record = await libA.get(s.env);
      const source = await libA.source(record!);
      const responses = [
        s.reference as string,
        '<answer>0</answer>',
        '',
        '   ',
        s.prompt,
        `${s.prompt}\n<answer>${s.reference}</answer>`,
        `<answer>${'9'.repeat(2 ** 20)}</answer>`,
      ];
      const { episodes } = await runEpisodes(pool, source, [{ seed: s.seed, level: s.level, responses }]);
      const episode = episodes[0]!;
      if (!episode.ok) throw new Error(episode.message);
      const expected = episode.verdicts.map(scoreOf);
      const { status, body } = await call(A.url, '/v1/verify', {
        items: responses.map((response) => ({ ground_truth: s.ground_truth, response })),
      });
      expect(status).toBe(200);
      expect(
        (body.results as Result[]).map((r) => r.score),
        s.env,
      ).toEqual(expected);
      expect(expected[0]).toBe(1);
      expect(expected.slice(2, 5)).toEqual([0, 0, 0]);
    }
  });

  it('judges library-dependent problems per item: unknown env or version, level past the env', async () => {
    const good = items[0]!;
    const { status, body } = await call(A.url, '/v1/verify', {
      items: [
        { env: 'no-such-env', seed: 1, level: 1, response: 'x' },
        { env: good.env, version: 99, seed: 1, level: 1, response: 'x' },
        { env: 'planted-sat', seed: 1, level: 15, response: 'x' },
        { ground_truth: good.ground_truth, response: good.reference },
      ],
    });
    expect(status).toBe(200);
    expect(body.results).toEqual([
      {
        score: 0,
        error: { code: 'E_UNKNOWN_ENV', message: expect.stringMatching(/unknown environment "no-such-env"/) },
      },
      { score: 0, error: { code: 'E_UNKNOWN_ENV', message: expect.stringMatching(/has no version 99/) } },
      {
        score: 0,
        error: { code: 'E_LEVEL_RANGE', message: expect.stringMatching(/level 15 is past planted-sat@1's 10 levels/) },
      },
      expect.objectContaining({ score: 1 }),
    ]);
    // /v1/sample refuses instead: there is nothing to return for an unknown environment.
    expect(await call(A.url, '/v1/sample', { items: [{ env: 'no-such-env', seed: 1, level: 1 }] })).toMatchObject({
      status: 404,
      body: { error: { code: 'E_UNKNOWN_ENV' } },
    });
    expect(await call(A.url, '/v1/sample', { select: { env: 'no-such-env', n: 1 } })).toMatchObject({
      status: 404,
      body: { error: { message: expect.stringMatching(/select\.env/) } },
    });
    expect(await call(A.url, '/v1/sample', { items: [{ env: 'planted-sat', seed: 1, level: 15 }] })).toMatchObject({
      status: 400,
      body: { error: { code: 'E_LEVEL_RANGE' } },
    });
  });
});

describe('envforge serve: bad input is a 4xx naming the field, never a 5xx', () => {
  const cases: Array<[string, string, unknown, { raw?: string; contentType?: string }, number, RegExp]> = [
    ['malformed JSON', '/v1/verify', undefined, { raw: '{"items": [' }, 400, /not valid JSON/],
    ['empty JSON body', '/v1/verify', undefined, { raw: '' }, 400, /empty/i],
    ['a body that is not an object', '/v1/verify', [1, 2], {}, 400, /body must be a JSON object/],
    ['missing items', '/v1/verify', {}, {}, 400, /^items: is required/],
    ['items not an array', '/v1/verify', { items: 'x' }, {}, 400, /^items: must be an array/],
    [
      'a seed of the wrong type',
      '/v1/verify',
      { items: [{ env: 'planted-sat', seed: '5', level: 1, response: '' }] },
      {},
      400,
      /items\[0\]\.seed: must be a number/,
    ],
    [
      'a missing response',
      '/v1/verify',
      {
        items: [
          { env: 'planted-sat', seed: 5, level: 1, response: '' },
          { env: 'planted-sat', seed: 5, level: 1 },
        ],
      },
      {},
      400,
      /^items\[1\]\.response: is required/,
    ],
    [
      'a negative seed',
      '/v1/verify',
      { items: [{ env: 'planted-sat', seed: -1, level: 1, response: '' }] },
      {},
      400,
      /items\[0\]\.seed: must be a non-negative integer/,
    ],
    [
      'a fractional seed',
      '/v1/verify',
      { items: [{ env: 'planted-sat', seed: 1.5, level: 1, response: '' }] },
      {},
      400,
      /items\[0\]\.seed: must be an integer/,
    ],
    [
      'level 0',
      '/v1/verify',
      { items: [{ env: 'planted-sat', seed: 1, level: 0, response: '' }] },
      {},
      400,
      /items\[0\]\.level: must be at least 1/,
    ],
    [
      'level 21',
      '/v1/verify',
      { items: [{ env: 'planted-sat', seed: 1, level: 21, response: '' }] },
      {},
      400,
      /items\[0\]\.level: must be at most 20/,
    ],
    [
      'a ground truth that is not JSON',
      '/v1/verify',
      { items: [{ ground_truth: 'planted-sat:1', response: '' }] },
      {},
      400,
      /items\[0\]\.ground_truth: is not valid JSON/,
    ],
    [
      'a ground truth without a seed',
      '/v1/verify',
      { items: [{ ground_truth: '{"env":"planted-sat","level":1}', response: '' }] },
      {},
      400,
      /items\[0\]\.ground_truth\.seed: is required/,
    ],
    ['get_reward without query', '/get_reward', { prompts: [], labels: [] }, {}, 400, /^query: is required/],
    [
      'get_reward with fewer labels than queries',
      '/get_reward',
      { query: ['a', 'b'], prompts: ['', ''], labels: ['x'] },
      {},
      400,
      /labels has 1 entries but query has 2/,
    ],
    [
      'get_reward with a bad label',
      '/get_reward',
      { query: ['a'], prompts: [''], labels: ['{"env":"planted-sat","seed":-3,"level":1}'] },
      {},
      400,
      /labels\[0\]\.seed: must be a non-negative integer/,
    ],
    [
      'sample with both items and select',
      '/v1/sample',
      { items: [], select: { n: 1 } },
      {},
      400,
      /exactly one of items/,
    ],
    [
      'sample with levels reversed',
      '/v1/sample',
      { select: { n: 1, levels: [5, 2] } },
      {},
      400,
      /select\.levels: must be \[min, max\]/,
    ],
    ['sample with n missing', '/v1/sample', { select: {} }, {}, 400, /select\.n: is required/],
    [
      'sample with reveal of the wrong type',
      '/v1/sample',
      { select: { n: 1 }, reveal: 'yes' },
      {},
      400,
      /reveal: must be true or false/,
    ],
    [
      'too many items',
      '/v1/verify',
      { items: Array.from({ length: 2_001 }, () => ({ env: 'planted-sat', seed: 1, level: 1, response: '' })) },
      {},
      413,
      /items has 2001 entries; at most 2000/,
    ],
    [
      'too many queries',
      '/get_reward',
      { query: Array(2_001).fill(''), prompts: Array(2_001).fill(''), labels: Array(2_001).fill('') },
      {},
      413,
      /query has 2001 entries/,
    ],
    ['too many to sample', '/v1/sample', { select: { n: 2_001 } }, {}, 413, /select\.n has 2001 entries/],
    [
      'a body over the limit',
      '/v1/verify',
      { items: [{ env: 'planted-sat', seed: 1, level: 1, response: 'x'.repeat(5 * 2 ** 20) }] },
      {},
      413,
      /over the limit of 4194304 bytes/,
    ],
    [
      'a body that is not JSON at all',
      '/v1/verify',
      undefined,
      { raw: '<xml/>', contentType: 'application/xml' },
      415,
      /content-type: application\/json/,
    ],
    ['an unknown endpoint', '/v2/verify', {}, {}, 404, /no endpoint POST \/v2\/verify/],
  ];
  for (const [what, path, body, init, status, message] of cases) {
    it(what, async () => {
      const out = await call(A.url, path, body, init);
      expect(out.status).toBe(status);
      expect(out.body.error.message).toMatch(message);
      expect(typeof out.body.error.code).toBe('string');
    });
  }

  it('still serves after all of that', async () => {
    expect((await call(A.url, '/health')).body).toMatchObject({ status: 'ok', envs: 12, inflight: 0 });
  });
});

describe('envforge serve: failures, backpressure, reload and shutdown', () => {
  let hang: Sampled;
  beforeAll(async () => {
    [hang] = (await sample(B.url, { select: { n: 1, seed: 1 }, reveal: true })) as [Sampled];
  });
  const item = (response: string) => ({ env: hang.env, seed: hang.seed, level: hang.level, response });
  const waitForInflight = async (base: string) => {
    for (let i = 0; i < 100; i++) {
      if ((await call(base, '/health')).body.inflight > 0) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the request never became in flight');
  };

  it('a verifier that hangs fails only its own item with E_TIMEOUT, and the server keeps serving', async () => {
    const { status, body } = await call(B.url, '/v1/verify', {
      items: [item('hang'), item(hang.reference as string), item('<answer>-1</answer>')],
    });
    expect(status).toBe(200);
    expect(body.results[0]).toMatchObject({ score: 0, error: { code: 'E_TIMEOUT' } });
    expect(body.results[1]).toEqual({ score: 1 });
    expect(body.results[2]).toEqual({ score: 0 });
    const after = await call(B.url, '/v1/verify', { items: [item(hang.reference as string)] });
    expect(after.body.results).toEqual([{ score: 1 }]);
    const reward = await call(B.url, '/get_reward', {
      query: [`${hang.prompt}hang`],
      prompts: [hang.prompt],
      labels: [hang.ground_truth],
    });
    expect(reward).toMatchObject({ status: 200, body: { rewards: [0], extra_logs: { envforge_error: [1] } } });
  });

  it('items failed by other items (a shared episode, a job cut off after three timeouts) run again alone', async () => {
    // limits.maxFailuresPerJob (3) stops a job after three timeouts: the calls after them come back "not run".
    const four = await sample(B.url, { select: { n: 4, seed: 77 }, reveal: true });
    const items = four.flatMap((s) => [
      { ground_truth: s.ground_truth, response: 'hang' },
      { ground_truth: s.ground_truth, response: s.reference },
    ]);
    const { status, body } = await call(B.url, '/v1/verify', { items });
    expect(status).toBe(200);
    const codes = (body.results as Result[]).map((r) => r.error?.code ?? r.score);
    expect(codes).toEqual(['E_TIMEOUT', 1, 'E_TIMEOUT', 1, 'E_TIMEOUT', 1, 'E_TIMEOUT', 1]);
  });

  it('answers 503 with retry-after when the queue is full, and serves again once it drains', async () => {
    const slow = call(B.url, '/v1/verify', { items: [item('hang')] });
    await waitForInflight(B.url);
    const refused = await call(B.url, '/v1/verify', { items: [item('a'), item('b')] });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.body.error.code).toBe('E_OVERLOADED');
    expect((await slow).body.results[0].error.code).toBe('E_TIMEOUT');
    expect(
      (await call(B.url, '/v1/verify', { items: [item(hang.reference as string), item('x')] })).body.results,
    ).toEqual([{ score: 1 }, { score: 0 }]);
  });

  it('picks up a newly admitted environment without a restart', async () => {
    const source = sumEnv('late-arrival');
    const report = await validateCandidate(source, { pool });
    expect(report.verdict).toBe('admit');
    const admitted = Date.now();
    await libA.admit({ source, report, lineage: { author: 'test' } });
    let names: string[] = [];
    while (Date.now() - admitted < 5_000 && !names.includes('late-arrival')) {
      await new Promise((r) => setTimeout(r, 50));
      names = (await call(A.url, '/v1/envs')).body.envs.map((e: { name: string }) => e.name);
    }
    expect(names).toContain('late-arrival');
    const [fresh] = (await sample(A.url, { select: { env: 'late-arrival', n: 1, seed: 5 }, reveal: true })) as [
      Sampled,
    ];
    expect(
      (await call(A.url, '/v1/verify', { items: [{ ground_truth: fresh.ground_truth, response: fresh.reference }] }))
        .body.results,
    ).toEqual([{ score: 1 }]);
    expect((await call(A.url, '/health')).body.envs).toBe(13);
  });

  it('close() finishes in-flight requests, then refuses connections; a pool it was given stays open', async () => {
    const C = await startServer({
      operatorToken: TOKEN,
      libraryDir: dirB,
      port: 0,
      pool: poolB,
      callTimeoutMs: 500,
      quarantine: false,
    });
    const slow = call(C.url, '/v1/verify', { items: [item('hang'), item(hang.reference as string)] });
    await waitForInflight(C.url);
    await C.close();
    const { status, body } = await slow;
    expect(status).toBe(200);
    expect(body.results[0].error.code).toBe('E_TIMEOUT');
    expect(body.results[1]).toEqual({ score: 1 });
    await expect(fetch(`${C.url}/health`)).rejects.toThrow();
    await C.close(); // idempotent
    const { episodes } = await runEpisodes(poolB, sumEnv('hang-env'), [{ seed: 1, level: 1 }]);
    expect(episodes[0]?.ok).toBe(true);
  });
});

describe('envforge serve: the command', () => {
  // The real binary (built by `npm test` before vitest runs).
  const MAIN = join(REPO_ROOT, 'dist', 'cli', 'main.js');
  const start = (...args: string[]) =>
    spawn(process.execPath, [MAIN, ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ENVFORGE_OPERATOR_TOKEN: TOKEN },
    });
  const exit = (child: ReturnType<typeof start>) =>
    new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  it('prints the URL, serves, and shuts down gracefully on SIGTERM', async () => {
    const child = start('serve', '--port', '0', '--library', dirB, '--max-queue', '100');
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        stdout += d;
        const match = new RegExp(
          String.raw`listening on (http:\/\/\S+) \(POST \/v1\/verify.*GET \/health.*POST \/get_reward.*POST ` +
            String.raw`\/v1\/episodes.*WS \/openenv\/\{env\}\/ws.*\), library \S+`,
        ).exec(stdout);
        if (match) resolve(match[1] as string);
      });
      child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
    });
    expect((await call(url, '/health')).body).toEqual({
      status: 'ok',
      envs: 1,
      quarantined: 0,
      inflight: 0,
      maxQueue: 100,
      sessions: 0,
      maxSessions: 4096,
    });
    const exited = exit(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/SIGTERM: finishing in-flight requests/);
    expect(stderr).toMatch(/operator token set/);
    expect(stdout.trim().split('\n')).toHaveLength(1);
  });

  it('a missing library is a clear error with exit 1', async () => {
    const child = start('serve', '--port', '0', '--library', join(tmp, 'nowhere'));
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    expect(await exit(child)).toBe(1);
    expect(stderr).toMatch(/no library at .*nowhere: create one with `envforge library init/);
  });

  it('a bad flag is a usage error', async () => {
    const child = start('serve', '--port', '70000', '--library', dirB);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    expect(await exit(child)).toBe(2);
    expect(stderr).toMatch(/--port needs an integer from 0 to 65535/);
  });
});
