// Finds and opens the library a command works on: --library DIR, else $ENVFORGE_LIBRARY, else the
// project's generated/ folder.
import { resolve } from 'node:path';
import type { Library } from './contract.js';
import { DEFAULT_LIBRARY_DIR } from '../contract/paths.js';
import { SqliteLibrary, type SqliteLibraryOptions } from './sqlite/store.js';

export function resolveLibraryDir(flag?: string): string {
  return resolve(flag ?? process.env.ENVFORGE_LIBRARY ?? DEFAULT_LIBRARY_DIR);
}

export function libraryExists(dir: string): boolean {
  return SqliteLibrary.exists(dir);
}

export function openLibrary(dir: string, options: Partial<SqliteLibraryOptions> = {}): Library {
  return SqliteLibrary.open(dir, options);
}
