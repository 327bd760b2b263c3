// Finds and opens the library a command works on: --database URL or --library DIR, else
// $ENVFORGE_DATABASE_URL, else $ENVFORGE_LIBRARY, else the project's generated/ folder, through the store
// (stores.ts) that handles that location.
import { resolve } from 'node:path';
import { UsageError } from '../contract/errors.js';
import { DEFAULT_LIBRARY_DIR } from '../contract/paths.js';
import { LibraryError, type Library } from './contract.js';
import { STORES, type LibraryOpenOptions, type LibraryStore } from './stores.js';

export const isDatabaseUrl = (location: string) => /^postgres(ql)?:\/\//i.test(location);

/** The library's location: a folder path (resolved) or a database URL (as given). */
export function resolveLibraryDir(flag?: string, database?: string): string {
  if (flag !== undefined && database !== undefined)
    throw new UsageError('give either --library DIR or --database URL, not both');
  if (database !== undefined && !isDatabaseUrl(database))
    throw new UsageError(`--database needs a PostgreSQL URL (postgres://USER@HOST:PORT/DB), got "${database}"`);
  const location =
    database ??
    flag ??
    (process.env.ENVFORGE_DATABASE_URL || undefined) ??
    process.env.ENVFORGE_LIBRARY ??
    DEFAULT_LIBRARY_DIR;
  return isDatabaseUrl(location) ? location : resolve(location);
}

function storeFor(location: string): LibraryStore {
  const store = Object.values(STORES).find((s: LibraryStore) => s.handles(location));
  if (!store)
    throw new LibraryError(`no library store handles ${location} (stores: ${Object.keys(STORES).join(', ')})`);
  return store;
}

export function libraryExists(location: string): Promise<boolean> {
  return storeFor(location).exists(location);
}

export function openLibrary(location: string, options: Partial<LibraryOpenOptions> = {}): Library {
  return storeFor(location).open(location, options);
}
