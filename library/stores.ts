// Every library store, in one place: open.ts opens a library through the store that handles its location,
// and tests/library-contract.test.ts runs the Library contract on each one listed here, so a store added
// here cannot go untested.
import type { Library } from './contract.js';
import { PostgresLibrary } from './postgres/store.js';
import { SqliteLibrary } from './sqlite/store.js';

/** How any store is opened; a store may take more options of its own. */
export interface LibraryOpenOptions {
  /** Create the library when missing (otherwise a missing library is an error). */
  create: boolean;
  /** Open for reading only: no migrations, no writes (readers such as the reward service). */
  readonly: boolean;
  /** Rejected candidates' reports kept at most. */
  rejectionRetention: number;
  /**
   * Incidents a client's input alone reached kept per environment version and client (the newest, and its first open
   * confirmed one per code); retention drops nothing else: no tripwire, no environment's own failure, nothing of a
   * quarantined version.
   */
  incidentRetention: number;
  /**
   * What a client's own input failures may keep in the library, in bytes, across every environment (V22-5): past it,
   * its oldest go first (its first open vote per version and code stays, its response cut to a prefix last).
   */
  incidentClientBytes: number;
}

export interface LibraryStore {
  /** Whether this store keeps libraries at such a location (a folder path, a database URL…). */
  handles(location: string): boolean;
  exists(location: string): Promise<boolean>;
  open(location: string, options?: Partial<LibraryOpenOptions>): Library;
}

const isUrl = (location: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(location);

export const STORES = {
  /** The embedded default: a folder with a SQLite index and content-addressed module files. */
  sqlite: {
    handles: (location) => !isUrl(location),
    exists: async (dir) => SqliteLibrary.exists(dir),
    open: (dir, options) => SqliteLibrary.open(dir, options),
  },
  /**
   * The shared store: a PostgreSQL database (postgres://…), module sources included, for many writers on many machines.
   */
  postgres: {
    handles: (url) => PostgresLibrary.handles(url),
    exists: (url) => PostgresLibrary.exists(url),
    open: (url, options) => PostgresLibrary.open(url, options),
  },
} as const satisfies Record<string, LibraryStore>;

export type StoreName = keyof typeof STORES;
