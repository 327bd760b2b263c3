// Runs the Library contract (library-contract-suite.ts) on every store library/stores.ts registers, each
// opened through the store interface the rest of envforge uses; a store without a fixture here fails.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Library } from '../library/contract.js';
import { STORES, type StoreName } from '../library/stores.js';
import { libraryContract, type LibraryFixture, type LibraryFixtureOptions } from './library-contract-suite.js';

/** How each store gets a fresh, empty library for one test. */
const FIXTURES: Record<StoreName, (options?: LibraryFixtureOptions) => Promise<LibraryFixture>> = {
  async sqlite(options) {
    const dir = await mkdtemp(join(tmpdir(), 'envforge-lib-'));
    const library = STORES.sqlite.open(dir, { create: true, ...options });
    const peers: Library[] = [];
    return {
      library,
      dir,
      modulePath: (hash) => join(dir, 'envs', `${hash}.js`),
      async peer() {
        peers.push(STORES.sqlite.open(dir, options));
        return peers[peers.length - 1] as Library;
      },
      async cleanup() {
        for (const peer of peers) await peer.close();
        await library.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

describe('library stores', () => {
  it('every registered store has a fixture, so none skips the contract', () => {
    expect(Object.keys(FIXTURES).sort()).toEqual(Object.keys(STORES).sort());
  });
});

for (const name of Object.keys(STORES) as StoreName[]) libraryContract(name, FIXTURES[name]);
