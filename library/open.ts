// Finds and opens the library a command works on: --library DIR, else $ENVFORGE_LIBRARY, else the
// project's generated/ folder, through the store (stores.ts) that handles that location.
import { resolve } from 'node:path';
import { DEFAULT_LIBRARY_DIR } from '../contract/paths.js';
import { LibraryError, type Library } from './contract.js';
import { STORES, type LibraryOpenOptions, type LibraryStore } from './stores.js';

export function resolveLibraryDir(flag?: string): string {
  return resolve(flag ?? process.env.ENVFORGE_LIBRARY ?? DEFAULT_LIBRARY_DIR);
}

function storeFor(location: string): LibraryStore {
  const store = Object.values(STORES).find((s: LibraryStore) => s.handles(location));
  if (!store) throw new LibraryError(`no library store handles ${location} (stores: ${Object.keys(STORES).join(', ')})`);
  return store;
}

export function libraryExists(location: string): boolean {
  return storeFor(location).exists(location);
}

export function openLibrary(location: string, options: Partial<LibraryOpenOptions> = {}): Library {
  return storeFor(location).open(location, options);
}
