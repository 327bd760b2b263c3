// The batch journal in the SQLite library: a library written before batches existed (schema 1) upgrades in
// place when opened for writing, and batches survive reopening; then crash safety for real: a journal
// writer process is SIGKILLed at seeded random moments, again and again on the same library, and after
// every kill each batch's seqs are exactly 1..n, every appended group is all there or not at all, the
// ledger saved with a group agrees with the journal, and nothing the writer saw committed is lost.
import Database from 'better-sqlite3';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryError, type JournalEntry } from '../library/contract.js';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from '../library/sqlite/migrations.js';
import { openLibrary } from '../library/open.js';
import { INDEX_FILE, SqliteLibrary } from '../library/sqlite/store.js';
import { postgresForTests } from './helpers/postgres.js';
import { hashSource } from '../contract/hash.js';
import { fakeRejection, fakeReport, sampleMeta, sampleSource } from './helpers/library-fixtures.js';
import {
  JOURNAL_SHARED_BATCHES,
  OWN_BATCH_GROUPS,
  spawnJournalLoop,
  type JournalLoop,
  type LoopLedger,
  type LoopPayload,
} from './helpers/journal-loop.js';
import { killAfter, killDelay } from './helpers/killable.js';

let root: string;
let n = 0;
const newDir = () => join(root, `lib-${n++}`);
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'envforge-journal-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const tablesOf = (dir: string): string[] => {
  const db = new Database(join(dir, INDEX_FILE), { readonly: true });
  try {
    return db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((r) => r.name);
  } finally {
    db.close();
  }
};
const userVersionOf = (dir: string): number => {
  const db = new Database(join(dir, INDEX_FILE), { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

describe('schema 2 (batches and journal)', () => {
  it('is appended after schema 1, which is unchanged (schemas 3 to 7 come after it)', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(SCHEMA_VERSION).toBe(7);
    expect(MIGRATIONS[0]!.sql).not.toMatch(/batches|journal/);
    expect(MIGRATIONS[2]!.sql).not.toMatch(/batches|journal|envs \(|rejections/);
    expect(MIGRATIONS[1]!.sql).toMatch(/UNIQUE \(batch_id, kind, key\)/);
    expect(MIGRATIONS[1]!.sql).toMatch(/UNIQUE \(batch_id, seq\)/);
  });

  /** A library as envforge wrote it with schema 1 only: one environment (row and file) and one rejection. */
  const v1Library = () => {
    const dir = newDir();
    mkdirSync(join(dir, 'envs'), { recursive: true });
    const meta = sampleMeta('old-env', { skills: ['graphs'], levels: 4 });
    const source = sampleSource(meta);
    const hash = hashSource(source);
    const report = fakeReport(source, meta);
    writeFileSync(join(dir, 'envs', `${hash}.js`), source);
    const db = new Database(join(dir, INDEX_FILE));
    db.exec(MIGRATIONS[0]!.sql);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma('user_version = 1');
    const at = '2025-01-01T00:00:00.000Z';
    db.prepare(
      `INSERT INTO envs (name, version, hash, meta, skills, levels, report, curve, fingerprint, lineage, ` +
        `author, validator_version, created_at, updated_at)
       VALUES (?, 1, ?, ?, ?, ?, ?, ?, NULL, ?, 'seed', 'test', ?, ?)`,
    ).run(
      meta.name,
      hash,
      JSON.stringify(meta),
      JSON.stringify(meta.skills),
      meta.levels,
      JSON.stringify(report),
      JSON.stringify(report.curve),
      JSON.stringify({ author: 'seed', batchId: 'old-batch' }),
      at,
      at,
    );
    const rejection = fakeRejection(`${source}// rejected\n`, meta);
    db.prepare('INSERT INTO rejections (hash, name, codes, report, lineage, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      hashSource(rejection.source),
      meta.name,
      JSON.stringify(['E_MISSING_EXPORT']),
      JSON.stringify(rejection.report),
      JSON.stringify(rejection.lineage),
      at,
    );
    db.close();
    return { dir, meta, source, hash, at };
  };

  it('a schema-1 library read-only keeps saying it needs a schema upgrade, and is left untouched', () => {
    const { dir } = v1Library();
    let error: unknown;
    try {
      SqliteLibrary.open(dir, { readonly: true });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(LibraryError);
    expect((error as Error).message).toContain('needs a schema upgrade');
    expect((error as Error).message).toContain(dir);
    expect(userVersionOf(dir)).toBe(1);
    expect(tablesOf(dir)).toEqual(['envs', 'rejections']);
  });

  it('a schema-1 library opened for writing upgrades in place: new tables, old data kept, batches usable', async () => {
    const { dir, meta, source, hash, at } = v1Library();
    const library = SqliteLibrary.open(dir);
    try {
      expect(tablesOf(dir)).toEqual([
        'batches',
        'envs',
        'incident_responses',
        'incidents',
        'journal',
        'quarantines',
        'rejections',
      ]);
      expect(userVersionOf(dir)).toBe(SCHEMA_VERSION);
      expect(await library.incidents()).toEqual([]);
      const env = await library.get('old-env');
      expect(env).toMatchObject({
        name: 'old-env',
        version: 1,
        hash,
        meta,
        status: 'active',
        lineage: { author: 'seed', batchId: 'old-batch' },
        createdAt: at,
        updatedAt: at,
      });
      expect(await library.source({ hash })).toBe(source);
      expect(await library.stats()).toMatchObject({
        environments: 1,
        versions: 1,
        bySkill: { graphs: 1 },
        byAuthor: { seed: 1 },
        rejections: 1,
        levels: { min: 4, max: 4 },
      });
      expect(await library.integrityCheck()).toEqual({ ok: true, problems: [], checkedFiles: 1, orphanFiles: [] });
      expect(await library.listBatches()).toEqual([]);
      await library.startBatch('first-batch', { target: 1 });
      expect((await library.appendJournal('first-batch', [{ kind: 'call', key: 'k', payload: 1 }]))[0]?.seq).toBe(1);
    } finally {
      await library.close();
    }
    // Upgraded once: reopening (also read-only) works and sees everything.
    const reader = SqliteLibrary.open(dir, { readonly: true });
    try {
      expect((await reader.get('old-env'))?.hash).toBe(hash);
      expect((await reader.journal('first-batch')).map((e) => e.key)).toEqual(['k']);
    } finally {
      await reader.close();
    }
    const again = SqliteLibrary.open(dir);
    await again.close();
    expect(userVersionOf(dir)).toBe(SCHEMA_VERSION);
  });

  it('batches, journals and ledgers persist across reopening', async () => {
    const dir = newDir();
    const first = SqliteLibrary.open(dir, { create: true });
    await first.startBatch('persist', { target: 2 });
    await first.appendJournal(
      'persist',
      [
        { kind: 'call', key: 'a', payload: { usd: 0.1 } },
        { kind: 'admitted', key: 'env-a', payload: null },
      ],
      { ledger: { usd: 0.1 } },
    );
    await first.startBatch('persist-done', {});
    await first.finishBatch('persist-done', 'finished', { ok: true });
    const before = { batches: await first.listBatches(), journal: await first.journal('persist') };
    await first.close();
    const second = SqliteLibrary.open(dir);
    try {
      expect(await second.listBatches()).toEqual(before.batches);
      expect(await second.journal('persist')).toEqual(before.journal);
      // A resumed run continues numbering where the last one stopped.
      await second.startBatch('persist', {});
      expect((await second.appendJournal('persist', [{ kind: 'call', key: 'b', payload: null }]))[0]?.seq).toBe(3);
    } finally {
      await second.close();
    }
  });
});

const KILLS = 10;
const killDelayAt = (i: number) => killDelay('journal-crash-test', i);

const server = postgresForTests();
afterAll(() => server.stop());

const STORE_RUNS = [
  { store: 'sqlite', location: () => mkdtemp(join(tmpdir(), 'envforge-journal-crash-')) },
  { store: 'postgres', location: async () => (await server.ready()).createDatabase() },
] as const;

describe.each(STORE_RUNS)('the batch journal of the $store library under SIGKILL', ({ store, location }) => {
  let dir: string;
  const loops: JournalLoop[] = [];
  beforeAll(async () => {
    if (store === 'postgres' && server.skipped) return;
    dir = await location();
  });
  afterAll(async () => {
    await Promise.allSettled(loops.map((loop) => loop.kill()));
    if (store === 'sqlite') await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(store === 'postgres' && server.skipped)(
    `keeps journals contiguous, groups atomic and commits durable across ${KILLS} kills of a writer`,
    { timeout: 120_000 },
    async () => {
      /** `batchId|kind|key` -> seq of everything known committed: reported by a writer or seen after a kill. */
      const durable = new Map<string, number>();
      const finished = new Set<string>();
      let previousTotal = 0;
      let replays = 0;
      for (let i = 0; i < KILLS; i++) {
        const delay = killDelayAt(i);
        const loop = spawnJournalLoop(dir, i * 1_000_000);
        loops.push(loop);
        await killAfter(loop, delay, i);
        const where = `after kill ${i} (${delay} ms after ready)`;
        expect(loop.stderr(), where).toBe('');
        // Replays returned the entries already there, with their seqs (no new ones).
        for (const [id, seq] of loop.replayed) expect(durable.get(id), `${where}: replay of ${id}`).toBe(seq);
        replays += loop.replayed.size;
        // Each reported group came back with consecutive seqs.
        for (const [id, g] of loop.groups) {
          expect(g.seqs, `${where}: group ${id}`).toEqual(Array.from({ length: g.size }, (_, k) => g.seqs[0]! + k));
        }
        for (const [id, seq] of loop.appended) durable.set(id, seq);
        for (const id of loop.finished) finished.add(id);

        const library = openLibrary(dir);
        try {
          expect(await library.integrityCheck(), where).toMatchObject({ ok: true, problems: [] });
          const batches = await library.listBatches();
          const ids = new Set(batches.map((b) => b.id));
          for (const shared of JOURNAL_SHARED_BATCHES) expect(ids.has(shared), `${where}: ${shared}`).toBe(true);
          const present = new Map<string, number>();
          let total = 0;
          for (const batch of batches) {
            const journal = await library.journal(batch.id);
            const at = `${where}, batch ${batch.id}`;
            total += journal.length;
            // Seqs are exactly 1..n.
            expect(
              journal.map((e) => e.seq),
              at,
            ).toEqual(Array.from({ length: journal.length }, (_, k) => k + 1));
            // Every group is whole, in one run of consecutive seqs, in its own order.
            const groups = new Map<string, JournalEntry[]>();
            for (const e of journal) {
              const { group } = e.payload as LoopPayload;
              groups.set(group, [...(groups.get(group) ?? []), e]);
            }
            for (const [group, entries] of groups) {
              const { size } = entries[0]!.payload as LoopPayload;
              expect(entries.length, `${at}: group ${group} is partial`).toBe(size);
              expect(
                entries.map((e) => e.seq - entries[0]!.seq),
                `${at}: group ${group}`,
              ).toEqual(Array.from({ length: size }, (_, k) => k));
              expect(
                entries.map((e) => (e.payload as LoopPayload).j),
                `${at}: group ${group}`,
              ).toEqual(Array.from({ length: size }, (_, k) => k));
            }
            // The ledger saved with the last group agrees with the journal.
            if (journal.length === 0) expect(batch.ledger, at).toBeNull();
            else
              expect(batch.ledger, at).toEqual({
                lastSeq: journal.length,
                group: (journal.at(-1)!.payload as LoopPayload).group,
              } satisfies LoopLedger);
            // Finished batches stay finished, with their report.
            if (finished.has(batch.id))
              expect(batch, at).toMatchObject({ status: 'finished', report: { groups: OWN_BATCH_GROUPS } });
            else if (batch.status === 'finished') expect(journal.length, at).toBeGreaterThanOrEqual(OWN_BATCH_GROUPS);
            else expect(batch.status, at).toBe('running');
            for (const e of journal) present.set(`${batch.id}|${e.kind}|${e.key}`, e.seq);
          }
          // Durability: what was committed stays, under the same seq.
          for (const [id, seq] of durable)
            expect(present.get(id), `${where}: ${id} was committed at seq ${seq}`).toBe(seq);
          for (const [id, seq] of present) durable.set(id, seq);
          // Every writer appends at least one group before "ready".
          expect(total, where).toBeGreaterThan(previousTotal);
          previousTotal = total;
        } finally {
          await library.close();
        }
      }
      expect(replays).toBeGreaterThan(0);
      console.info(
        `journal crash test (${store}): ${KILLS} kills, ${previousTotal} journal entries, ${finished.size} ` +
          `batches finished, ${replays} replayed entries`,
      );
    },
  );
});
