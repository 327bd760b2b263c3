// Red team rtv2 (tests/fixtures/redteam-rtv2/FINDINGS.md): the reward service's code answers, as a hostile
// client among honest ones. Each open finding is an it.fails test named by its id: it states what should hold
// and fails while the hole exists; a fix turns it red, then flip it to it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { answerPoolFor } from '../sandbox/code/answer-pool.js';
import { fenceProgram } from '../sandbox/code/program.js';
import { SandboxPool } from '../sandbox/pool.js';
import { startServer } from '../serve/server.js';
import type { RunningServer } from '../serve/options.js';
import { validateCandidate } from '../validators/validate.js';

const SOURCE = readFileSync(new URL('../seeds/code/count-inversions.js', import.meta.url), 'utf8');
const SOLVED =
  'function countInversions(nums) { let c = 0; for (let i = 0; i < nums.length; i++) for (let j = i + 1; j < ' +
  'nums.length; j++) if (nums[i] > nums[j]) c++; return c; }';
const LOOP = 'function countInversions(nums) { for (;;) {} }';
const ATTACKER = 'attacker-token-rtv2-0000000000000001';
const VICTIM = 'victim-token-rtv2-00000000000000000002';

let pool: SandboxPool;
let server: RunningServer;
let dir: string;

async function verify(token: string, items: unknown[]) {
  const response = await fetch(`${server.url}/v1/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ items }),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as {
      results: Array<{ score: number; error?: { code: string } }>;
      error?: { code: string; message: string };
    },
  };
}

const item = (seed: number, program: string) => ({
  ground_truth: JSON.stringify({ env: 'count-inversions', version: 1, seed, level: 2 }),
  response: fenceProgram(program),
});

beforeAll(async () => {
  pool = new SandboxPool({ workers: 2 });
  // A small bound on each client's waiting code answers, so the 503 past it costs one request's budget to show.
  answerPoolFor(pool, { maxQueuedPerOwner: 300 });
  dir = mkdtempSync(join(tmpdir(), 'envforge-rtv2-'));
  const library = SqliteLibrary.open(dir, { create: true });
  const report = await validateCandidate(SOURCE, { pool });
  expect(report.verdict).toBe('admit');
  await library.admit({ source: SOURCE, report, lineage: { author: 'test' } });
  await library.close();
  server = await startServer({
    libraryDir: dir,
    port: 0,
    pool,
    callTimeoutMs: 300,
    requestTimeoutMs: 4_000,
    clientTokens: { attacker: ATTACKER, victim: VICTIM },
  });
}, 240_000);
afterAll(async () => {
  await server?.close();
  if (pool) await answerPoolFor(pool).close();
  await pool?.close();
});

describe('rtv2-1: the code answer pool is one first-come queue for every client, and outlives the request', () => {
  it('held: the honest client alone is scored well within the request budget', async () => {
    const honest = await verify(VICTIM, [item(1000, SOLVED)]);
    expect(honest.body.results[0]).toMatchObject({ score: 1 });
    expect(honest.body.results[0]?.error).toBeUndefined();
  }, 60_000);

  it("an honest client is scored after another client's request of looping programs has been answered", async () => {
    // One request of one client: GRPO groups of 64 programs that loop (each stops after maxTimeouts tests), two
    // groups per answer worker (there is one per core), so the backlog outlasts the request's budget anywhere.
    const seeds = Array.from({ length: 2 * Math.max(2, availableParallelism()) }, (_, i) => i + 1);
    const attack = await verify(
      ATTACKER,
      seeds.flatMap((seed) => Array.from({ length: 64 }, () => item(seed, LOOP))),
    );
    expect(attack.status).toBe(200);
    // The attacker has its answer (its items past the request budget) and holds nothing in flight...
    expect(attack.body.results.some((r) => r.error?.code === 'E_REQUEST_TIMEOUT')).toBe(true);
    // ...and its programs were dropped or stopped with it (they ran on, first in the queue, while this was open).
    const honest = await verify(VICTIM, [item(1000, SOLVED)]);
    expect(honest.status).toBe(200);
    expect(honest.body.results[0]).toMatchObject({ score: 1 });
    expect(honest.body.results[0]?.error).toBeUndefined();
  }, 120_000);

  it('a client past its bound of waiting code answers gets 503 E_OVERLOADED naming the ' +
    'limit, and others are served', async () => {
    const loops = (seed: number) => Array.from({ length: 64 }, () => item(seed, LOOP));
    // 260 answers with the references: taken
    const first = verify(ATTACKER, [...loops(11), ...loops(12), ...loops(13), ...loops(14)]);
    while (answerPoolFor(pool).queued('token:attacker') === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    const more = await verify(ATTACKER, loops(15));
    expect(more.status).toBe(503);
    expect(more.retryAfter).not.toBeNull();
    expect(more.body.error?.code).toBe('E_OVERLOADED');
    expect(more.body.error?.message).toMatch(/at most 300/);
    const honest = await verify(VICTIM, [item(1001, SOLVED)]);
    expect(honest.body.results[0]).toMatchObject({ score: 1 });
    expect((await first).status).toBe(200);
  }, 120_000);
});

describe('a client that goes away: its code answers stop with it', () => {
  it("a disconnected request's waiting answers leave the queue long before its budget would end them", async () => {
    // A server whose request budget (2 minutes) cannot be what ends the attack: only the disconnect can.
    const patient = await startServer({
      libraryDir: dir,
      port: 0,
      pool,
      callTimeoutMs: 300,
      requestTimeoutMs: 120_000,
      clientTokens: { attacker: ATTACKER, victim: VICTIM },
    });
    try {
      const controller = new AbortController();
      const loops = Array.from({ length: 64 }, () => item(21, LOOP));
      const sent = fetch(`${patient.url}/v1/verify`, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${ATTACKER}` },
        body: JSON.stringify({ items: [...loops, ...loops, ...loops, ...loops] }),
      }).catch((error: unknown) => error);
      await vi.waitFor(() => expect(answerPoolFor(pool).queued('token:attacker')).toBeGreaterThan(0), {
        timeout: 30_000,
        interval: 20,
      });
      controller.abort();
      expect(await sent).toBeInstanceOf(Error);
      // 256 looping programs (two 300 ms timeouts each) would hold the workers over a minute; dropped and stopped, they
      // leave at once.
      await vi.waitFor(() => expect(answerPoolFor(pool).queued('token:attacker')).toBe(0), {
        timeout: 20_000,
        interval: 50,
      });
      const honest = await fetch(`${patient.url}/v1/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${VICTIM}` },
        body: JSON.stringify({ items: [item(1002, SOLVED)] }),
      });
      expect(((await honest.json()) as { results: Array<{ score: number }> }).results[0]).toMatchObject({ score: 1 });
    } finally {
      await patient.close();
    }
  }, 120_000);
});
