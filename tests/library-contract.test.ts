// Runs the Library contract (library-contract-suite.ts) on every store library/stores.ts registers, each
// opened through the store interface the rest of envforge uses; a store without a fixture here fails.
// PostgreSQL runs on a throwaway server this file starts (tests/helpers/postgres.ts).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { Library } from '../library/contract.js';
import { moduleName } from '../library/postgres/envs.js';
import { STORES, type StoreName } from '../library/stores.js';
import { libraryContract, type LibraryFixture, type LibraryFixtureOptions } from './library-contract-suite.js';
import { postgresForTests } from './helpers/postgres.js';

const server = postgresForTests();
afterAll(() => server.stop());

/** Second handles on one library, closed together. */
function peersOf(open: () => Library) {
  const peers: Library[] = [];
  return {
    peer: async () => (peers.push(open()), peers[peers.length - 1] as Library),
    closeAll: async () => {
      for (const peer of peers) await peer.close();
    },
  };
}

/** How each store gets a fresh, empty library for one test. */
const FIXTURES: Record<StoreName, (options?: LibraryFixtureOptions) => Promise<LibraryFixture>> = {
  async sqlite(options) {
    const dir = await mkdtemp(join(tmpdir(), 'envforge-lib-'));
    const library = STORES.sqlite.open(dir, { create: true, ...options });
    const peers = peersOf(() => STORES.sqlite.open(dir, options));
    const path = (hash: string) => join(dir, 'envs', `${hash}.js`);
    return {
      library,
      modules: {
        read: async (hash) => (existsSync(path(hash)) ? readFileSync(path(hash), 'utf8') : undefined),
        write: async (hash, text) => writeFileSync(path(hash), text),
        remove: async (hash) => rmSync(path(hash)),
        name: path,
      },
      peer: peers.peer,
      async cleanup() {
        await peers.closeAll();
        await library.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
  async postgres(options) {
    const url = await (await server.ready()).createDatabase();
    const library = STORES.postgres.open(url, { create: true, ...options });
    await library.stats(); // creates the tables before the test reaches behind the library
    const peers = peersOf(() => STORES.postgres.open(url, options));
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    return {
      library,
      modules: {
        read: async (hash) =>
          (await sql.query('SELECT source FROM envforge.modules WHERE hash = $1', [hash])).rows[0]?.source,
        write: async (hash, text) =>
          void (await sql.query(
            'INSERT INTO envforge.modules VALUES ($1, $2) ON CONFLICT (hash) DO UPDATE SET source = $2',
            [hash, text],
          )),
        remove: async (hash) => void (await sql.query('DELETE FROM envforge.modules WHERE hash = $1', [hash])),
        name: moduleName,
      },
      peer: peers.peer,
      async cleanup() {
        await peers.closeAll();
        await library.close();
        await sql.end();
      },
    };
  },
};

describe('library stores', () => {
  it('every registered store has a fixture, so none skips the contract', () => {
    expect(Object.keys(FIXTURES).sort()).toEqual(Object.keys(STORES).sort());
  });
});

for (const name of Object.keys(STORES) as StoreName[]) {
  if (name === 'postgres' && server.skipped) describe.skip(`postgres (Library contract): ${server.skipped}`, () => {});
  else libraryContract(name, FIXTURES[name]);
}
