// The embedded Library: a SQLite index (better-sqlite3, WAL) beside content-addressed module files
// (envs/<sha256>.js). Admission writes the file (temp, fsync, rename) and the row inside one write
// transaction, so a crash leaves at most an orphan file that no reader can see and gc() removes.
import Database from 'better-sqlite3';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Meta } from '../../contract/schema.js';
import { hashSource } from '../../contract/hash.js';
import { boundDepth } from '../../validators/bounded.js';
import type { ValidationReport } from '../../validators/report.js';
import {
  LibraryError,
  type AdmitInput,
  type AdmitResult,
  type BatchRecord,
  type BatchStatus,
  type EnvRecord,
  type IncidentInput,
  type IncidentRecord,
  type IntegrityReport,
  type JournalEntry,
  type JournalInput,
  type Library,
  type LibraryStats,
  type Lineage,
  type ListFilter,
  type RejectionFilter,
  type RejectionRecord,
} from '../contract.js';
import { APPLICATION_ID, MIGRATIONS, SCHEMA_VERSION } from './migrations.js';
import { insertIncident, listIncidents, resolveOpenIncidents } from './incidents.js';

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

interface BatchRow {
  n: number;
  id: string;
  status: BatchStatus;
  options: string;
  report: string | null;
  ledger: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

interface JournalRow {
  batch_id: string;
  seq: number;
  kind: string;
  key: string;
  payload: string;
  created_at: string;
}

const now = () => new Date().toISOString();

function toBatch(row: BatchRow): BatchRecord {
  return {
    id: row.id,
    status: row.status,
    options: JSON.parse(row.options) as unknown,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    report: row.report === null ? null : (JSON.parse(row.report) as unknown),
    ledger: row.ledger === null ? null : (JSON.parse(row.ledger) as unknown),
  };
}

function toEntry(row: JournalRow): JournalEntry {
  return { batchId: row.batch_id, seq: row.seq, kind: row.kind, key: row.key, payload: JSON.parse(row.payload) as unknown, createdAt: row.created_at };
}

/** JSON text of a value (undefined is null); a value JSON cannot hold is a LibraryError. */
function toJson(value: unknown, what: string): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    throw new LibraryError(`${what} cannot be stored as JSON: ${(error as Error).message}`, { cause: error });
  }
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

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
    if (!MIGRATIONS.some((m) => m.version > from)) return;
    db.transaction(() => {
      // Again under the write lock: another process may have migrated since `from` was read.
      const current = db.pragma('user_version', { simple: true }) as number;
      const pending = MIGRATIONS.filter((m) => m.version > current);
      for (const m of pending) db.exec(m.sql);
      db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    }).immediate();
  }

  private filePath(hash: string): string {
    return join(this.dir, ENVS_DIR, `${hash}.js`);
  }

  /** Writes the module file unless an intact one (matching its hash) is already there. */
  private ensureModuleFile(hash: string, source: string): void {
    const path = this.filePath(hash);
    if (!existsSync(path) || hashSource(readFileSync(path, 'utf8')) !== hash) writeFileAtomic(path, source);
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
        this.ensureModuleFile(hash, input.source);
        return { status: 'exists', env: toRecord(existing) };
      }
      const latest = this.db.prepare<[string], { v: number | null }>('SELECT max(version) AS v FROM envs WHERE name = ?').get(meta.name);
      const version = (latest?.v ?? 0) + 1;
      // The file first, durably; the row makes it visible. A crash in between leaves only an orphan file.
      this.ensureModuleFile(hash, input.source);
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
          report: toJson(report, 'the validation report'),
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
        .run(hashSource(input.source), report.name, JSON.stringify([...new Set(report.problems.map((p) => p.code))]), toJson(boundDepth(report), 'the rejection report'), toJson(input.lineage, 'the lineage'), now());
      this.db.prepare('DELETE FROM rejections WHERE id <= (SELECT max(id) FROM rejections) - ?').run(this.options.rejectionRetention);
    }).immediate();
  }

  async rejections(filter: RejectionFilter = {}): Promise<RejectionRecord[]> {
    const rows = this.db
      .prepare<[{ batch: string | null; code: string | null; limit: number }], { hash: string; name: string | null; codes: string; report: string; lineage: string; created_at: string }>(
        `SELECT hash, name, codes, report, lineage, created_at FROM rejections
         WHERE (@batch IS NULL OR json_extract(lineage, '$.batchId') = @batch) AND (@code IS NULL OR EXISTS (SELECT 1 FROM json_each(codes) WHERE value = @code))
         ORDER BY id DESC LIMIT @limit`,
      )
      .all({ batch: filter.batchId ?? null, code: filter.code ?? null, limit: filter.limit ?? 100 });
    return rows.map((row) => {
      const report = JSON.parse(row.report) as ValidationReport;
      const first = report.problems[0];
      return {
        hash: row.hash,
        name: row.name,
        codes: JSON.parse(row.codes) as string[],
        firstProblem: first ? { code: first.code, stage: first.stage, message: first.message } : null,
        report,
        lineage: JSON.parse(row.lineage) as Lineage,
        createdAt: row.created_at,
      };
    });
  }

  async recordIncident(input: IncidentInput): Promise<IncidentRecord> {
    return this.write('recording an incident', () => insertIncident(this.db, input, now()));
  }

  async incidents(filter: { hash?: string; open?: boolean } = {}): Promise<IncidentRecord[]> {
    return listIncidents(this.db, filter);
  }

  async resolveIncidents(hash: string, resolution: string): Promise<number> {
    return this.write('resolving incidents', () => resolveOpenIncidents(this.db, hash, resolution, now()));
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

  private batchRow(id: string): BatchRow | undefined {
    return this.db.prepare<[string], BatchRow>('SELECT * FROM batches WHERE id = ?').get(id);
  }

  /** The batch, which must exist (and, for writes, be running). */
  private requireBatch(id: string, running: boolean): BatchRow {
    const row = this.batchRow(id);
    if (!row) throw new LibraryError(`unknown batch "${id}"`);
    if (running && row.status !== 'running') throw new LibraryError(`batch "${id}" is ${row.status}; it takes no more writes`);
    return row;
  }

  /** A write transaction (BEGIN IMMEDIATE); SQLite failures become LibraryErrors saying what failed. */
  private write<T>(what: string, fn: () => T): T {
    this.writable();
    try {
      return this.db.transaction(fn).immediate();
    } catch (error) {
      if (error instanceof LibraryError) throw error;
      throw new LibraryError(`${what} failed: ${(error as Error).message}`, { cause: error });
    }
  }

  async startBatch(id: string, options: unknown): Promise<BatchRecord> {
    this.writable();
    if (!nonEmpty(id)) throw new LibraryError('a batch needs a non-empty id');
    const optionsJson = toJson(options, `the options of batch "${id}"`);
    return this.write(`starting batch "${id}"`, () => {
      const existing = this.batchRow(id);
      if (existing?.status === 'finished') throw new LibraryError(`batch "${id}" is already finished (at ${existing.finished_at}); start a new batch instead of resuming it`);
      if (existing?.status === 'running') return toBatch(existing);
      const at = now();
      if (existing) {
        this.db.prepare("UPDATE batches SET status = 'running', finished_at = NULL, report = NULL, updated_at = ? WHERE id = ?").run(at, id);
      } else {
        this.db.prepare("INSERT INTO batches (id, status, options, created_at, updated_at) VALUES (?, 'running', ?, ?, ?)").run(id, optionsJson, at, at);
      }
      return toBatch(this.batchRow(id) as BatchRow);
    });
  }

  async appendJournal(batchId: string, entries: JournalInput[], options: { ledger?: unknown } = {}): Promise<JournalEntry[]> {
    this.writable();
    const rows = entries.map((entry, i) => {
      if (!nonEmpty(entry.kind) || !nonEmpty(entry.key)) throw new LibraryError(`journal entry ${i} of batch "${batchId}" needs a non-empty kind and key`);
      return { kind: entry.kind, key: entry.key, payload: toJson(entry.payload, `the payload of journal entry ${entry.kind} ${entry.key}`) };
    });
    const ledger = options.ledger === undefined ? undefined : toJson(options.ledger, `the ledger of batch "${batchId}"`);
    const find = this.db.prepare<[string, string, string], JournalRow>('SELECT * FROM journal WHERE batch_id = ? AND kind = ? AND key = ?');
    const insert = this.db.prepare('INSERT INTO journal (batch_id, seq, kind, key, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)');
    return this.write(`appending to the journal of batch "${batchId}"`, () => {
      this.requireBatch(batchId, true);
      const at = now();
      let seq = this.db.prepare<[string], { s: number }>('SELECT coalesce(max(seq), 0) AS s FROM journal WHERE batch_id = ?').get(batchId)?.s ?? 0;
      let changed = false;
      const out = rows.map((row): JournalEntry => {
        const existing = find.get(batchId, row.kind, row.key);
        if (existing) return toEntry(existing);
        seq += 1;
        insert.run(batchId, seq, row.kind, row.key, row.payload, at);
        changed = true;
        return toEntry({ batch_id: batchId, seq, kind: row.kind, key: row.key, payload: row.payload, created_at: at });
      });
      if (ledger !== undefined) {
        this.db.prepare('UPDATE batches SET ledger = ?, updated_at = ? WHERE id = ?').run(ledger, at, batchId);
      } else if (changed) {
        this.db.prepare('UPDATE batches SET updated_at = ? WHERE id = ?').run(at, batchId);
      }
      return out;
    });
  }

  async journal(batchId: string, kind?: string): Promise<JournalEntry[]> {
    this.requireBatch(batchId, false);
    const rows =
      kind === undefined
        ? this.db.prepare<[string], JournalRow>('SELECT * FROM journal WHERE batch_id = ? ORDER BY seq').all(batchId)
        : this.db.prepare<[string, string], JournalRow>('SELECT * FROM journal WHERE batch_id = ? AND kind = ? ORDER BY seq').all(batchId, kind);
    return rows.map(toEntry);
  }

  async saveBatchLedger(batchId: string, ledger: unknown): Promise<void> {
    this.writable();
    const json = toJson(ledger, `the ledger of batch "${batchId}"`);
    this.write(`saving the ledger of batch "${batchId}"`, () => {
      this.requireBatch(batchId, true);
      this.db.prepare('UPDATE batches SET ledger = ?, updated_at = ? WHERE id = ?').run(json, now(), batchId);
    });
  }

  async finishBatch(batchId: string, status: 'finished' | 'failed', report: unknown): Promise<BatchRecord> {
    this.writable();
    if (status !== 'finished' && status !== 'failed') throw new LibraryError(`a batch ends as finished or failed, not ${String(status)}`);
    const json = toJson(report, `the report of batch "${batchId}"`);
    return this.write(`finishing batch "${batchId}"`, () => {
      this.requireBatch(batchId, true);
      const at = now();
      this.db.prepare('UPDATE batches SET status = ?, report = ?, finished_at = ?, updated_at = ? WHERE id = ?').run(status, json, at, at, batchId);
      return toBatch(this.batchRow(batchId) as BatchRow);
    });
  }

  async getBatch(id: string): Promise<BatchRecord | undefined> {
    const row = this.batchRow(id);
    return row ? toBatch(row) : undefined;
  }

  async listBatches(limit?: number): Promise<BatchRecord[]> {
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 0)) throw new LibraryError(`listBatches needs a limit that is a whole number ≥ 0, not ${limit}`);
    return this.db
      .prepare<[number], BatchRow>('SELECT * FROM batches ORDER BY n DESC LIMIT ?')
      .all(limit ?? -1)
      .map(toBatch);
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
