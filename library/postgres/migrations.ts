// Schema migrations of the PostgreSQL library, numbered in envforge.schema_version. Append only, as for
// SQLite: a shipped migration never changes, and a library written by a newer envforge is refused.
// Tables live in their own schema (envforge), beside pg-boss's (pgboss) in the same database.

import { quarantinesOf, type Evidence } from '../quarantine-policy.js';
import { now } from '../store-kit.js';

export const SCHEMA = 'envforge';

export const PG_MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE envforge.envs (
        seq serial PRIMARY KEY,
        name text NOT NULL,
        version integer NOT NULL,
        hash text NOT NULL UNIQUE,
        meta text NOT NULL,
        skills text NOT NULL,
        levels integer NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retired')),
        retired_reason text,
        report text NOT NULL,
        curve text NOT NULL,
        fingerprint text,
        lineage text NOT NULL,
        author text NOT NULL,
        validator_version text NOT NULL,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        UNIQUE (name, version)
      );
      CREATE INDEX envs_status ON envforge.envs (status, name);
      -- Module sources in the database, content-addressed: every worker on every machine reads them
      -- without a shared folder, and a module commits in the admitting transaction.
      CREATE TABLE envforge.modules (hash text PRIMARY KEY, source text NOT NULL);
      CREATE TABLE envforge.rejections (
        id serial PRIMARY KEY,
        hash text NOT NULL,
        name text,
        codes text NOT NULL,
        batch_id text,
        report text NOT NULL,
        lineage text NOT NULL,
        created_at text NOT NULL
      );
      CREATE INDEX rejections_batch ON envforge.rejections (batch_id);
      CREATE TABLE envforge.batches (
        n serial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        status text NOT NULL CHECK (status IN ('running', 'finished', 'failed')),
        options text NOT NULL,
        report text,
        ledger text,
        created_at text NOT NULL,
        updated_at text NOT NULL,
        finished_at text
      );
      CREATE TABLE envforge.journal (
        id serial PRIMARY KEY,
        batch_id text NOT NULL REFERENCES envforge.batches (id),
        seq integer NOT NULL,
        kind text NOT NULL,
        key text NOT NULL,
        payload text NOT NULL,
        created_at text NOT NULL,
        UNIQUE (batch_id, kind, key),
        UNIQUE (batch_id, seq)
      );
      CREATE TABLE envforge.incidents (
        id serial PRIMARY KEY,
        hash text NOT NULL,
        name text NOT NULL,
        version integer NOT NULL,
        seed bigint NOT NULL,
        level integer NOT NULL,
        code text NOT NULL,
        fn text NOT NULL,
        message text NOT NULL,
        response text,
        origin text NOT NULL CHECK (origin IN ('serve', 'export')),
        confirmed boolean NOT NULL,
        created_at text NOT NULL,
        resolved_at text,
        resolution text
      );
      CREATE INDEX incidents_hash ON envforge.incidents (hash, resolved_at);
      -- Bumped by every change readers care about (admission, retirement, incident), with a NOTIFY.
      CREATE TABLE envforge.changes (id integer PRIMARY KEY CHECK (id = 1), n bigint NOT NULL);
      INSERT INTO envforge.changes VALUES (1, 0);
    `,
  },
  {
    version: 2,
    sql: `
      -- Trainer scores the reward service tallies (windowed counts); writing them does not bump envforge.changes.
      CREATE TABLE envforge.trainer_scores (
        name text NOT NULL,
        version integer NOT NULL,
        level integer NOT NULL,
        n double precision NOT NULL,
        passed double precision NOT NULL,
        score_sum double precision NOT NULL,
        updated_at text NOT NULL,
        PRIMARY KEY (name, version, level)
      );
    `,
  },
  {
    version: 3,
    sql: `
      -- Whose input reached an incident (a short hash of the reward service's client), when only a client's did.
      ALTER TABLE envforge.incidents ADD COLUMN client text;
      -- Scores the operator asked for (trusted: they steer) apart from any client's; older rows are untrusted.
      ALTER TABLE envforge.trainer_scores ADD COLUMN trusted boolean NOT NULL DEFAULT false;
      ALTER TABLE envforge.trainer_scores DROP CONSTRAINT trainer_scores_pkey;
      ALTER TABLE envforge.trainer_scores ADD PRIMARY KEY (name, version, level, trusted);
    `,
  },
  {
    version: 4,
    sql: `
      -- Quarantine as a state of the environment version (set by its evidence, lifted by resolving its incidents),
      -- and the index retention per environment version and client needs.
      CREATE TABLE envforge.quarantines (hash text PRIMARY KEY, reason text NOT NULL, created_at text NOT NULL);
      CREATE INDEX incidents_client ON envforge.incidents (hash, client, id);
    `,
  },
  {
    version: 5,
    sql: `
      -- What a client makes the library keep is charged to it in bytes (V22-5): who pays for each incident (its
      -- principal's hash; its client's for older rows), what it keeps, and a response kept as a prefix (what the
      -- whole was). Older rows are charged what they hold.
      ALTER TABLE envforge.incidents ADD COLUMN payer text;
      ALTER TABLE envforge.incidents ADD COLUMN kept_bytes bigint NOT NULL DEFAULT 0;
      ALTER TABLE envforge.incidents ADD COLUMN cut_chars integer;
      ALTER TABLE envforge.incidents ADD COLUMN cut_sha256 text;
      UPDATE envforge.incidents SET payer = client,
        kept_bytes = 256 + octet_length(message) + coalesce(octet_length(response), 0);
      CREATE INDEX incidents_payer ON envforge.incidents (payer, id);
      CREATE INDEX incidents_paid ON envforge.incidents (hash, payer, id);
    `,
  },
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS[PG_MIGRATIONS.length - 1]?.version ?? 0;

/** The schema that stores quarantines (migration 4). */
export const PG_QUARANTINES_SCHEMA = 4;

/** Inside the migration to PG_QUARANTINES_SCHEMA: the quarantines the open incidents decided, stored. */
export async function backfillQuarantines(
  q: (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>,
): Promise<void> {
  const { rows } = await q(
    'SELECT hash, code, fn, seed, level, confirmed, origin, client FROM envforge.incidents WHERE resolved_at IS NULL ' +
      'ORDER BY id',
  );
  const open = (rows as Array<Evidence & { hash: string; client: string | null }>).map(({ client, ...i }) => ({
    ...i,
    ...(client ? { client } : {}),
  }));
  for (const x of quarantinesOf(open))
    await q('INSERT INTO envforge.quarantines (hash, reason, created_at) VALUES ($1, $2, $3)', [
      x.hash,
      x.reason,
      now(),
    ]);
}
