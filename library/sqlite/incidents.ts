// The SQLite store of production incidents and the quarantines they set (migrations 3 to 6): insert (deciding the
// quarantine, keeping to the retention per environment and client), list, resolve (lifting it); responses are kept
// whole, once per SHA-256, while an incident refers to them.
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import {
  LibraryError,
  type IncidentFilter,
  type IncidentInput,
  type IncidentRecord,
  type QuarantineRecord,
} from '../contract.js';
import {
  CLIENT_INPUT_FNS,
  NEVER_THE_CLIENTS_CODES,
  quarantineReason,
  quarantinesOf,
  type Evidence,
} from '../quarantine-policy.js';
import { checkIncident, expendable, incidentValues, mayDecide } from '../store-kit.js';

/** A row as SQLite returns it: the input's fields, with SQL's null, 0/1 and snake_case where they differ. */
type IncidentRow = Omit<IncidentInput, 'response' | 'confirmed' | 'client'> & {
  id: number;
  client?: string | null;
  response: string | null;
  response_sha256?: string | null;
  confirmed: number;
  created_at: string;
  resolved_at: string | null;
  resolution: string | null;
};

function toIncident(row: IncidentRow): IncidentRecord {
  const { response, response_sha256: _sha, confirmed, created_at, resolved_at, resolution, client, ...rest } = row;
  return {
    ...rest,
    ...(response === null ? {} : { response }),
    ...(client ? { client } : {}),
    confirmed: confirmed === 1,
    createdAt: created_at,
    resolvedAt: resolved_at,
    resolution,
  };
}

/** Rows with the whole response: from incident_responses, or (rows before migration 4) the stored prefix. */
const SELECT =
  'SELECT incidents.*, coalesce(incident_responses.text, incidents.response) AS response FROM incidents LEFT ' +
  'JOIN incident_responses ON incident_responses.sha256 = incidents.response_sha256';

const list = (xs: readonly string[]) => xs.map(() => '?').join(', ');
/** The incidents of one environment version and client that retention may drop (see store-kit's expendable). */
const GROUP =
  `hash = ? AND client IS ? AND fn IN (${list(CLIENT_INPUT_FNS)}) AND code NOT IN (` +
  `${list(NEVER_THE_CLIENTS_CODES)})`;
const groupOf = (input: IncidentInput) => [
  input.hash,
  input.client ?? null,
  ...CLIENT_INPUT_FNS,
  ...NEVER_THE_CLIENTS_CODES,
];

/**
 * Quarantines the version when its open incidents now meet the policy (inside the caller's write transaction); whether
 * it is quarantined. They are read only when the new one may decide (mayDecide) and until it is quarantined.
 */
function quarantine(db: Database.Database, input: IncidentInput, id: number | bigint, at: string): boolean {
  const { hash } = input;
  if (db.prepare('SELECT 1 FROM quarantines WHERE hash = ?').get(hash)) return true;
  const decides = mayDecide(input);
  if (decides === 'no') return false;
  const voted =
    `SELECT 1 FROM incidents WHERE ${GROUP} AND confirmed = 1 AND code = ? AND ` + `resolved_at IS NULL AND id < ?`;
  if (decides === 'vote' && db.prepare(voted).get(...groupOf(input), input.code, id)) return false;
  const open = db
    .prepare<[string], Omit<Evidence, 'confirmed'> & { confirmed: number }>(
      'SELECT code, fn, seed, level, confirmed, origin, client FROM incidents WHERE hash = ? AND resolved_at IS NULL ' +
        'ORDER BY id',
    )
    .all(hash);
  const reason = quarantineReason(open.map((i) => ({ ...i, confirmed: i.confirmed === 1 })));
  if (reason) db.prepare('INSERT INTO quarantines (hash, reason, created_at) VALUES (?, ?, ?)').run(hash, reason, at);
  return reason !== null;
}

/**
 * Drops the client's oldest expendable incidents of the version beyond the newest `keep`, its first open vote per code
 * kept.
 */
function dropExpendable(db: Database.Database, input: IncidentInput, keep: number): number {
  const group = groupOf(input);
  return db
    .prepare(
      `DELETE FROM incidents WHERE ${GROUP} AND id < (SELECT id FROM incidents WHERE ${GROUP} ORDER BY id DESC ` +
        `LIMIT 1 OFFSET ?) AND id NOT IN (SELECT min(id) FROM incidents WHERE ${GROUP} AND confirmed = 1 AND ` +
        'resolved_at IS NULL GROUP BY code)',
    )
    .run(...group, ...group, keep - 1, ...group).changes;
}

/** Inside the caller's write transaction; `retention` is the store's incidentRetention. */
export function insertIncident(
  db: Database.Database,
  input: IncidentInput,
  at: string,
  retention: number,
): IncidentRecord {
  const { message, response } = checkIncident(input);
  let sha: string | null = null;
  if (response !== null) {
    sha = createHash('sha256').update(response, 'utf8').digest('hex');
    db.prepare('INSERT OR IGNORE INTO incident_responses (sha256, text) VALUES (?, ?)').run(sha, response);
  }
  const info = db
    .prepare(
      'INSERT INTO incidents (hash, name, version, seed, level, code, fn, message, response_sha256, origin, ' +
        'confirmed, created_at, client) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    )
    .run(...incidentValues(input, message, sha, input.confirmed ? 1 : 0, at));
  const quarantined = quarantine(db, input, info.lastInsertRowid, at);
  if (!quarantined && expendable(input) && dropExpendable(db, input, retention) > 0)
    db.prepare(
      'DELETE FROM incident_responses WHERE sha256 NOT IN (SELECT response_sha256 FROM incidents WHERE ' +
        'response_sha256 IS NOT NULL)',
    ).run();
  return toIncident(
    db
      .prepare<[number | bigint], IncidentRow>(`${SELECT} WHERE incidents.id = ?`)
      .get(info.lastInsertRowid) as IncidentRow,
  );
}

export function listIncidents(db: Database.Database, filter: IncidentFilter = {}): IncidentRecord[] {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.hash !== undefined) {
    where.push('incidents.hash = ?');
    params.push(filter.hash);
  }
  if (filter.open) where.push('resolved_at IS NULL');
  const select = filter.responses === false ? 'SELECT *, NULL AS response FROM incidents' : SELECT;
  const sql = `${select}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY incidents.id`;
  return db
    .prepare<string[], IncidentRow>(sql)
    .all(...params)
    .map(toIncident);
}

/** Inside the caller's write transaction: the open incidents resolved, the quarantine lifted. */
export function resolveOpenIncidents(db: Database.Database, hash: string, resolution: string, at: string): number {
  if (!resolution.trim()) throw new LibraryError('resolving incidents needs a reason');
  db.prepare('DELETE FROM quarantines WHERE hash = ?').run(hash);
  return db
    .prepare('UPDATE incidents SET resolved_at = ?, resolution = ? WHERE hash = ? AND resolved_at IS NULL')
    .run(at, resolution, hash).changes;
}

export function listQuarantines(db: Database.Database): QuarantineRecord[] {
  return db
    .prepare<[], { hash: string; reason: string; created_at: string }>(
      'SELECT hash, reason, created_at FROM quarantines ORDER BY created_at, hash',
    )
    .all()
    .map((q) => ({ hash: q.hash, reason: q.reason, createdAt: q.created_at }));
}

/** The schema that stores quarantines (migration 6). */
export const QUARANTINES_SCHEMA = 6;

/** Inside the migration to QUARANTINES_SCHEMA: the quarantines the open incidents decided, stored. */
export function backfillQuarantines(db: Database.Database, at: string): void {
  const open = db
    .prepare<[], Omit<Evidence, 'confirmed'> & { hash: string; confirmed: number }>(
      'SELECT hash, code, fn, seed, level, confirmed, origin, client FROM incidents WHERE ' +
        'resolved_at IS NULL ORDER BY id',
    )
    .all()
    .map((i) => ({ ...i, confirmed: i.confirmed === 1 }));
  const insert = db.prepare('INSERT INTO quarantines (hash, reason, created_at) VALUES (?, ?, ?)');
  for (const q of quarantinesOf(open)) insert.run(q.hash, q.reason, at);
}
