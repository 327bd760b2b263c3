// Quarantine as a state (V20-4, V20-5): IncidentLog's verdicts are decided when evidence changes and read in one
// lookup; the library's stored quarantine holds whatever becomes of the incidents behind it, until resolved; a
// library quarantined by its incidents before the quarantines table (schema 5) stores the quarantine as it upgrades.
import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { EnvRecord, IncidentInput, IncidentRecord } from '../library/contract.js';
import { ACTION_LOG_FN, IncidentLog, type Misbehaviour } from '../library/quarantine.js';
import { APPLICATION_ID, MIGRATIONS } from '../library/sqlite/migrations.js';
import { INDEX_FILE, SqliteLibrary } from '../library/sqlite/store.js';
import { PG_MIGRATIONS } from '../library/postgres/migrations.js';
import { PostgresLibrary } from '../library/postgres/store.js';
import { postgresForTests } from './helpers/postgres.js';

const hash = 'b'.repeat(64);
const record = { hash, name: 'flooded', version: 1 } as EnvRecord;
const misbehaviour = (over: Partial<Misbehaviour> = {}): Misbehaviour => ({
  record,
  seed: 1,
  level: 1,
  code: 'E_TIMEOUT',
  message: 'ran past its budget',
  fn: ACTION_LOG_FN,
  client: 'c1',
  ...over,
});
const input = (over: Partial<IncidentInput> = {}): IncidentInput => ({
  hash,
  name: 'flooded',
  version: 1,
  seed: 7,
  level: 1,
  code: 'E_ESCAPE_ATTEMPT',
  fn: 'step',
  message: 'the module reached for eval',
  origin: 'serve',
  confirmed: true,
  ...over,
});
const stored = (over: Partial<IncidentInput> = {}, id = 1): IncidentRecord => ({
  ...input(over),
  id,
  createdAt: '',
  resolvedAt: null,
  resolution: null,
});
const quiet = () => {};

describe('IncidentLog keeps verdicts, not evidence lists', () => {
  it("a stored quarantine holds when the library's incidents behind it are gone; lifted only when the row is", () => {
    const log = new IncidentLog(join(tmpdir(), 'no-library-here'), 'serve', true, quiet);
    const held = { hash, reason: 'quarantined: it reached for eval', createdAt: '' };
    log.refresh([stored()], [held]);
    expect(log.quarantined(hash)).toBe(held.reason);
    log.refresh([], [held]); // every incident dropped (retention, a person): the state is the row
    expect(log.quarantined(hash)).toBe(held.reason);
    log.refresh([], []); // resolved by revalidation: the row is gone with them
    expect(log.quarantined(hash)).toBeNull();
  });

  it('a verdict this process reaches stays until the library shows it; memory-only evidence too', async () => {
    const log = new IncidentLog(join(tmpdir(), 'no-library-here'), 'serve', true, quiet);
    await log.record(misbehaviour({ client: 'c1' }), true);
    await log.record(misbehaviour({ client: 'c2' }), true);
    expect(log.quarantined(hash)).toBeNull();
    log.refresh([], []); // the library could not take them: the two votes are kept in memory
    await log.record(misbehaviour({ client: 'c3' }), true);
    const reason = log.quarantined(hash);
    expect(reason).toMatch(/3 independent clients made it fail with E_TIMEOUT/);
    log.refresh([], []); // the library does not show it (it could not be written): the verdict stays
    expect(log.quarantined(hash)).toBe(reason);
  });
});

describe('a library quarantined by its incidents at schema 5', () => {
  it('upgrades with the quarantine stored from its open incidents', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'envforge-q5-'));
    mkdirSync(join(dir, 'envs'));
    const db = new Database(join(dir, INDEX_FILE));
    for (const m of MIGRATIONS.filter((m) => m.version <= 5)) db.exec(m.sql);
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma('user_version = 5');
    db.prepare(
      'INSERT INTO incidents (hash, name, version, seed, level, code, fn, message, origin, confirmed, created_at) ' +
        "VALUES (?, 'flooded', 1, 7, 1, 'E_ESCAPE_ATTEMPT', 'step', 'eval', 'serve', 1, '2026-01-01T00:00:00Z')",
    ).run(hash);
    db.close();
    const library = SqliteLibrary.open(dir);
    try {
      // Opened for writing, it upgrades and stores the quarantine its open incidents decide.
      const held = await library.quarantines();
      expect(held.map((q) => [q.hash, q.reason])).toEqual([[hash, expect.stringMatching(/E_ESCAPE_ATTEMPT in step/)]]);
      const log = new IncidentLog(dir, 'serve', true, quiet);
      log.refresh(await library.incidents({ open: true, responses: false }), held);
      expect(log.quarantined(hash)).toBe(held[0]?.reason);
      // A flood of one client's input failures on it afterwards changes nothing.
      for (let seed = 0; seed < 20; seed++)
        await library.recordIncident(
          input({ code: 'E_THROWN', fn: ACTION_LOG_FN, client: 'c1', confirmed: false, seed }),
        );
      expect(await library.quarantines()).toEqual(held);
      await log.close();
    } finally {
      await library.close();
    }
  });
});

const server = postgresForTests();
afterAll(() => server.stop());

describe.skipIf(server.skipped)('a PostgreSQL library quarantined by its incidents at schema 3', () => {
  it('upgrades with the quarantine stored from its open incidents', async () => {
    const url = await (await server.ready()).createDatabase();
    const sql = new pg.Client({ connectionString: url });
    await sql.connect();
    try {
      await sql.query('CREATE SCHEMA envforge; CREATE TABLE envforge.schema_version (version integer NOT NULL)');
      for (const m of PG_MIGRATIONS.filter((m) => m.version <= 3)) await sql.query(m.sql);
      await sql.query('INSERT INTO envforge.schema_version VALUES (3)');
      await sql.query(
        'INSERT INTO envforge.incidents (hash, name, version, seed, level, code, fn, message, origin, confirmed, ' +
          "created_at) VALUES ($1, 'flooded', 1, 7, 1, 'E_ESCAPE_ATTEMPT', 'step', 'eval', 'serve', true, 'then')",
        [hash],
      );
    } finally {
      await sql.end();
    }
    const library = PostgresLibrary.open(url);
    try {
      const held = await library.quarantines();
      expect(held.map((q) => [q.hash, q.reason])).toEqual([[hash, expect.stringMatching(/E_ESCAPE_ATTEMPT in step/)]]);
    } finally {
      await library.close();
    }
  });
});
