// Crash safety for real, on each store: a writer process admits in a loop and is SIGKILLed at a seeded
// random moment, again and again on the same library. After every kill the library opens, is intact (at most orphan
// files, which gc() removes), every row's file matches its hash, versions stay contiguous, and
// everything the writer saw committed is still there.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvRecord } from '../library/contract.js';
import { openLibrary } from '../library/open.js';
import { postgresForTests } from './helpers/postgres.js';
import { hashSource } from '../contract/hash.js';
import { LOOP_REJECTION_RETENTION, spawnAdmitLoop, type AdmitLoop } from './helpers/admit-loop.js';
import { killAfter, killDelay } from './helpers/killable.js';

const KILLS = 24;
const killDelayAt = (i: number) => killDelay('crash-test', i);

const server = postgresForTests();
afterAll(() => server.stop());

/**
 * Where each store keeps the library the writers share; the PostgreSQL run kills fewer (each kill costs a reconnect).
 */
const STORE_RUNS = [
  { store: 'sqlite', kills: KILLS, location: () => mkdtemp(join(tmpdir(), 'envforge-crash-')) },
  { store: 'postgres', kills: 12, location: async () => (await server.ready()).createDatabase() },
] as const;

describe.each(STORE_RUNS)('the $store library under SIGKILL', ({ store, kills, location }) => {
  let dir: string;
  const loops: AdmitLoop[] = [];
  beforeAll(async () => {
    if (store === 'postgres' && server.skipped) return;
    dir = await location();
  });
  afterAll(async () => {
    await Promise.allSettled(loops.map((loop) => loop.kill()));
    if (store === 'sqlite') await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(store === 'postgres' && server.skipped)(
    `stays consistent and durable across ${kills} kills of a writer`,
    { timeout: 120_000 },
    async () => {
      /** hash -> name@version of everything known to be committed: reported by a writer or seen after a kill. */
      const durable = new Map<string, string>();
      let previousCount = 0;
      let killsWithOrphans = 0;
      let orphansRemoved = 0;
      for (let i = 0; i < kills; i++) {
        const delay = killDelayAt(i);
        const loop = spawnAdmitLoop(dir, i * 1_000_000);
        loops.push(loop);
        await killAfter(loop, delay, i);
        const where = `after kill ${i} (${delay} ms after ready)`;
        for (const [hash, id] of loop.committed) durable.set(hash, id);

        const library = openLibrary(dir);
        try {
          const check = await library.integrityCheck();
          expect(check.problems, where).toEqual([]);
          expect(check.ok, where).toBe(true);
          if (check.orphanFiles.length > 0) killsWithOrphans++;
          const removed = await library.gc();
          expect([...removed].sort(), where).toEqual([...check.orphanFiles].sort());
          orphansRemoved += removed.length;
          const again = await library.integrityCheck();
          expect(again, where).toMatchObject({ ok: true, problems: [], orphanFiles: [] });

          const envs = await library.list({ status: 'all', allVersions: true });
          expect(again.checkedFiles, where).toBe(envs.length);
          for (const env of envs) {
            const source = await library.source(env);
            expect(hashSource(source), where).toBe(env.hash);
            expect(env.report.hash, where).toBe(env.hash);
          }
          checkShape(envs, where);

          // Durability: what was committed stays, under the same name and version.
          const present = new Map(envs.map((e) => [e.hash, `${e.name}@${e.version}`]));
          for (const [hash, id] of durable)
            expect(present.get(hash), `${where}: ${id} (${hash}) was committed`).toBe(id);
          for (const [hash, id] of present) durable.set(hash, id);
          // Every writer admits at least its first (new) variant before "ready".
          expect(envs.length, where).toBeGreaterThan(previousCount);
          previousCount = envs.length;

          const stats = await library.stats();
          expect(stats.versions, where).toBe(envs.length);
          expect(stats.rejections, where).toBeLessThanOrEqual(LOOP_REJECTION_RETENTION);
        } finally {
          await library.close();
        }
      }
      console.info(
        `crash test (${store}): ${kills} kills, ${previousCount} environments admitted, orphans after ` +
          `${killsWithOrphans} kills (${orphansRemoved} files removed by gc)`,
      );
    },
  );
});

/** No duplicated (name, version) or hash, and each name's versions are exactly 1..n. */
function checkShape(envs: EnvRecord[], where: string): void {
  expect(new Set(envs.map((e) => e.hash)).size, `${where}: duplicated hash`).toBe(envs.length);
  expect(new Set(envs.map((e) => `${e.name}@${e.version}`)).size, `${where}: duplicated name@version`).toBe(
    envs.length,
  );
  const byName = new Map<string, number[]>();
  for (const env of envs) byName.set(env.name, [...(byName.get(env.name) ?? []), env.version]);
  for (const [name, versions] of byName) {
    versions.sort((a, b) => a - b);
    expect(versions, `${where}: versions of ${name}`).toEqual(Array.from({ length: versions.length }, (_, k) => k + 1));
  }
}
