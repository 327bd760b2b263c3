// The runtime defence over a real library: a module admitted by the validator that hangs only at one
// (seed, level) costs the reward service one timed-out item, not a wedged worker; it is recorded as an
// incident of the client that chose that seed (its vote: V21-3), quarantined (E_QUARANTINED per item) when three
// independent clients met it, while other environments keep scoring, and `library
// revalidate` replays the incident and retires it. Requests have a deadline of their own, and an export
// leaves out, and quarantines, an environment that fails while it generates.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../export/run.js';
import { jsonl } from '../export/formats/jsonl.js';
import { revalidate } from '../library/maintenance.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { SandboxPool } from '../sandbox/pool.js';
import { deriveRngState } from '../sandbox/rng.js';
import { loadPlainRuntime } from '../sandbox/runtime.js';
import { startServer } from '../serve/server.js';
import { validateCandidate } from '../validators/validate.js';
import { envSource } from './helpers/env-source.js';
import { fakeAdmission, sampleMeta } from './helpers/library-fixtures.js';
import type { RunningServer } from '../serve/options.js';

/** Products of a few factors, more of them per level; `trap` is code run first in generate. */
function productEnv(name: string, trap = ''): string {
  return envSource({
    meta:
      `{ name: '${name}', title: 'Product', description: 'Multiplies a few small factors.', skills: ` +
      `['arithmetic'], levels: 4 }`,
    generate:
      `${trap} const xs = []; for (let i = 0; i < 1 + 2 * level; i++) xs.push(rng.int(2, 9)); return { prompt: ` +
      `'Multiply: ' + xs.join(' * ') + '. Answer as <answer>N</answer>.', answer: ` +
      `xs.reduce((a, b) => a * b, 1) };`,
  });
}

// The wedge fires only on the instance of (seed 9999, level 4): no validation draw is likely to meet it.
const TRAP_SEED = 9_999;
const TRAP_LEVEL = 4;
const magic = loadPlainRuntime()
  .makeRng(...deriveRngState('wedge-product', TRAP_SEED, TRAP_LEVEL))
  .int(0, 2 ** 31 - 1);
const WEDGE = productEnv('wedge-product', `if (rng.int(0, 2 ** 31 - 1) === ${magic}) { for (;;) {} }`);

const dir = join(mkdtempSync(join(tmpdir(), 'envforge-defence-')), 'lib');
let pool: SandboxPool;
let server: RunningServer;

/** Two named clients besides the anonymous (loopback) one: each independent of the others (serve/clients.ts). */
const TOKENS = ['client-b-token-0123456789abcdef01234', 'client-c-token-0123456789abcdef01234'] as const;

async function post(path: string, body: unknown, token?: string) {
  const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const response = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (await response.json()) as any };
}

beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  const library = SqliteLibrary.open(dir, { create: true });
  for (const source of [WEDGE, productEnv('calm-product')]) {
    const report = await validateCandidate(source, { pool });
    expect(report.problems).toEqual([]);
    await library.admit({ source, report, lineage: { author: 'test' } });
  }
  // Slow but correct (tens of ms per verify), admitted on a test report: for the request deadline.
  const slow = envSource({
    meta: JSON.stringify(sampleMeta('slow-product')),
    verify: 'let x = 0; for (let i = 0; i < 5e7; i++) x += i; return x > 0 ? 0 : 1;',
  });
  await library.admit(fakeAdmission(slow, sampleMeta('slow-product')));
  await library.close();
  const clientTokens = { b: TOKENS[0], c: TOKENS[1] };
  server = await startServer({
    libraryDir: dir,
    port: 0,
    pool,
    callTimeoutMs: 500,
    reloadIntervalMs: 100,
    clientTokens,
  });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await pool?.close();
});

describe('envforge serve: runtime defence', () => {
  it(
    'a module hanging at one seed costs one timed-out item; the clients that chose that seed quarantine it (the ' +
      "third independent one: one client's is its vote, V21-3), others keep scoring",
    async () => {
      const trap = { env: 'wedge-product', seed: TRAP_SEED, level: TRAP_LEVEL, response: '<answer>1</answer>' };
      const first = await post('/v1/verify', {
        items: [
          trap,
          { env: 'wedge-product', seed: 1, level: TRAP_LEVEL, response: '<answer>1</answer>' },
          { env: 'calm-product', seed: 1, level: 1, response: '<answer>1</answer>' },
        ],
      });
      expect(first.status).toBe(200);
      expect(first.body.results[0]).toMatchObject({ score: 0, error: { code: 'E_TIMEOUT' } });
      expect(first.body.results.slice(1)).toEqual([{ score: 0 }, { score: 0 }]);
      // The seed and level are the client's: its confirmed failure there (the instance runs at a seed the service
      // draws) is its vote, and the module still scores for everyone.
      const wedge = { env: 'wedge-product', seed: 5, level: 2, response: 'x' };
      expect((await post('/v1/verify', { items: [wedge] })).body.results).toEqual([{ score: 0 }]);
      for (const token of TOKENS)
        expect((await post('/v1/verify', { items: [trap] }, token)).body.results[0]).toMatchObject({
          error: { code: 'E_TIMEOUT' },
        });

      const after = await post('/v1/verify', {
        items: [wedge, { env: 'calm-product', seed: 2, level: 2, response: 'x' }],
      });
      expect(after.body.results[0]).toMatchObject({
        score: 0,
        error: {
          code: 'E_QUARANTINED',
          message: expect.stringMatching(/3 independent clients .*E_TIMEOUT.*revalidate/),
        },
      });
      expect(after.body.results[1]).toEqual({ score: 0 });
      const sampled = await post('/v1/sample', { items: [{ env: 'wedge-product', seed: 3, level: 1 }] });
      expect(sampled.body.items[0].error.code).toBe('E_QUARANTINED');
      expect((await fetch(`${server.url}/health`).then((r) => r.json())) as unknown).toMatchObject({
        envs: 3,
        quarantined: 1,
      });
    },
  );

  it('records the incident in the library; revalidation replays its seed and level, retires the module', async () => {
    const library = SqliteLibrary.open(dir);
    try {
      const incidents = await library.incidents({ open: true });
      // One per client that chose the trap: each its vote, confirmed at that seed and level.
      const vote = {
        name: 'wedge-product',
        version: 1,
        seed: TRAP_SEED,
        level: TRAP_LEVEL,
        code: 'E_TIMEOUT',
        fn: 'instance(client seed)',
        origin: 'serve',
        confirmed: true,
      };
      expect(incidents).toMatchObject([vote, vote, vote]);
      expect(new Set(incidents.map((i) => i.client)).size).toBe(3);
      const outcomes = await revalidate(library, pool, ['wedge-product']);
      expect(outcomes).toMatchObject([
        {
          name: 'wedge-product',
          verdict: 'reject',
          retired: true,
          incidents: 3,
          codes: expect.arrayContaining(['E_TIMEOUT']),
        },
      ]);
      expect(await library.incidents({ open: true })).toEqual([]);
      expect((await library.incidents())[0]?.resolution).toMatch(/retired by revalidation/);
    } finally {
      await library.close();
    }
    // The service picks up the retirement: the name has no active version left.
    let result: { error?: { code: string; message: string } } = {};
    for (let i = 0; i < 50 && !/no active version/.test(result.error?.message ?? ''); i++) {
      await new Promise((r) => setTimeout(r, 100));
      result = (await post('/v1/verify', { items: [{ env: 'wedge-product', seed: 5, level: 2, response: 'x' }] })).body
        .results[0];
    }
    expect(result.error).toMatchObject({ code: 'E_UNKNOWN_ENV', message: expect.stringMatching(/no active version/) });
  });

  it('fails items not scored within the per-request budget with E_REQUEST_TIMEOUT', async () => {
    const hurried = await startServer({ libraryDir: dir, port: 0, pool, requestTimeoutMs: 10 });
    try {
      const response = await fetch(`${hurried.url}/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ items: [{ env: 'slow-product', seed: 7, level: 3, response: 'x' }] }),
      });
      expect(await response.json()).toMatchObject({ results: [{ score: 0, error: { code: 'E_REQUEST_TIMEOUT' } }] });
    } finally {
      await hurried.close();
    }
  });
});

describe("envforge serve: a failure in a sample the service drew is the client's draw (V21-3, V22-1)", () => {
  it("a seedless select's rare failure is the client's vote; a level failing everywhere quarantines", async () => {
    // Generate throws at about one seed in ten of level 3 (tenth-product), or at every seed of level 3: the service
    // drew the 200 seeds, but the client chose the environment, the level and the count.
    const tenth = productEnv('tenth-product', "if (level === 3 && rng.int(1, 10) === 1) throw new Error('no stock');");
    const broken = productEnv('broken-product', "if (level === 3) throw new Error('no stock');");
    const drawnDir = join(mkdtempSync(join(tmpdir(), 'envforge-defence-drawn-')), 'lib');
    const library = SqliteLibrary.open(drawnDir, { create: true });
    await library.admit(fakeAdmission(tenth, sampleMeta('tenth-product', { levels: 4 })));
    await library.admit(fakeAdmission(broken, sampleMeta('broken-product', { levels: 4 })));
    await library.close();
    const drawn = await startServer({ libraryDir: drawnDir, port: 0, pool, reloadIntervalMs: 100 });
    try {
      const sample = (select: object) =>
        fetch(`${drawn.url}/v1/sample`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ select }),
        }).then((r) => r.json() as Promise<{ items: Array<{ error?: { code: string } }> }>);
      const first = await sample({ env: 'tenth-product', n: 200, levels: [3, 3] });
      expect(first, JSON.stringify(first).slice(0, 500)).toHaveProperty('items');
      expect(first.items.some((i) => i.error?.code === 'E_THROWN')).toBe(true);
      const after = await sample({ env: 'tenth-product', n: 1, levels: [1, 1] });
      expect(after.items[0]).not.toHaveProperty('error');
      await sample({ env: 'broken-product', n: 5, levels: [3, 3] });
      const gone = await sample({ env: 'broken-product', n: 1, levels: [1, 1] });
      expect(gone.items[0]?.error?.code).toBe('E_QUARANTINED');
    } finally {
      await drawn.close();
    }
  }, 60_000);
});

describe('envforge export: runtime defence', () => {
  it(
    'an environment whose generate fails in production is recorded, quarantined and left ' +
      'out; the rest is exported',
    async () => {
      const exportDir = join(mkdtempSync(join(tmpdir(), 'envforge-defence-export-')), 'lib');
      const library = SqliteLibrary.open(exportDir, { create: true });
      try {
        // Admitted on a (test) report: a module that slipped through validation and throws at level 3.
        const broken = productEnv('broken-product', "if (level === 3) throw new Error('level 3 is broken');");
        const meta = sampleMeta('broken-product', { levels: 4 });
        await library.admit(fakeAdmission(broken, meta));
        const calm = productEnv('calm-product');
        await library.admit(fakeAdmission(calm, sampleMeta('calm-product', { levels: 4 })));
        const out = join(exportDir, '..', 'out');
        const summary = await runExport(library, pool, {
          format: jsonl,
          out,
          selection: {},
          counts: { perEnv: 40 },
          splits: [{ name: 'train', weight: 1_000_000 }],
          seed: 3,
          serviceUrl: 'http://127.0.0.1:1',
        });
        expect(summary.quarantined).toEqual([
          { name: 'broken-product', version: 1, reason: expect.stringMatching(/E_THROWN in generate/) },
        ]);
        expect(summary.envs.find((e) => e.name === 'calm-product')?.rows).toEqual({ train: 40 });
        const incidents = await library.incidents({ open: true });
        expect(incidents.length).toBeGreaterThanOrEqual(1);
        expect(
          incidents.every(
            (i) => i.name === 'broken-product' && i.level === 3 && i.code === 'E_THROWN' && i.origin === 'export',
          ),
        ).toBe(true);
      } finally {
        await library.close();
      }
    },
  );
});
