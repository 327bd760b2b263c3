// The embedded Library: a SQLite index (better-sqlite3, WAL) beside content-addressed module files. This
// file opens, migrates and closes it; the stores it is made of live beside it (envs.ts, rejections.ts,
// incidents.ts, batches.ts, scores.ts) and share one connection (db.ts).
import Database from 'better-sqlite3';
import { existsSync, mkdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ValidationReport } from '../../validators/report.js';
import {
  LibraryError,
  type IncidentFilter,
  type IncidentInput,
  type IncidentRecord,
  type Library,
  type QuarantineRecord,
  type Lineage,
  type RejectionFilter,
  type RejectionRecord,
  type ScoreInput,
  type ScoreTally,
} from '../contract.js';
import { ComposedLibrary } from '../composed.js';
import { SqliteBatches } from './batches.js';
import { DEFAULT_SQLITE_OPTIONS, ENVS_DIR, INDEX_FILE, now, SqliteDb, type SqliteLibraryOptions } from './db.js';
import { SqliteEnvs } from './envs.js';
import {
  backfillQuarantines,
  insertIncident,
  listIncidents,
  listQuarantines,
  QUARANTINES_SCHEMA,
  resolveOpenIncidents,
} from './incidents.js';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { SqliteRejections } from './rejections.js';
import { SqliteScores } from './scores.js';
import { reportingDamage } from './damage.js';

export { DEFAULT_SQLITE_OPTIONS, INDEX_FILE, type SqliteLibraryOptions };

function describeOpenError(error: unknown, where: string): LibraryError {
  const e = error as NodeJS.ErrnoException & { code?: string };
  const code = e.code ?? '';
  if (
    ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR'].includes(code) ||
    code.startsWith('SQLITE_READONLY') ||
    code.startsWith('SQLITE_CANTOPEN')
  ) {
    return new LibraryError(
      `cannot open the library at ${where} (${code}): check that the path is a folder you may write ` +
        `to, or pass --library DIR`,
      { cause: error },
    );
  }
  if (e.code === 'SQLITE_NOTADB' || e.code === 'SQLITE_CORRUPT') {
    return new LibraryError(
      `${where} is not an envforge library index (the file is corrupt or not a SQLite database)`,
      { cause: error },
    );
  }
  return new LibraryError(`cannot open the library at ${where}: ${e.message}`, { cause: error });
}

function stampOf(s: { mtimeMs: number; size: number; ino: number } | null): string {
  return s ? `${s.ino}:${s.mtimeMs}:${s.size}` : '-';
}

export class SqliteLibrary extends ComposedLibrary implements Library {
  readonly dir: string;
  private readonly s: SqliteDb;
  private readonly kept: SqliteRejections;
  private readonly scores: SqliteScores;

  private constructor(dir: string, db: Database.Database, options: SqliteLibraryOptions) {
    const s = new SqliteDb(dir, db, options);
    super(new SqliteEnvs(s), new SqliteBatches(s));
    this.dir = dir;
    this.s = s;
    this.kept = new SqliteRejections(s);
    this.scores = new SqliteScores(dir, options.readonly);
  }

  static exists(dir: string): boolean {
    return existsSync(join(dir, INDEX_FILE));
  }

  static open(dir: string, options: Partial<SqliteLibraryOptions> = {}): SqliteLibrary {
    const opts = { ...DEFAULT_SQLITE_OPTIONS, ...options };
    const indexPath = join(dir, INDEX_FILE);
    if (!existsSync(indexPath)) {
      if (!opts.create || opts.readonly)
        throw new LibraryError(`no library at ${dir}: create one with \`envforge library init --library ${dir}\``);
      try {
        mkdirSync(join(dir, ENVS_DIR), { recursive: true });
      } catch (error) {
        throw describeOpenError(error, dir);
      }
    }
    let db: Database.Database | undefined;
    try {
      db = new Database(indexPath, { readonly: opts.readonly, fileMustExist: opts.readonly });
      db.pragma('busy_timeout = 10000');
      const applicationId = db.pragma('application_id', { simple: true }) as number;
      const userVersion = db.pragma('user_version', { simple: true }) as number;
      const tables = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number })
        .n;
      if (applicationId !== APPLICATION_ID && (tables > 0 || userVersion !== 0)) {
        db.close();
        throw new LibraryError(
          `${indexPath} is a SQLite database that envforge did not write; refusing to use it as a library`,
        );
      }
      if (userVersion > SCHEMA_VERSION) {
        db.close();
        throw new LibraryError(
          `the library at ${dir} was written by a newer envforge (schema ${userVersion}; this version knows ` +
            `up to ${SCHEMA_VERSION}): upgrade envforge to use it`,
        );
      }
      if (!opts.readonly) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = FULL');
        SqliteLibrary.migrate(db, userVersion);
        mkdirSync(join(dir, ENVS_DIR), { recursive: true });
      } else if (userVersion < SCHEMA_VERSION) {
        db.close();
        throw new LibraryError(
          `the library at ${dir} needs a schema upgrade; open it once for writing (e.g. envforge library stats)`,
        );
      }
    } catch (error) {
      if (db?.open) db.close();
      if (error instanceof LibraryError) throw error;
      throw describeOpenError(error, indexPath);
    }
    return reportingDamage(new SqliteLibrary(dir, db, opts), indexPath, dir);
  }

  private static migrate(db: Database.Database, from: number): void {
    if (!MIGRATIONS.some((m) => m.version > from)) return;
    db.transaction(() => {
      // Again under the write lock: another process may have migrated since `from` was read.
      const current = db.pragma('user_version', { simple: true }) as number;
      const pending = MIGRATIONS.filter((m) => m.version > current);
      for (const m of pending) db.exec(m.sql);
      if (current > 0 && current < QUARANTINES_SCHEMA) backfillQuarantines(db, now());
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  }

  /** The index file and its write-ahead log: any commit by any connection changes one of them. */
  async changeStamp(): Promise<string> {
    const index = join(this.dir, INDEX_FILE);
    const [a, b] = await Promise.all([stat(index).catch(() => null), stat(`${index}-wal`).catch(() => null)]);
    return `${stampOf(a)}|${stampOf(b)}`;
  }

  recordRejection(input: { source: string; report: ValidationReport; lineage: Lineage }): Promise<void> {
    return this.kept.recordRejection(input);
  }
  rejections(filter?: RejectionFilter): Promise<RejectionRecord[]> {
    return this.kept.rejections(filter);
  }

  async recordIncident(input: IncidentInput): Promise<IncidentRecord> {
    return this.s.write('recording an incident', () => insertIncident(this.s.db, input, now(), this.s.options));
  }
  async incidents(filter: IncidentFilter = {}): Promise<IncidentRecord[]> {
    return listIncidents(this.s.db, filter);
  }
  async resolveIncidents(hash: string, resolution: string): Promise<number> {
    return this.s.write('resolving incidents', () => resolveOpenIncidents(this.s.db, hash, resolution, now()));
  }
  async quarantines(): Promise<QuarantineRecord[]> {
    return listQuarantines(this.s.db);
  }

  async recordScores(tallies: ScoreInput[]): Promise<void> {
    this.scores.record(tallies, now());
  }
  async scoreTallies(): Promise<ScoreTally[]> {
    return this.scores.list();
  }

  async close(): Promise<void> {
    this.scores.close();
    if (!this.s.db.open) return;
    // Leave the file in rollback-journal mode, so readers in a folder they cannot write to (no -shm
    // possible) can still open it. It fails harmlessly while other connections are open; the last does it.
    if (!this.s.options.readonly) {
      try {
        this.s.db.pragma('journal_mode = DELETE');
      } catch {
        // another connection is still using WAL
      }
    }
    this.s.db.close();
  }
}
