// The shared Library on PostgreSQL: the same contract as the SQLite folder, for batches and workers on
// many machines and reward-service replicas. This file opens it and keeps rejections and incidents; the
// environments (envs.ts) and the batch journal (batches.ts) live beside it over one pool (db.ts).
import { hashSource } from '../../contract/hash.js';
import { boundDepth } from '../../validators/bounded.js';
import type { ValidationReport } from '../../validators/report.js';
import type {
  IncidentFilter,
  IncidentInput,
  IncidentRecord,
  Library,
  Lineage,
  QuarantineRecord,
  RejectionFilter,
  RejectionRecord,
  ScoreInput,
  ScoreTally,
} from '../contract.js';
import { LibraryError } from '../contract.js';
import { addCounts, checkIncident, checkScore, keptReport, now, toJson } from '../store-kit.js';
import { insertIncident, listIncidents, listQuarantines, resolveOpenIncidents } from './incidents.js';
import { ComposedLibrary } from '../composed.js';
import { toRejection, type RejectionRow } from '../rows.js';
import { PostgresBatches } from './batches.js';
import { CHANGE_CHANNEL, DEFAULT_PG_OPTIONS, PgDb, type PostgresLibraryOptions, type Query } from './db.js';
import { PostgresEnvs } from './envs.js';

export { CHANGE_CHANNEL, DEFAULT_PG_OPTIONS, type PostgresLibraryOptions };

export class PostgresLibrary extends ComposedLibrary implements Library {
  readonly dir: string;
  readonly db: PgDb;
  readonly envs: PostgresEnvs;

  private constructor(url: string, options: PostgresLibraryOptions) {
    const db = new PgDb(url, options);
    const envs = new PostgresEnvs(db);
    super(envs, new PostgresBatches(db));
    this.db = db;
    this.envs = envs;
    this.dir = db.where;
  }

  static handles(location: string): boolean {
    return /^postgres(ql)?:\/\//i.test(location);
  }

  /** Connects lazily: the first operation connects, and creates or migrates the tables as asked. */
  static open(url: string, options: Partial<PostgresLibraryOptions> = {}): PostgresLibrary {
    return new PostgresLibrary(url, { ...DEFAULT_PG_OPTIONS, ...options });
  }

  static async exists(url: string): Promise<boolean> {
    const library = new PostgresLibrary(url, { ...DEFAULT_PG_OPTIONS, readonly: true });
    try {
      await library.db.open();
      return true;
    } catch (error) {
      if (error instanceof LibraryError && error.message.startsWith('no library at')) return false;
      throw error;
    } finally {
      await library.close();
    }
  }

  async changeStamp(): Promise<string> {
    return String((await this.db.query('SELECT n FROM envforge.changes WHERE id = 1')).rows[0]?.n ?? '-');
  }

  /** Calls back after every change (admission, retirement, incident) anyone commits; resolves to a stop function. */
  async onChange(listener: () => void): Promise<() => Promise<void>> {
    await this.db.open();
    const client = await this.db.pool.connect();
    client.on('notification', (message) => message.channel === CHANGE_CHANNEL && listener());
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
    return async () => {
      await client.query(`UNLISTEN ${CHANGE_CHANNEL}`).catch(() => {});
      client.release();
    };
  }

  async recordRejection(input: { source: string; report: ValidationReport; lineage: Lineage }): Promise<void> {
    this.db.writable();
    await this.db.write('recording a rejection', (q) => this.recordRejectionIn(q, input));
  }

  /** The rejection inside the caller's transaction (a queue worker commits its job with it). */
  async recordRejectionIn(
    q: Query,
    input: { source: string; report: ValidationReport; lineage: Lineage },
  ): Promise<void> {
    const report = keptReport(input.report);
    const codes = JSON.stringify([...new Set(report.problems.map((p) => p.code))]);
    await q(
      'INSERT INTO envforge.rejections (hash, name, codes, batch_id, report, lineage, created_at) VALUES ' +
        '($1, $2, $3, $4, $5, $6, $7)',
      [
        hashSource(input.source),
        report.name,
        codes,
        input.lineage.batchId ?? null,
        toJson(boundDepth(report), 'the rejection report'),
        toJson(input.lineage, 'the lineage'),
        now(),
      ],
    );
    await q('DELETE FROM envforge.rejections WHERE id <= (SELECT max(id) FROM envforge.rejections) - $1', [
      this.db.options.rejectionRetention,
    ]);
  }

  async rejections(filter: RejectionFilter = {}): Promise<RejectionRecord[]> {
    const { rows } = await this.db.query(
      `SELECT hash, name, codes, report, lineage, created_at FROM envforge.rejections
       WHERE ($1::text IS NULL OR batch_id = $1) AND ($2::text IS NULL OR codes::jsonb ? $2) ORDER BY id DESC LIMIT $3`,
      [filter.batchId ?? null, filter.code ?? null, filter.limit ?? 100],
    );
    return (rows as RejectionRow[]).map(toRejection);
  }

  async recordIncident(input: IncidentInput): Promise<IncidentRecord> {
    this.db.writable();
    checkIncident(input);
    return this.db.write('recording an incident', (q) => insertIncident(q, input, this.db.options));
  }

  async incidents(filter: IncidentFilter = {}): Promise<IncidentRecord[]> {
    return listIncidents((text, values) => this.db.query(text, values), filter);
  }

  async resolveIncidents(hash: string, resolution: string): Promise<number> {
    this.db.writable();
    if (!resolution.trim()) throw new LibraryError('resolving incidents needs a reason');
    return this.db.write('resolving incidents', (q) => resolveOpenIncidents(q, hash, resolution));
  }

  async quarantines(): Promise<QuarantineRecord[]> {
    return listQuarantines((text, values) => this.db.query(text, values));
  }

  async recordScores(tallies: ScoreInput[]): Promise<void> {
    this.db.writable();
    for (const t of tallies) checkScore(t);
    if (tallies.length === 0) return;
    // No PgDb.changed: scores come every few seconds and readers reload the library on a change.
    await this.db.write('recording trainer scores', async (q) => {
      for (const t of tallies) {
        const trusted = t.trusted === true;
        const { rows } = await q(
          'SELECT n, passed, score_sum FROM envforge.trainer_scores WHERE name = $1 AND version = $2 AND ' +
            'level = $3 AND trusted = $4 FOR UPDATE',
          [t.name, t.version, t.level, trusted],
        );
        const row = rows[0] as { n: number; passed: number; score_sum: number } | undefined;
        const [n, passed, sum] = addCounts(row ? [row.n, row.passed, row.score_sum] : null, t);
        await q(
          `INSERT INTO envforge.trainer_scores (name, version, level, n, passed, score_sum, updated_at, ` +
            `trusted) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (name, version, level, trusted) DO UPDATE SET n = EXCLUDED.n, passed = EXCLUDED.passed, ` +
            `score_sum = EXCLUDED.score_sum, updated_at = EXCLUDED.updated_at`,
          [t.name, t.version, t.level, n, passed, sum, now(), trusted],
        );
      }
    });
  }

  async scoreTallies(): Promise<ScoreTally[]> {
    const { rows } = await this.db.query(
      'SELECT * FROM envforge.trainer_scores ORDER BY name, version, level, trusted',
    );
    return (
      rows as Array<{
        name: string;
        version: number;
        level: number;
        n: number;
        passed: number;
        score_sum: number;
        trusted: boolean;
        updated_at: string;
      }>
    ).map((r) => ({
      name: r.name,
      version: r.version,
      level: r.level,
      n: r.n,
      passed: r.passed,
      scoreSum: r.score_sum,
      trusted: r.trusted === true,
      updatedAt: r.updated_at,
    }));
  }

  async close(): Promise<void> {
    await this.db.pool.end().catch(() => {});
  }
}
