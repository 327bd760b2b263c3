// The embedded Library: a SQLite index (better-sqlite3, WAL) beside content-addressed module files
// (envs/<sha256>.js). Admission writes the file (temp, fsync, rename) and the row inside one write
// transaction, so a crash leaves at most an orphan file that no reader can see and gc() removes.
import Database from 'better-sqlite3';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Meta } from '../contract/schema.js';
import { hashSource } from '../sandbox/pool.js';
import type { ValidationReport } from '../validators/report.js';
import { LibraryError, type AdmitInput, type AdmitResult, type EnvRecord, type IntegrityReport, type Library, type LibraryStats, type Lineage, type ListFilter } from './contract.js';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from './migrations.js';

export const INDEX_FILE = 'library.sqlite';
const ENVS_DIR = 'envs';

export interface SqliteLibraryOptions {
  /** Create the folder and index when missing (otherwise a missing library is an error). */
  create: boolean;
  /** Open for reading only: no migrations, no writes (readers such as the reward service). */
  readonly: boolean;
  /** Rejected candidates' reports kept at most. */
  rejectionRetention: number;
}

export const DEFAULT_SQLITE_OPTIONS = { create: false, readonly: false, rejectionRetention: 10_000 } satisfies SqliteLibraryOptions;

interface Row {
  name: string;
  version: number;
  hash: string;
  meta: string;
  status: 'active' | 'retired';
  retired_reason: string | null;
  report: string;
  curve: string;
  fingerprint: string | null;
  lineage: string;
  validator_version: string;
  created_at: string;
  updated_at: string;
}

const now = () => new Date().toISOString();

function toRecord(row: Row): EnvRecord {
  return {
    name: row.name,
    version: row.version,
    hash: row.hash,
    meta: JSON.parse(row.meta) as Meta,
    status: row.status,
    retiredReason: row.retired_reason,
    report: JSON.parse(row.report) as ValidationReport,
    curve: JSON.parse(row.curve) as EnvRecord['curve'],
    fingerprint: row.fingerprint ? (JSON.parse(row.fingerprint) as EnvRecord['fingerprint']) : null,
    lineage: JSON.parse(row.lineage) as Lineage,
    validatorVersion: row.validator_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Writes a file so that it is either absent or complete and durable under its final name. */
function writeFileAtomic(path: string, text: string): void {
  const temp = `${path}.tmp-${process.pid}`;
  const fd = openSync(temp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  const dir = openSync(join(path, '..'), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

function describeOpenError(error: unknown, where: string): LibraryError {
  const e = error as NodeJS.ErrnoException & { code?: string };
  const code = e.code ?? '';
  if (['EACCES', 'EPERM', 'EROFS', 'ENOTDIR'].includes(code) || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN')) {
    return new LibraryError(`cannot open the library at ${where} (${code}): check that the path is a folder you may write to, or pass --library DIR`, { cause: error });
  }
  if (e.code === 'SQLITE_NOTADB' || e.code === 'SQLITE_CORRUPT') {
    return new LibraryError(`${where} is not an envforge library index (the file is corrupt or not a SQLite database)`, { cause: error });
  }
  return new LibraryError(`cannot open the library at ${where}: ${e.message}`, { cause: error });
}

export class SqliteLibrary implements Library {
  readonly dir: string;
  private readonly db: Database.Database;
  private readonly options: SqliteLibraryOptions;

  private constructor(dir: string, db: Database.Database, options: SqliteLibraryOptions) {
    this.dir = dir;
    this.db = db;
    this.options = options;
  }

  static exists(dir: string): boolean {
    return existsSync(join(dir, INDEX_FILE));
  }

  static open(dir: string, options: Partial<SqliteLibraryOptions> = {}): SqliteLibrary {
    const opts = { ...DEFAULT_SQLITE_OPTIONS, ...options };
    const indexPath = join(dir, INDEX_FILE);
    if (!existsSync(indexPath)) {
      if (!opts.create || opts.readonly) throw new LibraryError(`no library at ${dir}: create one with \`envforge library init --library ${dir}\``);
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
      const tables = (db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }).n;
      if (applicationId !== APPLICATION_ID && (tables > 0 || userVersion !== 0)) {
        db.close();
        throw new LibraryError(`${indexPath} is a SQLite database that envforge did not write; refusing to use it as a library`);
      }
      if (userVersion > SCHEMA_VERSION) {
        db.close();
        throw new LibraryError(`the library at ${dir} was written by a newer envforge (schema ${userVersion}; this version knows up to ${SCHEMA_VERSION}): upgrade envforge to use it`);
      }
      if (!opts.readonly) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = FULL');
        SqliteLibrary.migrate(db, userVersion);
        mkdirSync(join(dir, ENVS_DIR), { recursive: true });
      } else if (userVersion < SCHEMA_VERSION) {
        db.close();
        throw new LibraryError(`the library at ${dir} needs a schema upgrade; open it once for writing (e.g. envforge library stats)`);
      }
    } catch (error) {
      if (db?.open) db.close();
      if (error instanceof LibraryError) throw error;
      throw describeOpenError(error, indexPath);
    }
    return new SqliteLibrary(dir, db, opts);
  }

  private static migrate(db: Database.Database, from: number): void {
    const pending = MIGRATIONS.filter((m) => m.version > from);
    if (pending.length === 0) return;
    db.transaction(() => {
      for (const m of pending) db.exec(m.sql);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  }

  private filePath(hash: string): string {
    return join(this.dir, ENVS_DIR, `${hash}.js`);
  }

  private writable(): void {
    if (this.options.readonly) throw new LibraryError(`the library at ${this.dir} was opened read-only`);
  }

  async admit(input: AdmitInput): Promise<AdmitResult> {
    this.writable();
    const hash = hashSource(input.source);
    const { report } = input;
    if (report.verdict !== 'admit' || !report.meta) throw new LibraryError(`only admitted candidates enter the library (verdict: ${report.verdict})`);
    if (report.hash !== hash) throw new LibraryError('the validation report is for different code than the source being admitted');
    const meta = report.meta;
    const select = this.db.prepare<[string], Row>('SELECT * FROM envs WHERE hash = ?');
    const run = this.db.transaction((): AdmitResult => {
      const existing = select.get(hash);
      if (existing) {
        // Same code again: a no-op, except that a missing or damaged module file is restored.
        const path = this.filePath(hash);
        if (!existsSync(path) || hashSource(readFileSync(path, 'utf8')) !== hash) writeFileAtomic(path, input.source);
        return { status: 'exists', env: toRecord(existing) };
      }
      const latest = this.db.prepare<[string], { v: number | null }>('SELECT max(version) AS v FROM envs WHERE name = ?').get(meta.name);
      const version = (latest?.v ?? 0) + 1;
      // The file first, durably; the row makes it visible. A crash in between leaves only an orphan file.
      const path = this.filePath(hash);
      if (!existsSync(path) || hashSource(readFileSync(path, 'utf8')) !== hash) writeFileAtomic(path, input.source);
      const at = now();
      this.db
        .prepare(
          `INSERT INTO envs (name, version, hash, meta, skills, levels, report, curve, fingerprint, lineage, author, validator_version, created_at, updated_at)
           VALUES (@name, @version, @hash, @meta, @skills, @levels, @report, @curve, @fingerprint, @lineage, @author, @validatorVersion, @at, @at)`,
        )
        .run({
          name: meta.name,
          version,
          hash,
          meta: JSON.stringify(meta),
          skills: JSON.stringify(meta.skills),
          levels: meta.levels,
          report: JSON.stringify(report),
          curve: JSON.stringify(report.curve),
          fingerprint: report.fingerprint ? JSON.stringify(report.fingerprint) : null,
          lineage: JSON.stringify(input.lineage),
          author: input.lineage.author,
          validatorVersion: report.validatorVersion,
          at,
        });
      return { status: 'admitted', env: toRecord(select.get(hash) as Row) };
    });
    try {
      return run.immediate();
    } catch (error) {
      if (error instanceof LibraryError) throw error;
      throw new LibraryError(`admitting ${meta.name} failed: ${(error as Error).message}`, { cause: error });
    }
  }

  async recordRejection(input: { source: string; report: ValidationReport; lineage: Lineage }): Promise<void> {
    this.writable();
    const { report } = input;
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO rejections (hash, name, codes, report, lineage, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(hashSource(input.source), report.name, JSON.stringify([...new Set(report.problems.map((p) => p.code))]), JSON.stringify(report), JSON.stringify(input.lineage), now());
      this.db.prepare('DELETE FROM rejections WHERE id <= (SELECT max(id) FROM rejections) - ?').run(this.options.rejectionRetention);
    }).immediate();
  }

  async get(name: string, version?: number): Promise<EnvRecord | undefined> {
    const row =
      version === undefined
        ? this.db.prepare<[string], Row>('SELECT * FROM envs WHERE name = ? ORDER BY version DESC LIMIT 1').get(name)
        : this.db.prepare<[string, number], Row>('SELECT * FROM envs WHERE name = ? AND version = ?').get(name, version);
    return row ? toRecord(row) : undefined;
  }

  async list(filter: ListFilter = {}): Promise<EnvRecord[]> {
    const status = filter.status ?? 'active';
    const rows = this.db.prepare<[], Row>('SELECT * FROM envs ORDER BY name, version DESC').all();
    const newest = new Set<string>();
    const out: EnvRecord[] = [];
    for (const row of rows) {
      if (status !== 'all' && row.status !== status) continue;
      if (!filter.allVersions) {
        if (newest.has(row.name)) continue;
        newest.add(row.name);
      }
      const record = toRecord(row);
      if (filter.skills && !filter.skills.some((s) => record.meta.skills.includes(s))) continue;
      out.push(record);
    }
    return out;
  }

  async source(env: Pick<EnvRecord, 'hash'>): Promise<string> {
    const path = this.filePath(env.hash);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new LibraryError(`the module file ${path} is missing: the library is damaged (run envforge library stats to check it)`, { cause: error });
    }
    if (hashSource(text) !== env.hash) throw new LibraryError(`the module file ${path} does not match its hash: it was modified or corrupted`);
    return text;
  }

  async retire(name: string, reason: string, version?: number): Promise<EnvRecord[]> {
    this.writable();
    if (!reason.trim()) throw new LibraryError('retiring needs a reason');
    const known = this.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM envs WHERE name = ?').get(name);
    if (!known?.n) throw new LibraryError(`unknown environment "${name}"`);
    const at = now();
    const changed = this.db.transaction(() => {
      const rows = (
        version === undefined
          ? this.db.prepare<[string], Row>("SELECT * FROM envs WHERE name = ? AND status = 'active'").all(name)
          : this.db.prepare<[string, number], Row>("SELECT * FROM envs WHERE name = ? AND version = ? AND status = 'active'").all(name, version)
      ).map((r) => r.hash);
      const update = this.db.prepare("UPDATE envs SET status = 'retired', retired_reason = ?, updated_at = ? WHERE hash = ?");
      for (const hash of rows) update.run(reason, at, hash);
      return rows;
    }).immediate();
    return changed.map((hash) => toRecord(this.db.prepare<[string], Row>('SELECT * FROM envs WHERE hash = ?').get(hash) as Row));
  }

  async stats(): Promise<LibraryStats> {
    const rows = this.db.prepare<[], Pick<Row, 'name' | 'status' | 'lineage' | 'meta'>>('SELECT name, status, lineage, meta FROM envs').all();
    const count = (map: Record<string, number>, key: string) => {
      map[key] = (map[key] ?? 0) + 1;
    };
    const byStatus: Record<string, number> = {};
    const bySkill: Record<string, number> = {};
    const byAuthor: Record<string, number> = {};
    let min = Infinity;
    let max = -Infinity;
    const activeNames = new Set<string>();
    for (const row of rows) {
      count(byStatus, row.status);
      if (row.status !== 'active') continue;
      activeNames.add(row.name);
      const meta = JSON.parse(row.meta) as Meta;
      for (const skill of meta.skills) count(bySkill, skill);
      count(byAuthor, (JSON.parse(row.lineage) as Lineage).author);
      min = Math.min(min, meta.levels);
      max = Math.max(max, meta.levels);
    }
    const rejections = (this.db.prepare('SELECT count(*) AS n FROM rejections').get() as { n: number }).n;
    return {
      environments: activeNames.size,
      versions: rows.length,
      byStatus,
      bySkill,
      byAuthor,
      levels: Number.isFinite(max) ? { min, max } : null,
      rejections,
    };
  }

  async integrityCheck(): Promise<IntegrityReport> {
    const problems: string[] = [];
    const check = this.db.pragma('integrity_check', { simple: true });
    if (check !== 'ok') problems.push(`SQLite integrity check: ${String(check)}`);
    const rows = this.db.prepare<[], Pick<Row, 'name' | 'version' | 'hash'>>('SELECT name, version, hash FROM envs').all();
    for (const row of rows) {
      const path = this.filePath(row.hash);
      if (!existsSync(path)) problems.push(`${row.name}@${row.version}: module file missing (${path})`);
      else if (hashSource(readFileSync(path, 'utf8')) !== row.hash) problems.push(`${row.name}@${row.version}: module file does not match its hash`);
    }
    const orphanFiles = this.orphans(new Set(rows.map((r) => r.hash)));
    return { ok: problems.length === 0, problems, checkedFiles: rows.length, orphanFiles };
  }

  private orphans(known: Set<string>): string[] {
    const dir = join(this.dir, ENVS_DIR);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((f) => !(f.endsWith('.js') && known.has(f.slice(0, -3))))
      .map((f) => join(dir, f));
  }

  async gc(): Promise<string[]> {
    this.writable();
    // Under the write lock, so no admission is between its file and its row.
    return this.db.transaction(() => {
      const known = new Set(this.db.prepare<[], { hash: string }>('SELECT hash FROM envs').all().map((r) => r.hash));
      const orphans = this.orphans(known);
      for (const path of orphans) rmSync(path, { force: true, recursive: true });
      return orphans;
    }).immediate();
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    // Leave the file in rollback-journal mode, so readers in a folder they cannot write to (no -shm
    // possible) can still open it. It fails harmlessly while other connections are open; the last does it.
    if (!this.options.readonly) {
      try {
        this.db.pragma('journal_mode = DELETE');
      } catch {
        // another connection is still using WAL
      }
    }
    this.db.close();
  }
}
