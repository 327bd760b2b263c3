// What the PostgreSQL store's parts share: the connection pool, opened lazily (the Library factory is
// synchronous) and migrated once, write transactions that turn database failures into LibraryErrors,
// and the change counter that readers follow.
import pg from 'pg';
import { LibraryError } from '../contract.js';
import { INCIDENT_CLIENT_BYTES, INCIDENT_RETENTION } from '../store-kit.js';
import { backfillQuarantines, PG_MIGRATIONS, PG_QUARANTINES_SCHEMA, PG_SCHEMA_VERSION } from './migrations.js';

export interface PostgresLibraryOptions {
  /** Create the library's tables when missing (otherwise a missing library is an error). */
  create: boolean;
  /** Open for reading only: no migrations, no writes (readers such as the reward service). */
  readonly: boolean;
  /** Rejected candidates' reports kept at most. */
  rejectionRetention: number;
  /** Incidents a client's input alone reached kept at most per environment version and client (the newest). */
  incidentRetention: number;
  /** The bytes a client's own input failures may keep, across every environment (V22-5). */
  incidentClientBytes: number;
  /** Connections this process holds at most. */
  poolSize: number;
}

export const DEFAULT_PG_OPTIONS = {
  create: false,
  readonly: false,
  rejectionRetention: 10_000,
  incidentRetention: INCIDENT_RETENTION,
  incidentClientBytes: INCIDENT_CLIENT_BYTES,
  poolSize: 8,
} satisfies PostgresLibraryOptions;

/** The library's NOTIFY channel: a payload-less ping after each change that readers care about. */
export const CHANGE_CHANNEL = 'envforge_library_changed';

/** Advisory lock keys (one per purpose, in the envforge namespace). */
export const LOCKS = { migrate: 0x454e5601, admit: 0x454e5602, incidents: 0x454e5603, payers: 0x454e5604 } as const;

/**
 * The URL without its password, for messages and Library.dir: reopening it (a second, writable handle)
 * then takes the password from PGPASSWORD or ~/.pgpass, as node-postgres does.
 */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

export type Query = (text: string, values?: unknown[]) => Promise<pg.QueryResult>;

export class PgDb {
  readonly pool: pg.Pool;
  readonly where: string;
  private ready: Promise<void> | null = null;

  constructor(
    readonly url: string,
    readonly options: PostgresLibraryOptions,
  ) {
    this.where = redact(url);
    this.pool = new pg.Pool({ connectionString: url, max: options.poolSize, application_name: 'envforge' });
    // An idle connection that the server drops must not crash the process; the next query reconnects.
    this.pool.on('error', () => {});
  }

  writable(): void {
    if (this.options.readonly) throw new LibraryError(`the library at ${this.where} was opened read-only`);
  }

  private describe(error: unknown, what: string): LibraryError {
    if (error instanceof LibraryError) return error;
    const e = error as Error & { code?: string };
    if (['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EAI_AGAIN', '3D000', '28P01', '28000'].includes(e.code ?? '')) {
      return new LibraryError(
        `cannot reach the PostgreSQL library at ${this.where} (${e.code}): ${e.message}; check --database ` +
          `/ ENVFORGE_DATABASE_URL`,
        { cause: error },
      );
    }
    return new LibraryError(`${what} failed: ${e.message}`, { cause: error });
  }

  /** Connects and migrates once (or checks the schema, read-only); every operation awaits it. */
  open(): Promise<void> {
    this.ready ??= this.migrate().catch((error: unknown) => {
      this.ready = null;
      throw this.describe(error, `opening the library at ${this.where}`);
    });
    return this.ready;
  }

  private async migrate(): Promise<void> {
    const current = await this.schemaVersion((text, values) => this.pool.query(text, values));
    if (current > PG_SCHEMA_VERSION)
      throw new LibraryError(
        `the library at ${this.where} was written by a newer envforge (schema ${current}; this version knows ` +
          `up to ${PG_SCHEMA_VERSION}): upgrade envforge to use it`,
      );
    if (current === PG_SCHEMA_VERSION) return;
    if (current === 0 && (!this.options.create || this.options.readonly))
      throw new LibraryError(`no library at ${this.where}: create one with \`envforge library init --database URL\``);
    if (this.options.readonly)
      throw new LibraryError(
        `the library at ${this.where} needs a schema upgrade; open it once for writing (e.g. envforge library stats)`,
      );
    await this.transaction('migrating the library', async (q) => {
      // Again under the lock: another process may have migrated since `current` was read.
      await q('SELECT pg_advisory_xact_lock($1)', [LOCKS.migrate]);
      const now = await this.schemaVersion(q);
      if (now === 0)
        await q(
          'CREATE SCHEMA IF NOT EXISTS envforge; CREATE TABLE IF NOT EXISTS envforge.schema_version ' +
            '(version integer NOT NULL)',
        );
      for (const m of PG_MIGRATIONS.filter((m) => m.version > now)) await q(m.sql);
      if (now > 0 && now < PG_QUARANTINES_SCHEMA) await backfillQuarantines(q);
      await q('DELETE FROM envforge.schema_version');
      await q('INSERT INTO envforge.schema_version VALUES ($1)', [PG_SCHEMA_VERSION]);
    });
  }

  private async schemaVersion(q: Query): Promise<number> {
    // pg_tables, not to_regclass: a plain query sees what a concurrent migrator committed before our lock.
    const table = await q(
      "SELECT count(*) > 0 AS present FROM pg_catalog.pg_tables WHERE schemaname = 'envforge' AND " +
        "tablename = 'schema_version'",
    );
    if (!table.rows[0]?.present) return 0;
    return Number((await q('SELECT max(version) AS v FROM envforge.schema_version')).rows[0]?.v ?? 0);
  }

  /** A read (after open); failures become LibraryErrors. */
  async query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    await this.open();
    try {
      return await this.pool.query(text, values);
    } catch (error) {
      throw this.describe(error, 'reading the library');
    }
  }

  /** A transaction on one connection: committed when fn resolves, rolled back when it throws. */
  async transaction<T>(what: string, fn: (q: Query, client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.describe(error, what);
    }
    try {
      await client.query('BEGIN');
      const result = await fn((text, values) => client.query(text, values), client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw this.describe(error, what);
    } finally {
      client.release();
    }
  }

  /** A write transaction of an open, writable library. */
  async write<T>(what: string, fn: (q: Query, client: pg.PoolClient) => Promise<T>): Promise<T> {
    this.writable();
    await this.open();
    return this.transaction(what, fn);
  }

  /** Inside a write: readers' change stamp moves and listeners hear of it when the transaction commits. */
  static async changed(q: Query): Promise<void> {
    await q('UPDATE envforge.changes SET n = n + 1 WHERE id = 1');
    await q(`NOTIFY ${CHANGE_CHANNEL}`);
  }
}
