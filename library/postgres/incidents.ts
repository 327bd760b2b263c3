// The PostgreSQL store of production incidents and the quarantines they set: insert (deciding the quarantine under a
// per-version lock, keeping to the retention per environment and client), list, resolve (lifting it).
import {
  LibraryError,
  type IncidentFilter,
  type IncidentInput,
  type IncidentRecord,
  type QuarantineRecord,
} from '../contract.js';
import { CLIENT_INPUT_FNS, NEVER_THE_CLIENTS_CODES, quarantineReason, type Evidence } from '../quarantine-policy.js';
import { checkIncident, expendable, incidentValues, mayDecide, now } from '../store-kit.js';
import { LOCKS, PgDb, type Query } from './db.js';

type IncidentRow = Omit<IncidentRecord, 'response' | 'createdAt' | 'resolvedAt' | 'seed' | 'client'> & {
  seed: string;
  response: string | null;
  client: string | null;
  created_at: string;
  resolved_at: string | null;
};

function toIncident(row: IncidentRow): IncidentRecord {
  const { response, created_at, resolved_at, seed, client, ...rest } = row;
  return {
    ...rest,
    seed: Number(seed),
    ...(response === null ? {} : { response }),
    ...(client ? { client } : {}),
    createdAt: created_at,
    resolvedAt: resolved_at,
  };
}

/** The incidents of one environment version and client that retention may drop ($1 hash, $2 client). */
const GROUP = 'hash = $1 AND client IS NOT DISTINCT FROM $2 AND fn = ANY($3::text[]) AND NOT (code = ANY($4::text[]))';
const groupOf = (input: IncidentInput) => [input.hash, input.client ?? null, CLIENT_INPUT_FNS, NEVER_THE_CLIENTS_CODES];

/**
 * Quarantines the version when its open incidents now meet the policy (inside the write, under its lock); whether it
 * is quarantined. They are read only when the new one may decide (mayDecide) and until it is quarantined.
 */
async function quarantine(q: Query, input: IncidentInput, id: number, at: string): Promise<boolean> {
  const { hash } = input;
  if ((await q('SELECT 1 FROM envforge.quarantines WHERE hash = $1', [hash])).rowCount) return true;
  const decides = mayDecide(input);
  if (decides === 'no') return false;
  const voted =
    `SELECT 1 FROM envforge.incidents WHERE ${GROUP} AND confirmed AND code = $5 AND ` +
    `resolved_at IS NULL AND id < $6`;
  if (decides === 'vote' && (await q(voted, [...groupOf(input), input.code, id])).rowCount) return false;
  const { rows } = await q(
    'SELECT code, fn, seed, level, confirmed, origin, client FROM envforge.incidents WHERE hash = $1 AND ' +
      'resolved_at IS NULL ORDER BY id',
    [hash],
  );
  const reason = quarantineReason(
    (rows as Array<Evidence & { client: string | null }>).map(({ client, ...i }) => ({
      ...i,
      ...(client ? { client } : {}),
    })),
  );
  if (reason)
    await q('INSERT INTO envforge.quarantines (hash, reason, created_at) VALUES ($1, $2, $3)', [hash, reason, at]);
  return reason !== null;
}

/**
 * Drops the client's oldest expendable incidents of the version beyond the newest `keep`, its first open vote per code
 * kept.
 */
async function dropExpendable(q: Query, input: IncidentInput, keep: number): Promise<void> {
  await q(
    `DELETE FROM envforge.incidents WHERE ${GROUP} AND id < (SELECT id FROM envforge.incidents WHERE ${GROUP} ` +
      `ORDER BY id DESC LIMIT 1 OFFSET $5) AND id NOT IN (SELECT min(id) FROM envforge.incidents WHERE ${GROUP} ` +
      'AND confirmed AND resolved_at IS NULL GROUP BY code)',
    [...groupOf(input), keep - 1],
  );
}

/** Inside the caller's write transaction; `retention` is the store's incidentRetention. */
export async function insertIncident(q: Query, input: IncidentInput, retention: number): Promise<IncidentRecord> {
  const { message, response } = checkIncident(input);
  const at = now();
  // One writer at a time per version: concurrent incidents that together meet the policy quarantine it.
  await q('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCKS.incidents, input.hash]);
  const { rows } = await q(
    'INSERT INTO envforge.incidents (hash, name, version, seed, level, code, fn, message, response, ' +
      'origin, confirmed, created_at, client) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, ' +
      '$11, $12, $13) RETURNING *',
    incidentValues(input, message, response, input.confirmed, at),
  );
  const id = (rows[0] as IncidentRow).id;
  if (!(await quarantine(q, input, id, at)) && expendable(input)) await dropExpendable(q, input, retention);
  await PgDb.changed(q);
  return toIncident(rows[0] as IncidentRow);
}

export async function listIncidents(query: Query, filter: IncidentFilter = {}): Promise<IncidentRecord[]> {
  const { rows } = await query(
    `SELECT *${filter.responses === false ? ', NULL AS response' : ''} FROM envforge.incidents WHERE ($1::text IS ` +
      'NULL OR hash = $1) AND (NOT $2 OR resolved_at IS NULL) ORDER BY id',
    [filter.hash ?? null, filter.open === true],
  );
  return (rows as IncidentRow[]).map(toIncident);
}

/** Inside the caller's write transaction: the open incidents resolved, the quarantine lifted. */
export async function resolveOpenIncidents(q: Query, hash: string, resolution: string): Promise<number> {
  if (!resolution.trim()) throw new LibraryError('resolving incidents needs a reason');
  const lifted = (await q('DELETE FROM envforge.quarantines WHERE hash = $1', [hash])).rowCount ?? 0;
  const { rowCount } = await q(
    'UPDATE envforge.incidents SET resolved_at = $1, resolution = $2 WHERE hash = $3 AND resolved_at IS NULL',
    [now(), resolution, hash],
  );
  if (rowCount || lifted) await PgDb.changed(q);
  return rowCount ?? 0;
}

export async function listQuarantines(query: Query): Promise<QuarantineRecord[]> {
  const { rows } = await query('SELECT hash, reason, created_at FROM envforge.quarantines ORDER BY created_at, hash');
  return (rows as Array<{ hash: string; reason: string; created_at: string }>).map((r) => ({
    hash: r.hash,
    reason: r.reason,
    createdAt: r.created_at,
  }));
}
