// The SQLite store of production incidents (migration 3): insert with bounded retention, list, resolve.
import type Database from 'better-sqlite3';
import { LibraryError, type IncidentInput, type IncidentRecord } from '../contract.js';
import { checkIncident, INCIDENT_RETENTION } from '../store-kit.js';

/** A row as SQLite returns it: the input's fields, with SQL's null, 0/1 and snake_case where they differ. */
type IncidentRow = Omit<IncidentInput, 'response' | 'confirmed'> & {
  id: number;
  response: string | null;
  confirmed: number;
  created_at: string;
  resolved_at: string | null;
  resolution: string | null;
};

function toIncident(row: IncidentRow): IncidentRecord {
  const { response, confirmed, created_at, resolved_at, resolution, ...rest } = row;
  return { ...rest, ...(response === null ? {} : { response }), confirmed: confirmed === 1, createdAt: created_at, resolvedAt: resolved_at, resolution };
}

/** Inside the caller's write transaction. */
export function insertIncident(db: Database.Database, input: IncidentInput, at: string): IncidentRecord {
  const { message, response } = checkIncident(input);
  const info = db
      .prepare('INSERT INTO incidents (hash, name, version, seed, level, code, fn, message, response, origin, confirmed, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(input.hash, input.name, input.version, input.seed, input.level, input.code, input.fn, message, response, input.origin, input.confirmed ? 1 : 0, at);
  db.prepare('DELETE FROM incidents WHERE id <= (SELECT max(id) FROM incidents) - ?').run(INCIDENT_RETENTION);
  return toIncident(db.prepare<[number | bigint], IncidentRow>('SELECT * FROM incidents WHERE id = ?').get(info.lastInsertRowid) as IncidentRow);
}

export function listIncidents(db: Database.Database, filter: { hash?: string; open?: boolean } = {}): IncidentRecord[] {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.hash !== undefined) {
    where.push('hash = ?');
    params.push(filter.hash);
  }
  if (filter.open) where.push('resolved_at IS NULL');
  const sql = `SELECT * FROM incidents${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id`;
  return db.prepare<string[], IncidentRow>(sql).all(...params).map(toIncident);
}

/** Inside the caller's write transaction. */
export function resolveOpenIncidents(db: Database.Database, hash: string, resolution: string, at: string): number {
  if (!resolution.trim()) throw new LibraryError('resolving incidents needs a reason');
  return db.prepare('UPDATE incidents SET resolved_at = ?, resolution = ? WHERE hash = ? AND resolved_at IS NULL').run(at, resolution, hash).changes;
}
