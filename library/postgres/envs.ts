// The PostgreSQL store's environments: envs rows and their module sources (envforge.modules, by hash)
// written in one transaction. Admissions take one advisory lock, so their sequence numbers grow in
// commit order and the novelty re-check sees everything admitted before it.
import { hashSource } from '../../contract/hash.js';
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
import { listOf, statsOf, toRecord, type EnvRow } from '../rows.js';
import { checkAdmission, now, toJson } from '../store-kit.js';
import { LOCKS, PgDb, type Query } from './db.js';

/** How orphan module rows are named in integrity reports (as a folder store names its files). */
export const moduleName = (hash: string): string => `modules/${hash}.js`;

export class PostgresEnvs implements EnvStore {
  constructor(private readonly s: PgDb) {}

  async admit(input: AdmitInput): Promise<AdmitResult> {
    this.s.writable();
    const { meta } = checkAdmission(input);
    return this.s.write(`admitting ${meta.name}`, (q) => this.admitIn(q, input));
  }

  /** The admission inside the caller's transaction (a queue worker commits its job with it). */
  async admitIn(q: Query, input: AdmitInput): Promise<AdmitResult> {
    const { hash, meta } = checkAdmission(input);
    const { report } = input;
    const reportJson = toJson(report, 'the validation report');
    await q('SELECT pg_advisory_xact_lock($1)', [LOCKS.admit]);
    const existing = (await q('SELECT * FROM envforge.envs WHERE hash = $1', [hash])).rows[0] as EnvRow | undefined;
    // Same code again is a no-op, except that a missing or damaged module is restored.
    const storeModule = () =>
      q(
        'INSERT INTO envforge.modules (hash, source) VALUES ($1, $2) ON CONFLICT (hash) DO UPDATE SET source ' +
          '= EXCLUDED.source WHERE envforge.modules.source <> EXCLUDED.source',
        [hash, input.source],
      );
    if (existing) {
      await storeModule();
      return { status: 'exists', env: toRecord(existing) };
    }
    if (input.noveltyCursor !== undefined) {
      const since = (await q('SELECT * FROM envforge.envs WHERE seq > $1 ORDER BY seq', [input.noveltyCursor]))
        .rows as EnvRow[];
      const problems = recheckNovelty(report, since.map(toRecord));
      if (problems.length > 0) return { status: 'duplicate', problems };
    }
    await storeModule();
    const latest = (await q('SELECT max(version) AS v FROM envforge.envs WHERE name = $1', [meta.name])).rows[0] as {
      v: number | null;
    };
    const at = now();
    const row = (
      await q(
        `INSERT INTO envforge.envs (name, version, hash, meta, skills, levels, report, curve, fingerprint, ` +
          `lineage, author, validator_version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) RETURNING *`,
        [
          meta.name,
          (latest.v ?? 0) + 1,
          hash,
          JSON.stringify(meta),
          JSON.stringify(meta.skills),
          meta.levels,
          reportJson,
          JSON.stringify(report.curve),
          report.fingerprint ? JSON.stringify(report.fingerprint) : null,
          JSON.stringify(input.lineage),
          input.lineage.author,
          report.validatorVersion,
          at,
        ],
      )
    ).rows[0] as EnvRow;
    await PgDb.changed(q);
    return { status: 'admitted', env: toRecord(row) };
  }

  async get(name: string, version?: number): Promise<EnvRecord | undefined> {
    const { rows } =
      version === undefined
        ? await this.s.query('SELECT * FROM envforge.envs WHERE name = $1 ORDER BY version DESC LIMIT 1', [name])
        : await this.s.query('SELECT * FROM envforge.envs WHERE name = $1 AND version = $2', [name, version]);
    return rows[0] ? toRecord(rows[0] as EnvRow) : undefined;
  }

  async list(filter: ListFilter = {}): Promise<EnvRecord[]> {
    // COLLATE "C": the byte order SQLite uses, whatever the database's locale.
    return listOf(
      (await this.s.query('SELECT * FROM envforge.envs ORDER BY name COLLATE "C", version DESC')).rows as EnvRow[],
      filter,
    );
  }

  async admissionCursor(): Promise<number> {
    return Number((await this.s.query('SELECT coalesce(max(seq), 0) AS n FROM envforge.envs')).rows[0]?.n ?? 0);
  }

  async admittedSince(cursor: number): Promise<{ envs: EnvRecord[]; cursor: number }> {
    const rows = (await this.s.query('SELECT * FROM envforge.envs WHERE seq > $1 ORDER BY seq', [cursor]))
      .rows as Array<EnvRow & { seq: number }>;
    return {
      envs: rows.map(toRecord),
      cursor: rows.length > 0 ? (rows[rows.length - 1] as { seq: number }).seq : cursor,
    };
  }

  async source(env: Pick<EnvRecord, 'hash'>): Promise<string> {
    const row = (await this.s.query('SELECT source FROM envforge.modules WHERE hash = $1', [env.hash])).rows[0] as
      | { source: string }
      | undefined;
    if (!row)
      throw new LibraryError(
        `the module ${env.hash} is missing from the library at ${this.s.where}: the library is damaged (run ` +
          `envforge library stats to check it)`,
      );
    if (hashSource(row.source) !== env.hash)
      throw new LibraryError(`the module ${env.hash} does not match its hash: it was modified or corrupted`);
    return row.source;
  }

  async retire(name: string, reason: string, version?: number): Promise<EnvRecord[]> {
    this.s.writable();
    if (!reason.trim()) throw new LibraryError('retiring needs a reason');
    return this.s.write(`retiring ${name}`, async (q) => {
      const known = (await q('SELECT count(*)::int AS n FROM envforge.envs WHERE name = $1', [name])).rows[0] as {
        n: number;
      };
      if (!known.n) throw new LibraryError(`unknown environment "${name}"`);
      const { rows } = await q(
        `UPDATE envforge.envs SET status = 'retired', retired_reason = $2, updated_at = $3 WHERE name = $1 ` +
          `AND status = 'active' AND ($4::int IS NULL OR version = $4) RETURNING *`,
        [name, reason, now(), version ?? null],
      );
      if (rows.length > 0) await PgDb.changed(q);
      return (rows as EnvRow[]).sort((a, b) => a.version - b.version).map(toRecord);
    });
  }

  async stats(): Promise<LibraryStats> {
    const rows = (await this.s.query('SELECT name, version, status, lineage, meta FROM envforge.envs'))
      .rows as EnvRow[];
    const rejections = (await this.s.query('SELECT count(*)::int AS n FROM envforge.rejections')).rows[0] as {
      n: number;
    };
    return statsOf(rows, rejections.n);
  }

  async integrityCheck(): Promise<IntegrityReport> {
    const problems: string[] = [];
    const { rows } = await this.s.query(
      'SELECT e.name, e.version, e.hash, m.source FROM envforge.envs e LEFT JOIN envforge.modules m ON ' +
        'm.hash = e.hash ORDER BY e.seq',
    );
    for (const row of rows as Array<{ name: string; version: number; hash: string; source: string | null }>) {
      if (row.source === null) problems.push(`${row.name}@${row.version}: module missing (${moduleName(row.hash)})`);
      else if (hashSource(row.source) !== row.hash)
        problems.push(`${row.name}@${row.version}: module does not match its hash`);
    }
    return {
      ok: problems.length === 0,
      problems,
      checkedFiles: rows.length,
      orphanFiles: (await this.orphans((t, v) => this.s.query(t, v))).map(moduleName),
    };
  }

  /** Module rows no environment names (only ever written by hand: admission commits both or neither). */
  private async orphans(q: Query): Promise<string[]> {
    const { rows } = await q(
      'SELECT m.hash FROM envforge.modules m WHERE NOT EXISTS (SELECT 1 FROM envforge.envs e WHERE e.hash = ' +
        'm.hash) ORDER BY m.hash',
    );
    return (rows as Array<{ hash: string }>).map((r) => r.hash);
  }

  async gc(): Promise<string[]> {
    return this.s.write('removing orphan modules', async (q) => {
      await q('SELECT pg_advisory_xact_lock($1)', [LOCKS.admit]);
      const orphans = await this.orphans(q);
      await q('DELETE FROM envforge.modules WHERE hash = ANY($1)', [orphans]);
      return orphans.map(moduleName);
    });
  }
}
