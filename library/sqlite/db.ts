// What the SQLite store's parts share: the open database with its folder and options, write
// transactions that turn SQLite failures into LibraryErrors, and JSON columns.
import type Database from 'better-sqlite3';
import { LibraryError } from '../contract.js';
import { INCIDENT_CLIENT_BYTES, INCIDENT_RETENTION } from '../store-kit.js';

export interface SqliteLibraryOptions {
  /** Create the folder and index when missing (otherwise a missing library is an error). */
  create: boolean;
  /** Open for reading only: no migrations, no writes (readers such as the reward service). */
  readonly: boolean;
  /** Rejected candidates' reports kept at most. */
  rejectionRetention: number;
  /** Incidents a client's input alone reached kept at most per environment version and client (the newest). */
  incidentRetention: number;
  /** The bytes a client's own input failures may keep, across every environment (V22-5). */
  incidentClientBytes: number;
}

export const DEFAULT_SQLITE_OPTIONS = {
  create: false,
  readonly: false,
  rejectionRetention: 10_000,
  incidentRetention: INCIDENT_RETENTION,
  incidentClientBytes: INCIDENT_CLIENT_BYTES,
} satisfies SqliteLibraryOptions;

export const INDEX_FILE = 'library.sqlite';
export const ENVS_DIR = 'envs';

export { nonEmpty, now, toJson } from '../store-kit.js';

/** One open library: its folder, its index connection and its options, shared by the store's parts. */
export class SqliteDb {
  constructor(
    readonly dir: string,
    readonly db: Database.Database,
    readonly options: SqliteLibraryOptions,
  ) {}

  writable(): void {
    if (this.options.readonly) throw new LibraryError(`the library at ${this.dir} was opened read-only`);
  }

  /** A write transaction (BEGIN IMMEDIATE); SQLite failures become LibraryErrors saying what failed. */
  write<T>(what: string, fn: () => T): T {
    this.writable();
    try {
      return this.db.transaction(fn).immediate();
    } catch (error) {
      if (error instanceof LibraryError) throw error;
      throw new LibraryError(`${what} failed: ${(error as Error).message}`, { cause: error });
    }
  }
}
