// The loop closes by itself: the reward service tallies the scores a trainer asks for per environment ×
// level in the library, `level: "auto"` draws levels near a 0.5 pass rate from them, and the next batch
// reads them as its trainer feedback when no feedback file is given.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { EPISODIC_SEEDS_DIR } from '../contract/paths.js';
import type { Meta } from '../contract/schema.js';
import { feedbackFromScores, trainerFeedback } from '../pipeline/feedback/source.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { RunningServer } from '../serve/options.js';
import { IDS_KEPT, ScoreBoard, seededUniform } from '../serve/scores.js';
import { startServer } from '../serve/server.js';
import { fakeAdmission, sampleMeta, sampleSource } from './helpers/library-fixtures.js';

/** The scripted learner's chance of passing each level: sure at 1–2, a coin at 4, hopeless from 6. */
const PASS_CHANCE = [1, 1, 1, 0.75, 0.5, 0.25, 0, 0, 0];

/**
 * The operator runs this learner: its scores are trusted, so they steer (a client's do not: tests/serve-roles.test.ts).
 */
const TOKEN = 'scores-test-operator-token';

async function post(base: string, path: string, body: unknown) {
  const response = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (await response.json()) as any };
}

const dir = join(mkdtempSync(join(tmpdir(), 'envforge-scores-')), 'lib');
let pool: SandboxPool;
let server: RunningServer;

beforeAll(async () => {
  const library = SqliteLibrary.open(dir, { create: true });
  for (const meta of [
    sampleMeta('ladder-env', { levels: 8, skills: ['graph-search'] }),
    sampleMeta('easy-env', { levels: 3, skills: ['arithmetic'] }),
  ]) {
    await library.admit(fakeAdmission(sampleSource(meta), meta));
  }
  await library.close();
  pool = new SandboxPool({ workers: 1 });
  server = await startServer({ libraryDir: dir, port: 0, pool, scoreFlushIntervalMs: 100, operatorToken: TOKEN });
});
afterAll(async () => {
  await server?.close();
  await pool?.close();
});

describe('level: "auto"', () => {
  it('picks levels near a 0.5 pass rate as the learner is scored', { timeout: 120_000 }, async () => {
    const rng = seededUniform(7);
    const rounds: number[][] = [];
    for (let round = 0; round < 16; round++) {
      const sampled = await post(server.url, '/v1/sample', {
        select: { env: 'ladder-env', level: 'auto', n: 24, seed: round },
        reveal: true,
      });
      expect(sampled.status).toBe(200);
      const items = sampled.body.items as Array<{ ground_truth: string; level: number; reference: string }>;
      rounds.push(items.map((i) => i.level));
      const responses = items.map((i) => ({
        ground_truth: i.ground_truth,
        response: rng() < (PASS_CHANCE[i.level] ?? 0) ? i.reference : '<answer>-1</answer>',
      }));
      const scored = await post(server.url, '/v1/verify', { items: responses });
      expect(scored.status).toBe(200);
    }
    const share = (levels: number[], ok: (l: number) => boolean) => levels.filter(ok).length / levels.length;
    const first = rounds[0] as number[];
    const last = rounds.slice(-5).flat();
    // At first nothing is known: levels all over the range. At the end: around level 4, the coin.
    expect(new Set(first).size).toBeGreaterThanOrEqual(4);
    expect(share(last, (l) => l >= 3 && l <= 5)).toBeGreaterThanOrEqual(0.8);
    expect(share(last, (l) => l === 4)).toBeGreaterThan(share(first, (l) => l === 4));
    expect(share(last, (l) => l <= 2 || l >= 7)).toBeLessThanOrEqual(0.1);
  });

  it('is deterministic for a seed and the same tallies', () => {
    const board = new ScoreBoard('');
    for (let i = 0; i < 50; i++) board.add('x', 1, 1, 1, { principal: 'operator', id: null, trusted: true });
    const picks = (seed: number) =>
      Array.from({ length: 20 }, (_, i) => board.pickLevel('x', 1, 1, 5, seededUniform(seed * 100 + i)));
    expect(picks(3)).toEqual(picks(3));
    expect(picks(3)).not.toContain(1);
  });

  it("keeps the operator's view by principal: one client naming itself 1,100 ways pushes no other out (rtv22)", () => {
    const board = new ScoreBoard('');
    board.add('x', 1, 1, 1, { principal: 'token:victim', id: null, trusted: false });
    board.add('x', 1, 1, 0, { principal: 'token:victim', id: 'run-7', trusted: false });
    for (let i = 0; i < 1_100; i++) board.add('x', 1, 1, 1, { principal: 'loopback', id: `name-${i}`, trusted: false });
    expect(board.byClient.get('token:victim')).toMatchObject({ n: 2, passed: 1 });
    expect([...(board.byClient.get('token:victim')?.ids.keys() ?? [])]).toEqual(['run-7']);
    // The names fill only their own principal's view, newest kept; its totals count every one.
    const flood = board.byClient.get('loopback');
    expect(flood).toMatchObject({ n: 1_100, passed: 1_100 });
    expect(flood?.ids.size).toBe(IDS_KEPT);
    expect(flood?.ids.has('name-1099')).toBe(true);
    expect(board.byClient.size).toBe(2);
  });

  it('refuses any other level word, naming the field', async () => {
    const bad = await post(server.url, '/v1/sample', { select: { env: 'ladder-env', level: 'hard', n: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('select.level');
  });
});

describe('the score log', () => {
  it('holds the pass rates the service saw, and the next batch aims at the skills it saw failing', {
    timeout: 60_000,
  }, async () => {
    const easy = Array.from({ length: 30 }, (_, seed) => ({ env: 'easy-env', seed, level: 1 }));
    const sampled = await post(server.url, '/v1/sample', { items: easy, reveal: true });
    await post(server.url, '/v1/verify', {
      items: sampled.body.items.map((i: { ground_truth: string; reference: string }) => ({
        ground_truth: i.ground_truth,
        response: i.reference,
      })),
    });
    await server.close();
    const library = SqliteLibrary.open(dir);
    try {
      const tallies = await library.scoreTallies();
      expect(tallies.every((t) => t.trusted)).toBe(true);
      const rate = (name: string, level: number) => {
        const t = tallies.find((x) => x.name === name && x.level === level);
        return t ? t.passed / t.n : undefined;
      };
      expect(rate('easy-env', 1)).toBe(1);
      expect(rate('ladder-env', 7) ?? 0).toBe(0);
      expect(feedbackFromScores(tallies).every((row) => row.n >= 1 && row.passRate >= 0 && row.passRate <= 1)).toBe(
        true,
      );
      const feedback = await trainerFeedback(library);
      expect(feedback.source).toBe('scores');
      expect(feedback.saturated.map((s) => s.skill)).toContain('arithmetic');
      expect(feedback.weak.map((s) => s.skill)).toContain('graph-search');
    } finally {
      await library.close();
    }
  });
});

describe('a library of both kinds', () => {
  const mixedDir = join(mkdtempSync(join(tmpdir(), 'envforge-scores-mixed-')), 'lib');
  let mixed: RunningServer;
  beforeAll(async () => {
    const library = SqliteLibrary.open(mixedDir, { create: true });
    const meta = sampleMeta('ladder-env', { levels: 8, skills: ['graph-search'] });
    await library.admit(fakeAdmission(sampleSource(meta), meta));
    const source = readFileSync(join(EPISODIC_SEEDS_DIR, 'warehouse-restock.js'), 'utf8');
    const load = await pool.load(source);
    if (!load.ok) throw new Error(load.message);
    await library.admit(fakeAdmission(source, load.meta as Meta));
    await library.close();
    mixed = await startServer({ libraryDir: mixedDir, port: 0, pool, scoreFlushIntervalMs: 100, operatorToken: TOKEN });
  });
  afterAll(() => mixed?.close());

  it(
    "select draws from both kinds: an episodic item is its episode's start (prompt, tools), revealed " +
      'with the reference turns',
    async () => {
      const sampled = await post(mixed.url, '/v1/sample', { select: { n: 12, seed: 3, levels: [1, 2] }, reveal: true });
      expect(sampled.status, JSON.stringify(sampled.body)).toBe(200);
      const items = sampled.body.items as Array<{
        env: string;
        kind?: string;
        prompt: string;
        tools?: unknown[];
        referenceTurns?: Array<{ observation: string }>;
        referenceScore?: number;
        error?: unknown;
      }>;
      expect(items.every((i) => i.error === undefined)).toBe(true);
      const episodic = items.filter((i) => i.env === 'warehouse-restock');
      expect(episodic.length).toBeGreaterThan(0);
      expect(items.some((i) => i.env === 'ladder-env')).toBe(true);
      for (const item of episodic) {
        expect(item).toMatchObject({ kind: 'episodic', referenceScore: 1 });
        expect(item.prompt).toMatch(/restocking agent/);
        expect(item.tools?.length).toBeGreaterThan(3);
        expect(item.referenceTurns?.[0]?.observation).toBeTruthy();
      }
      const onlyEpisodic = await post(mixed.url, '/v1/sample', {
        select: { n: 4, seed: 1, level: 'auto', kind: 'episodic' },
      });
      expect(onlyEpisodic.status, JSON.stringify(onlyEpisodic.body)).toBe(200);
      expect(onlyEpisodic.body.items.map((i: { env: string }) => i.env)).toEqual(Array(4).fill('warehouse-restock'));
    },
  );

  it("episode scores (a finished session, a scored action log) are recorded as the learner's pass rates", {
    timeout: 60_000,
  }, async () => {
    const sampled = await post(mixed.url, '/v1/sample', {
      items: [{ env: 'warehouse-restock', seed: 5, level: 2 }],
      reveal: true,
    });
    const actions = JSON.parse(sampled.body.items[0].reference as string) as unknown[];
    const scored = await post(mixed.url, '/v1/episodes/score', {
      env: 'warehouse-restock',
      seed: 5,
      level: 2,
      actions,
    });
    expect(scored.body.score).toBe(1);
    const created = await post(mixed.url, '/v1/episodes', { env: 'warehouse-restock', seed: 6, level: 2 });
    const ended = await fetch(`${mixed.url}/v1/episodes/${created.body.episode}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(((await ended.json()) as { score: number }).score).toBe(0);
    let tally: { n: number; passed: number } | undefined;
    for (let i = 0; i < 50 && (tally?.n ?? 0) < 2; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const reader = SqliteLibrary.open(mixedDir, { readonly: true });
      tally = (await reader.scoreTallies()).find((t) => t.name === 'warehouse-restock' && t.level === 2);
      await reader.close();
    }
    expect(tally).toMatchObject({ n: 2, passed: 1 });
  });
});
