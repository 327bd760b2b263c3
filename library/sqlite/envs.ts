// The SQLite store's environments: the envs table beside content-addressed module files
// (envs/<sha256>.js). Admission writes the file (temp, fsync, rename) and the row inside one write
// transaction, so a crash leaves at most an orphan file that no reader can see and gc() removes.
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { hashSource } from '../../contract/hash.js';
import { MAX_MODULE_BYTES, readModuleFile, readModuleFileSync } from '../../contract/module-file.js';
import { listOf, statsOf, toRecord, type EnvRow as Row } from '../rows.js';
import {
  LibraryError,
  type AdmitInput,
  type AdmitResult,
  type EnvRecord,
  type EnvStore,
  type IntegrityReport,
  type LibraryStats,
  type ListFilter,
} from '../contract.js';
import { recheckNovelty } from '../novelty-guard.js';
import { checkAdmission } from '../store-kit.js';
import { ENVS_DIR, INDEX_FILE, now, toJson, type SqliteDb } from './db.js';

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

export class SqliteEnvs implements EnvStore {
  constructor(private readonly s: SqliteDb) {}

  private filePath(hash: string): string {
    return join(this.s.dir, ENVS_DIR, `${hash}.js`);
  }

  /**
   * Whether the module file of `hash` is intact: a regular file (no link, pipe or device: contract/module-file.ts)
   * whose text has that hash. Read synchronously: for writers and checks, never for a serving process.
   */
  private intact(hash: string): boolean {
    try {
      return hashSource(readModuleFileSync(this.filePath(hash), { maxBytes: MAX_MODULE_BYTES })) === hash;
    } catch {
      return false;
    }
  }

  /**
   * Writes the module file unless an intact one (matching its hash) is already there (the rename replaces whatever is).
   */
  private ensureModuleFile(hash: string, source: string): void {
    if (!this.intact(hash)) writeFileAtomic(this.filePath(hash), source);
  }

  async admit(input: AdmitInput): Promise<AdmitResult> {
    this.s.writable();
    const { hash, meta } = checkAdmission(input);
    const { report } = input;
    const select = this.s.db.prepare<[string], Row>('SELECT * FROM envs WHERE hash = ?');
    const run = this.s.db.transaction((): AdmitResult => {
      const existing = select.get(hash);
      if (existing) {
        // Same code again: a no-op, except that a missing or damaged module file is restored.
        this.ensureModuleFile(hash, input.source);
        return { status: 'exists', env: toRecord(existing) };
      }
      if (input.noveltyCursor !== undefined) {
        // Under the write lock: nobody admits between this check and the insert below.
        const since = this.s.db
          .prepare<[number], Row>('SELECT * FROM envs WHERE id > ? ORDER BY id')
          .all(input.noveltyCursor)
          .map(toRecord);
        const problems = recheckNovelty(report, since);
        if (problems.length > 0) return { status: 'duplicate', problems };
      }
      const latest = this.s.db
        .prepare<[string], { v: number | null }>('SELECT max(version) AS v FROM envs WHERE name = ?')
        .get(meta.name);
      const version = (latest?.v ?? 0) + 1;
      // The file first, durably; the row makes it visible. A crash in between leaves only an orphan file.
      this.ensureModuleFile(hash, input.source);
      const at = now();
      this.s.db
        .prepare(
          `INSERT INTO envs (name, version, hash, meta, skills, levels, report, curve, fingerprint, lineage, ` +
            `author, validator_version, created_at, updated_at)
           VALUES (@name, @version, @hash, @meta, @skills, @levels, @report, @curve, @fingerprint, @lineage, ` +
            `@author, @validatorVersion, @at, @at)`,
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

  async get(name: string, version?: number): Promise<EnvRecord | undefined> {
    const row =
      version === undefined
        ? this.s.db.prepare<[string], Row>('SELECT * FROM envs WHERE name = ? ORDER BY version DESC LIMIT 1').get(name)
        : this.s.db
            .prepare<[string, number], Row>('SELECT * FROM envs WHERE name = ? AND version = ?')
            .get(name, version);
    return row ? toRecord(row) : undefined;
  }

  async admissionCursor(): Promise<number> {
    return this.s.db.prepare<[], { n: number | null }>('SELECT max(id) AS n FROM envs').get()?.n ?? 0;
  }

  async admittedSince(cursor: number): Promise<{ envs: EnvRecord[]; cursor: number }> {
    // id is the rowid: SQLite writers are serialised, so ids grow in commit order.
    const rows = this.s.db
      .prepare<[number], Row & { id: number }>('SELECT * FROM envs WHERE id > ? ORDER BY id')
      .all(cursor);
    return {
      envs: rows.map(toRecord),
      cursor: rows.length > 0 ? (rows[rows.length - 1] as { id: number }).id : cursor,
    };
  }

  async list(filter: ListFilter = {}): Promise<EnvRecord[]> {
    return listOf(this.s.db.prepare<[], Row>('SELECT * FROM envs ORDER BY name, version DESC').all(), filter);
  }

  /**
   * The module's text, read without blocking (a serving process's every client waits on a blocked loop): only a
   * regular file, never followed through a link, at most MAX_MODULE_BYTES; a bad file is this environment's error.
   */
  async source(env: Pick<EnvRecord, 'hash'>): Promise<string> {
    const path = this.filePath(env.hash);
    let text: string;
    try {
      text = await readModuleFile(path, { maxBytes: MAX_MODULE_BYTES });
    } catch (error) {
      throw new LibraryError(
        `${(error as Error).message}: the library's module file is damaged (run envforge library stats to check it)`,
        { cause: error },
      );
    }
    if (hashSource(text) !== env.hash)
      throw new LibraryError(`the module file ${path} does not match its hash: it was modified or corrupted`);
    return text;
  }

  async retire(name: string, reason: string, version?: number): Promise<EnvRecord[]> {
    this.s.writable();
    if (!reason.trim()) throw new LibraryError('retiring needs a reason');
    const known = this.s.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM envs WHERE name = ?').get(name);
    if (!known?.n) throw new LibraryError(`unknown environment "${name}"`);
    const at = now();
    const changed = this.s.db
      .transaction(() => {
        const rows = (
          version === undefined
            ? this.s.db.prepare<[string], Row>("SELECT * FROM envs WHERE name = ? AND status = 'active'").all(name)
            : this.s.db
                .prepare<[string, number], Row>(
                  "SELECT * FROM envs WHERE name = ? AND version = ? AND status = 'active'",
                )
                .all(name, version)
        ).map((r) => r.hash);
        const update = this.s.db.prepare(
          "UPDATE envs SET status = 'retired', retired_reason = ?, updated_at = ? WHERE hash = ?",
        );
        for (const hash of rows) update.run(reason, at, hash);
        return rows;
      })
      .immediate();
    return changed.map((hash) =>
      toRecord(this.s.db.prepare<[string], Row>('SELECT * FROM envs WHERE hash = ?').get(hash) as Row),
    );
  }

  async stats(): Promise<LibraryStats> {
    const rows = this.s.db
      .prepare<[], Pick<Row, 'name' | 'version' | 'status' | 'lineage' | 'meta'>>(
        'SELECT name, version, status, lineage, meta FROM envs',
      )
      .all();
    const rejections = (this.s.db.prepare('SELECT count(*) AS n FROM rejections').get() as { n: number }).n;
    return statsOf(rows, rejections);
  }

  async integrityCheck(): Promise<IntegrityReport> {
    const problems: string[] = [];
    const index = join(this.s.dir, INDEX_FILE);
    let rows: Array<Pick<Row, 'name' | 'version' | 'hash'>> | null = null;
    try {
      const check = this.s.db.pragma('integrity_check') as Array<{ integrity_check: string }>;
      for (const line of check.slice(0, 20))
        if (line.integrity_check !== 'ok') problems.push(`${index}: SQLite integrity check: ${line.integrity_check}`);
      rows = this.s.db
        .prepare<[], Pick<Row, 'name' | 'version' | 'hash'>>('SELECT name, version, hash FROM envs')
        .all();
    } catch (error) {
      // A page too damaged for SQLite to read: that is the finding, not a crash of the check.
      problems.push(
        `${index}: unreadable (${(error as { code?: string }).code ?? 'error'}: ${(error as Error).message}` +
          `); restore the folder from a backup`,
      );
    }
    for (const row of rows ?? []) {
      const path = this.filePath(row.hash);
      if (!existsSync(path)) problems.push(`${row.name}@${row.version}: module file missing (${path})`);
      else if (!this.intact(row.hash))
        problems.push(`${row.name}@${row.version}: module file is not a regular file or does not match its hash`);
    }
    // Without the rows no file can be called an orphan (gc would remove every module).
    const orphanFiles = rows ? this.orphans(new Set(rows.map((r) => r.hash))) : [];
    return { ok: problems.length === 0, problems, checkedFiles: rows?.length ?? 0, orphanFiles };
  }

  private orphans(known: Set<string>): string[] {
    const dir = join(this.s.dir, ENVS_DIR);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((f) => !(f.endsWith('.js') && known.has(f.slice(0, -3))))
      .map((f) => join(dir, f));
  }

  async gc(): Promise<string[]> {
    this.s.writable();
    // Under the write lock, so no admission is between its file and its row.
    return this.s.db
      .transaction(() => {
        const known = new Set(
          this.s.db
            .prepare<[], { hash: string }>('SELECT hash FROM envs')
            .all()
            .map((r) => r.hash),
        );
        const orphans = this.orphans(known);
        for (const path of orphans) rmSync(path, { force: true, recursive: true });
        return orphans;
      })
      .immediate();
  }
}
