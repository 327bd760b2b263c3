// Schema migrations of the SQLite library index, numbered by PRAGMA user_version. Append only: a shipped
// migration never changes, and a library written by a newer envforge is refused, not rewritten.

/** 'EFOR': marks a SQLite file as an envforge library, so a foreign database is never migrated. */
export const APPLICATION_ID = 0x45464f52;

export const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE envs (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        meta TEXT NOT NULL,
        skills TEXT NOT NULL,
        levels INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'retired')),
        retired_reason TEXT,
        report TEXT NOT NULL,
        curve TEXT NOT NULL,
        fingerprint TEXT,
        lineage TEXT NOT NULL,
        author TEXT NOT NULL,
        validator_version TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (name, version)
      );
      CREATE INDEX envs_status ON envs (status, name);
      CREATE TABLE rejections (
        id INTEGER PRIMARY KEY,
        hash TEXT NOT NULL,
        name TEXT,
        codes TEXT NOT NULL,
        report TEXT NOT NULL,
        lineage TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
    `,
  },
  {
    // Batch bookkeeping: one row per `envforge run`, and its journal of durable steps.
    version: 2,
    sql: `
      CREATE TABLE batches (
        n INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'failed')),
        options TEXT NOT NULL,
        report TEXT,
        ledger TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        finished_at TEXT
      );
      CREATE TABLE journal (
        id INTEGER PRIMARY KEY,
        batch_id TEXT NOT NULL REFERENCES batches (id),
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        payload TEXT NOT NULL,
        created_at TEXT NOT NULL,
        UNIQUE (batch_id, kind, key),
        UNIQUE (batch_id, seq)
      );
    `,
  },
  {
    // Production incidents of admitted environments (serve, export): quarantine evidence, replayed by revalidate.
    version: 3,
    sql: `
      CREATE TABLE incidents (
        id INTEGER PRIMARY KEY,
        hash TEXT NOT NULL,
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        level INTEGER NOT NULL,
        code TEXT NOT NULL,
        fn TEXT NOT NULL,
        message TEXT NOT NULL,
        response TEXT,
        origin TEXT NOT NULL CHECK (origin IN ('serve', 'export')),
        confirmed INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        resolved_at TEXT,
        resolution TEXT
      );
      CREATE INDEX incidents_hash ON incidents (hash, resolved_at);
    `,
  },
  {
    // Whole incident responses by SHA-256, stored once however often they recur, so revalidation replays
    // exactly what production saw (migration 3 kept the first 64 KB in incidents.response).
    version: 4,
    sql: `
      CREATE TABLE incident_responses (
        sha256 TEXT PRIMARY KEY,
        text TEXT NOT NULL
      );
      ALTER TABLE incidents ADD COLUMN response_sha256 TEXT REFERENCES incident_responses (sha256);
    `,
  },
  {
    // Whose input reached an incident (a short hash of the reward service's client), when only a client's did.
    version: 5,
    sql: `
      ALTER TABLE incidents ADD COLUMN client TEXT;
    `,
  },
  {
    // Quarantine as a state of the environment version, set when its evidence meets the policy and lifted by
    // resolving its incidents; and the index retention per environment version and client needs. A library
    // quarantined before this keeps its evidence (retention never drops it) and gets its row at its next incident.
    version: 6,
    sql: `
      CREATE TABLE quarantines (
        hash TEXT PRIMARY KEY,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX incidents_client ON incidents (hash, client, id);
    `,
  },
  {
    // What a client makes the library keep is charged to it in bytes (V22-5): who pays for each incident (its
    // principal's hash; its client's for older rows), what it keeps, and a response kept as a prefix (what the whole
    // was). Older rows are charged what they hold.
    version: 7,
    sql: `
      ALTER TABLE incidents ADD COLUMN payer TEXT;
      ALTER TABLE incidents ADD COLUMN kept_bytes INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE incidents ADD COLUMN cut_chars INTEGER;
      ALTER TABLE incidents ADD COLUMN cut_sha256 TEXT;
      UPDATE incidents SET payer = client, kept_bytes = 256 + length(CAST(message AS BLOB)) + coalesce((SELECT
        length(CAST(text AS BLOB)) FROM incident_responses WHERE sha256 = response_sha256),
        length(CAST(response AS BLOB)), 0);
      CREATE INDEX incidents_payer ON incidents (payer, id);
      CREATE INDEX incidents_paid ON incidents (hash, payer, id);
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
