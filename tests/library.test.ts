// The SQLite library beyond the shared contract (tests/library-contract.test.ts): what is specific to the embedded
// index: opening missing, corrupt, foreign, newer and unwritable libraries, read-only handles, migrations, and a
// read-only reader beside a writer in another process.
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LibraryError, type EnvRecord } from '../library/contract.js';
import { APPLICATION_ID, SCHEMA_VERSION } from '../library/sqlite/migrations.js';
import { SCORES_FILE } from '../library/sqlite/scores.js';
import { INDEX_FILE, SqliteLibrary } from '../library/sqlite/store.js';
import { hashSource } from '../contract/hash.js';
import { spawnAdmitLoop, type AdmitLoop } from './helpers/admit-loop.js';
import { fakeAdmission, fakeRejection, sampleMeta, sampleSource, variantSource } from './helpers/library-fixtures.js';

/** Whether this process can write into a folder with mode 0o555 (root can: permissions do not bind it). */
function permissionsBypassed(): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'envforge-probe-'));
  try {
    chmodSync(probe, 0o555);
    writeFileSync(join(probe, 'probe'), 'x');
    return true;
  } catch {
    return false;
  } finally {
    chmodSync(probe, 0o755);
    rmSync(probe, { recursive: true, force: true });
  }
}

describe('SqliteLibrary specifics', () => {
  let root: string;
  let n = 0;
  const newDir = () => join(root, `lib-${n++}`);
  const errorOf = (fn: () => unknown): Error => {
    try {
      fn();
    } catch (error) {
      return error as Error;
    }
    throw new Error('expected an error');
  };
  /** A library with one environment, closed again. */
  const seeded = async (dir = newDir()) => {
    const library = SqliteLibrary.open(dir, { create: true });
    const meta = sampleMeta('seeded-env');
    const { env } = await library.admit(fakeAdmission(sampleSource(meta), meta));
    await library.close();
    if (!env) throw new Error('the seeded environment was not admitted');
    return { dir, env };
  };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'envforge-sqlite-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('opening', () => {
    it('a missing library without create throws, pointing at `envforge library init`', () => {
      const dir = newDir();
      const error = errorOf(() => SqliteLibrary.open(dir));
      expect(error).toBeInstanceOf(LibraryError);
      expect(error.message).toContain('envforge library init');
      expect(error.message).toContain(dir);
      expect(existsSync(dir)).toBe(false);
      expect(SqliteLibrary.exists(dir)).toBe(false);
      // read-only never creates
      expect(errorOf(() => SqliteLibrary.open(dir, { create: true, readonly: true }))).toBeInstanceOf(LibraryError);
      expect(existsSync(dir)).toBe(false);
    });

    it('create makes the folder, the index and envs/', async () => {
      const dir = join(newDir(), 'nested', 'deeper');
      const library = SqliteLibrary.open(dir, { create: true });
      expect(SqliteLibrary.exists(dir)).toBe(true);
      expect(existsSync(join(dir, 'envs'))).toBe(true);
      await library.close();
    });

    it('a corrupt index file is "not an envforge library index"', () => {
      const dir = newDir();
      mkdirSync(dir);
      writeFileSync(join(dir, INDEX_FILE), randomBytes(8192));
      for (const readonly of [false, true]) {
        const error = errorOf(() => SqliteLibrary.open(dir, { readonly }));
        expect(error).toBeInstanceOf(LibraryError);
        expect(error.message).toContain('not an envforge library index');
      }
    });

    it.skipIf(!existsSync('/proc/self/fd'))('a failed open does not leave the index file open', () => {
      const dir = newDir();
      mkdirSync(dir);
      writeFileSync(join(dir, INDEX_FILE), randomBytes(8192));
      const openHandles = () =>
        readdirSync('/proc/self/fd').filter((fd) => {
          try {
            return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
          } catch {
            return false;
          }
        }).length;
      for (let i = 0; i < 3; i++) expect(errorOf(() => SqliteLibrary.open(dir))).toBeInstanceOf(LibraryError);
      expect(openHandles()).toBe(0);
    });

    it('a foreign SQLite database is refused, untouched', () => {
      const dir = newDir();
      mkdirSync(dir);
      const foreign = new Database(join(dir, INDEX_FILE));
      foreign.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine')");
      foreign.close();
      for (const readonly of [false, true]) {
        const error = errorOf(() => SqliteLibrary.open(dir, { readonly, create: true }));
        expect(error).toBeInstanceOf(LibraryError);
        expect(error.message).toContain('did not write');
      }
      const check = new Database(join(dir, INDEX_FILE), { readonly: true });
      expect(check.pragma('user_version', { simple: true })).toBe(0);
      expect(check.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: 'notes' }]);
      check.close();
    });

    it('a foreign SQLite database with only a user_version is refused too', () => {
      const dir = newDir();
      mkdirSync(dir);
      const foreign = new Database(join(dir, INDEX_FILE));
      foreign.pragma('user_version = 3');
      foreign.close();
      expect(errorOf(() => SqliteLibrary.open(dir)).message).toContain('did not write');
    });

    it('a library written by a newer schema is refused ("newer envforge"), read-only too', async () => {
      const { dir } = await seeded();
      const db = new Database(join(dir, INDEX_FILE));
      db.pragma('user_version = 99');
      db.close();
      for (const readonly of [false, true]) {
        const error = errorOf(() => SqliteLibrary.open(dir, { readonly }));
        expect(error).toBeInstanceOf(LibraryError);
        expect(error.message).toContain('newer envforge');
      }
      const check = new Database(join(dir, INDEX_FILE), { readonly: true });
      expect(check.pragma('user_version', { simple: true })).toBe(99);
      check.close();
    });

    it('a library under a regular file (mkdir fails) is a LibraryError naming the place', () => {
      const file = join(root, `file-${n++}`);
      writeFileSync(file, 'not a folder');
      const dir = join(file, 'lib');
      const error = errorOf(() => SqliteLibrary.open(dir, { create: true }));
      expect(error).toBeInstanceOf(LibraryError);
      expect(error.message).toContain(dir);
      expect(error.message).toMatch(/ENOTDIR|not a directory/);
      // without create it is simply missing
      expect(errorOf(() => SqliteLibrary.open(dir)).message).toContain('envforge library init');
    });

    it('a library folder that is a regular file is a LibraryError', () => {
      const file = join(root, `file-${n++}`);
      writeFileSync(file, 'not a folder');
      expect(errorOf(() => SqliteLibrary.open(file, { create: true }))).toBeInstanceOf(LibraryError);
    });

    describe.skipIf(permissionsBypassed())(
      'without write permission (skipped as root, where chmod does not bind)',
      () => {
        it('creating in a read-only folder is a LibraryError about permissions', () => {
          const dir = newDir();
          mkdirSync(dir, { mode: 0o555 });
          chmodSync(dir, 0o555);
          try {
            const error = errorOf(() => SqliteLibrary.open(dir, { create: true }));
            expect(error).toBeInstanceOf(LibraryError);
            expect(error.message).toMatch(/permission|EACCES/i);
            expect(error.message).toContain(dir);
          } finally {
            chmodSync(dir, 0o755);
          }
        });

        it('an existing library in a read-only folder cannot be opened for writing but can be read', async () => {
          const { dir, env } = await seeded();
          chmodSync(dir, 0o555);
          try {
            const error = errorOf(() => SqliteLibrary.open(dir));
            expect(error).toBeInstanceOf(LibraryError);
            expect(error.message).toMatch(/permission|read/i);
          } finally {
            chmodSync(dir, 0o755);
          }
          const reader = SqliteLibrary.open(dir, { readonly: true });
          expect((await reader.get('seeded-env'))?.hash).toBe(env.hash);
          await reader.close();
        });
      },
    );
  });

  describe('read-only handles', () => {
    it('read everything and refuse every write with LibraryError', async () => {
      const { dir, env } = await seeded();
      const reader = SqliteLibrary.open(dir, { readonly: true });
      try {
        expect((await reader.get('seeded-env'))?.hash).toBe(env.hash);
        expect(await reader.list()).toHaveLength(1);
        expect(await reader.source(env)).toBe(sampleSource(sampleMeta('seeded-env')));
        expect((await reader.stats()).versions).toBe(1);
        expect((await reader.integrityCheck()).ok).toBe(true);
        const meta = sampleMeta('seeded-env');
        const source = variantSource(sampleSource(meta), 1);
        const writes: Array<[string, () => Promise<unknown>]> = [
          ['admit', () => reader.admit(fakeAdmission(source, meta))],
          ['recordRejection', () => reader.recordRejection(fakeRejection(source, meta))],
          ['retire', () => reader.retire('seeded-env', 'read-only test')],
          ['gc', () => reader.gc()],
        ];
        for (const [what, write] of writes) {
          const error = await write().catch((e: unknown) => e);
          expect(error, what).toBeInstanceOf(LibraryError);
          expect((error as Error).message, what).toContain('read-only');
        }
        expect(await reader.list({ status: 'all', allVersions: true })).toHaveLength(1);
        expect(existsSync(join(dir, 'envs', `${hashSource(source)}.js`))).toBe(false);
      } finally {
        await reader.close();
      }
      const writer = SqliteLibrary.open(dir);
      expect(await writer.get('seeded-env')).toMatchObject({ status: 'active', version: 1 });
      expect((await writer.stats()).rejections).toBe(0);
      await writer.close();
    });
  });

  describe('read-only handles and batches', () => {
    it('read batches and journals and refuse every batch write with LibraryError', async () => {
      const { dir } = await seeded();
      const writer = SqliteLibrary.open(dir);
      await writer.startBatch('ro-batch', { target: 1 });
      await writer.appendJournal('ro-batch', [{ kind: 'call', key: 'k1', payload: { usd: 0.1 } }], {
        ledger: { usd: 0.1 },
      });
      await writer.close();
      const reader = SqliteLibrary.open(dir, { readonly: true });
      try {
        expect(await reader.getBatch('ro-batch')).toMatchObject({ status: 'running', ledger: { usd: 0.1 } });
        expect((await reader.listBatches()).map((b) => b.id)).toEqual(['ro-batch']);
        expect((await reader.journal('ro-batch')).map((e) => e.key)).toEqual(['k1']);
        const writes: Array<[string, () => Promise<unknown>]> = [
          ['startBatch', () => reader.startBatch('ro-new', {})],
          ['startBatch (resume)', () => reader.startBatch('ro-batch', {})],
          ['appendJournal', () => reader.appendJournal('ro-batch', [{ kind: 'call', key: 'k2', payload: null }])],
          ['saveBatchLedger', () => reader.saveBatchLedger('ro-batch', { usd: 9 })],
          ['finishBatch', () => reader.finishBatch('ro-batch', 'finished', {})],
        ];
        for (const [what, write] of writes) {
          const error = await write().catch((e: unknown) => e);
          expect(error, what).toBeInstanceOf(LibraryError);
          expect((error as Error).message, what).toContain('read-only');
        }
        expect(await reader.getBatch('ro-batch')).toMatchObject({ status: 'running', ledger: { usd: 0.1 } });
        expect(await reader.getBatch('ro-new')).toBeUndefined();
        expect(await reader.journal('ro-batch')).toHaveLength(1);
      } finally {
        await reader.close();
      }
    });
  });

  describe('migrations', () => {
    const pragmas = (dir: string) => {
      const db = new Database(join(dir, INDEX_FILE), { readonly: true });
      try {
        return {
          userVersion: db.pragma('user_version', { simple: true }),
          applicationId: db.pragma('application_id', { simple: true }),
          journal: db.pragma('journal_mode', { simple: true }),
        };
      } finally {
        db.close();
      }
    };

    it(
      'a fresh library has user_version = SCHEMA_VERSION and application_id = APPLICATION_ID, in WAL mode ' +
        'while a writer has it open',
      async () => {
        const dir = newDir();
        const writer = SqliteLibrary.open(dir, { create: true });
        expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(1);
        expect(pragmas(dir)).toEqual({ userVersion: SCHEMA_VERSION, applicationId: APPLICATION_ID, journal: 'wal' });
        await writer.close();
        // The last writer leaves rollback-journal mode, so readers without write access to the folder can open it.
        expect(pragmas(dir)).toMatchObject({ journal: 'delete' });
      },
    );

    it('reopening is idempotent and keeps the data', async () => {
      const { dir, env } = await seeded();
      for (let i = 0; i < 3; i++) {
        const library = SqliteLibrary.open(dir, { create: true });
        expect(await library.list({ status: 'all', allVersions: true })).toEqual([env]);
        await library.close();
        expect(pragmas(dir)).toMatchObject({ userVersion: SCHEMA_VERSION, applicationId: APPLICATION_ID });
      }
      const reader = SqliteLibrary.open(dir, { readonly: true });
      expect(await reader.get('seeded-env')).toEqual(env);
      await reader.close();
    });

    it('a scores file from before trusted scores is split once: its rows stay untrusted, and read so', async () => {
      const { dir } = await seeded();
      const old = new Database(join(dir, SCORES_FILE));
      old.exec(
        'CREATE TABLE trainer_scores (name TEXT NOT NULL, version INTEGER NOT NULL, level INTEGER NOT NULL, ' +
          'n REAL NOT NULL, passed REAL NOT NULL, score_sum REAL NOT NULL, updated_at TEXT NOT NULL, PRIMARY ' +
          'KEY (name, version, level))',
      );
      old
        .prepare('INSERT INTO trainer_scores VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run('seeded-env', 1, 1, 10, 10, 10, 'then');
      old.close();
      const reader = SqliteLibrary.open(dir, { readonly: true });
      expect((await reader.scoreTallies()).map((t) => [t.n, t.trusted])).toEqual([[10, false]]);
      await reader.close();
      const writer = SqliteLibrary.open(dir);
      await writer.recordScores([
        { name: 'seeded-env', version: 1, level: 1, n: 4, passed: 0, scoreSum: 0, trusted: true },
      ]);
      expect((await writer.scoreTallies()).map((t) => [t.n, t.passed, t.trusted])).toEqual([
        [10, 10, false],
        [4, 0, true],
      ]);
      await writer.close();
    });

    it('an empty index file (zero bytes) is initialised as a library', async () => {
      const dir = newDir();
      mkdirSync(dir);
      writeFileSync(join(dir, INDEX_FILE), '');
      const library = SqliteLibrary.open(dir);
      expect(await library.list()).toEqual([]);
      await library.close();
      expect(pragmas(dir)).toMatchObject({ userVersion: SCHEMA_VERSION, applicationId: APPLICATION_ID });
    });
  });

  describe('files', () => {
    it('a temp file left by an interrupted write is an orphan that gc() removes', async () => {
      const { dir, env } = await seeded();
      const temp = join(dir, 'envs', `${'cd'.repeat(32)}.js.tmp-12345`);
      writeFileSync(temp, 'partial');
      const library = SqliteLibrary.open(dir);
      try {
        expect((await library.integrityCheck()).orphanFiles).toEqual([temp]);
        expect(await library.gc()).toEqual([temp]);
        expect(readdirSync(join(dir, 'envs'))).toEqual([`${env.hash}.js`]);
      } finally {
        await library.close();
      }
    });

    it("two handles on one library (in one process) see each other's admissions and serialize versions", async () => {
      const dir = newDir();
      const a = SqliteLibrary.open(dir, { create: true });
      const b = SqliteLibrary.open(dir);
      try {
        const meta = sampleMeta('shared-env');
        const base = sampleSource(meta);
        for (let i = 0; i < 6; i++) await (i % 2 ? a : b).admit(fakeAdmission(variantSource(base, i), meta));
        expect((await a.list({ allVersions: true })).map((e) => e.version).sort()).toEqual([1, 2, 3, 4, 5, 6]);
        expect((await b.admit(fakeAdmission(variantSource(base, 0), meta))).status).toBe('exists');
      } finally {
        await a.close();
        await b.close();
      }
    });
  });

  describe('a read-only reader beside a writer process', () => {
    let loop: AdmitLoop | undefined;
    afterAll(async () => {
      await loop?.kill();
    });

    it('sees, for every listed environment, a complete record whose file is present and matches its hash', async () => {
      const { dir } = await seeded();
      loop = spawnAdmitLoop(dir, 0);
      await loop.ready;
      const reader = SqliteLibrary.open(dir, { readonly: true });
      const counts: number[] = [];
      try {
        const until = Date.now() + 1500;
        while (Date.now() < until) {
          const envs = await reader.list({ status: 'all', allVersions: true });
          for (const env of envs) {
            const source = await reader.source(env);
            expect(hashSource(source)).toBe(env.hash);
            expect(env.report.hash).toBe(env.hash);
          }
          checkVersions(envs);
          counts.push(envs.length);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      } finally {
        await reader.close();
        await loop.kill();
      }
      expect(loop.stderr()).toBe('');
      // Never goes backwards, and the reader really did overlap with the writer.
      for (let i = 1; i < counts.length; i++) expect(counts[i]).toBeGreaterThanOrEqual(counts[i - 1]!);
      expect(new Set(counts).size).toBeGreaterThan(3);
    });
  });
});

/** Versions of each name are 1..n without gaps or duplicates, and no hash appears twice. */
function checkVersions(envs: EnvRecord[]): void {
  const byName = new Map<string, number[]>();
  for (const env of envs) byName.set(env.name, [...(byName.get(env.name) ?? []), env.version]);
  for (const [name, versions] of byName) {
    expect(
      versions.sort((x, y) => x - y),
      name,
    ).toEqual(Array.from({ length: versions.length }, (_, i) => i + 1));
  }
  expect(new Set(envs.map((e) => e.hash)).size).toBe(envs.length);
}
