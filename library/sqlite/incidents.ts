// The SQLite store of production incidents (migrations 3, 4, 5): insert with bounded retention, list, resolve;
// responses are kept whole, once per SHA-256, while an incident refers to them.
import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { LibraryError, type IncidentInput, type IncidentRecord } from '../contract.js';
import { checkIncident, INCIDENT_RETENTION } from '../store-kit.js';

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

/** Inside the caller's write transaction. */
export function insertIncident(db: Database.Database, input: IncidentInput, at: string): IncidentRecord {
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
    .run(
      input.hash,
      input.name,
      input.version,
      input.seed,
      input.level,
      input.code,
      input.fn,
      message,
      sha,
      input.origin,
      input.confirmed ? 1 : 0,
      at,
      input.client ?? null,
    );
  const dropped = db
    .prepare('DELETE FROM incidents WHERE id <= (SELECT max(id) FROM incidents) - ?')
    .run(INCIDENT_RETENTION).changes;
  if (dropped > 0)
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

export function listIncidents(db: Database.Database, filter: { hash?: string; open?: boolean } = {}): IncidentRecord[] {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.hash !== undefined) {
    where.push('incidents.hash = ?');
    params.push(filter.hash);
  }
  if (filter.open) where.push('resolved_at IS NULL');
  const sql = `${SELECT}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY incidents.id`;
  return db
    .prepare<string[], IncidentRow>(sql)
    .all(...params)
    .map(toIncident);
}

/** Inside the caller's write transaction. */
export function resolveOpenIncidents(db: Database.Database, hash: string, resolution: string, at: string): number {
  if (!resolution.trim()) throw new LibraryError('resolving incidents needs a reason');
  return db
    .prepare('UPDATE incidents SET resolved_at = ?, resolution = ? WHERE hash = ? AND resolved_at IS NULL')
    .run(at, resolution, hash).changes;
}
