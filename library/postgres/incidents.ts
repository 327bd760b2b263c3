// The PostgreSQL store of production incidents and the quarantines they set: insert (deciding the quarantine under a
// per-version lock, keeping to the retention per environment and client and to each client's byte budget, under a
// per-client lock), list, resolve (lifting it).
import {
  LibraryError,
  type IncidentFilter,
  type IncidentInput,
  type IncidentRecord,
  type QuarantineRecord,
} from '../contract.js';
import { CLIENT_INPUT_FNS, NEVER_THE_CLIENTS_CODES, quarantineReason, type Evidence } from '../quarantine-policy.js';
import {
  checkIncident,
  cutOf,
  cutResponse,
  expendable,
  INCIDENT_COLUMNS,
  incidentValues,
  keptBytes,
  keptResponse,
  mayDecide,
  now,
  payerOf,
  type IncidentLimits,
  type ResponseCut,
} from '../store-kit.js';
import { LOCKS, PgDb, type Query } from './db.js';

type IncidentRow = Omit<
  IncidentRecord,
  'response' | 'createdAt' | 'resolvedAt' | 'seed' | 'client' | 'principal' | 'responseCut'
> & {
  seed: string;
  response: string | null;
  client: string | null;
  payer: string | null;
  kept_bytes: string;
  cut_chars: number | null;
  cut_sha256: string | null;
  created_at: string;
  resolved_at: string | null;
};

function toIncident(row: IncidentRow): IncidentRecord {
  const {
    response,
    created_at,
    resolved_at,
    seed,
    client,
    payer,
    kept_bytes: _b,
    cut_chars,
    cut_sha256,
    ...rest
  } = row;
  return {
    ...rest,
    seed: Number(seed),
    ...(response === null ? {} : { response }),
    ...cutOf({ cut_chars, cut_sha256 }),
    ...(client ? { client } : {}),
    ...(payer ? { principal: payer } : {}),
    createdAt: created_at,
    resolvedAt: resolved_at,
  };
}

/** The placeholders of INCIDENT_COLUMNS' values. */
const PLACES = INCIDENT_COLUMNS.split(',')
  .map((_, i) => `$${i + 1}`)
  .join(', ');
/** Incidents a client's input alone reached ($3 their fns, $4 the codes never the client's: see expendable). */
const EXPENDABLE = 'fn = ANY($3::text[]) AND NOT (code = ANY($4::text[]))';
/** The incidents of one environment version and client (its voter) that may be dropped ($1 hash, $2 client). */
const GROUP = `hash = $1 AND client IS NOT DISTINCT FROM $2 AND ${EXPENDABLE}`;
const groupOf = (input: IncidentInput) => [input.hash, input.client ?? null, CLIENT_INPUT_FNS, NEVER_THE_CLIENTS_CODES];
/** The same, of one environment version and payer ($2): what retention keeps per version and client. */
const PAID = `hash = $1 AND payer IS NOT DISTINCT FROM $2 AND ${EXPENDABLE}`;
const paidOf = (input: IncidentInput) => [input.hash, payerOf(input), CLIENT_INPUT_FNS, NEVER_THE_CLIENTS_CODES];
/** A payer's ($1) droppable incidents on every version ($2 unused); its first open vote per version and code. */
const MINE = `payer = $1 AND $2::text IS NULL AND ${EXPENDABLE}`;
const FIRST_VOTES =
  `SELECT min(id) FROM envforge.incidents WHERE ${MINE} AND confirmed AND resolved_at IS NULL ` + 'GROUP BY hash, code';

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
    `DELETE FROM envforge.incidents WHERE ${PAID} AND id < (SELECT id FROM envforge.incidents WHERE ${PAID} ` +
      `ORDER BY id DESC LIMIT 1 OFFSET $5) AND id NOT IN (SELECT min(id) FROM envforge.incidents WHERE ${PAID} ` +
      'AND confirmed AND resolved_at IS NULL GROUP BY code)',
    [...paidOf(input), keep - 1],
  );
}

/**
 * Keeps what a payer's own incidents hold, on every version, within `budget` bytes (V22-5): its oldest go first, its
 * first open votes (one per version and code) last, and of those only their responses, cut to a prefix, oldest first.
 */
async function chargePayer(q: Query, payer: string, budget: number): Promise<void> {
  const mine = [payer, null, CLIENT_INPUT_FNS, NEVER_THE_CLIENTS_CODES];
  const { rows } = await q(
    `SELECT id, kept_bytes, response, cut_chars, message FROM envforge.incidents WHERE id IN (${FIRST_VOTES}) ` +
      'ORDER BY id',
    mine,
  );
  const votes = rows as Array<{
    id: number;
    kept_bytes: string;
    response: string | null;
    cut_chars: number | null;
    message: string;
  }>;
  const held = votes.reduce((sum, v) => sum + Number(v.kept_bytes), 0);
  await q(
    `DELETE FROM envforge.incidents WHERE id IN (SELECT id FROM (SELECT id, sum(kept_bytes) OVER (ORDER BY id DESC) ` +
      `AS upto FROM envforge.incidents WHERE ${MINE} AND id NOT IN (${FIRST_VOTES})) AS paid WHERE upto > $5)`,
    [...mine, budget - held],
  );
  let over = held - budget;
  for (const vote of votes) {
    if (over <= 0 || vote.response === null || vote.cut_chars !== null) continue;
    const { text, cut } = cutResponse(vote.response);
    const bytes = keptBytes(vote.message, text);
    await q(
      'UPDATE envforge.incidents SET response = $1, cut_chars = $2, cut_sha256 = $3, kept_bytes = $4 WHERE id = $5',
      [text, cut.chars, cut.sha256, bytes, vote.id],
    );
    over -= Number(vote.kept_bytes) - bytes;
  }
}

/** Inside the caller's write transaction, under the store's limits. */
export async function insertIncident(q: Query, input: IncidentInput, limits: IncidentLimits): Promise<IncidentRecord> {
  const { message, response } = checkIncident(input);
  const at = now();
  const payer = payerOf(input);
  // One writer at a time per version: concurrent incidents that together meet the policy quarantine it. And per payer,
  // so that its budget is kept by one writer at a time.
  await q('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCKS.incidents, input.hash]);
  if (payer !== null) await q('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCKS.payers, payer]);
  let kept: { text: string | null; cut: ResponseCut | null } = { text: null, cut: null };
  if (response !== null) {
    const whole = async () =>
      Number(
        (
          await q(
            `SELECT count(*) AS n FROM envforge.incidents WHERE ${PAID} AND code = $5 AND fn = $6 AND ` +
              'response IS NOT NULL AND cut_chars IS NULL',
            [...paidOf(input), input.code, input.fn],
          )
        ).rows[0].n,
      );
    const n = expendable(input) && payer !== null ? await whole() : 0;
    kept = keptResponse(input, response, () => n);
  }
  const { rows } = await q(
    `INSERT INTO envforge.incidents (${INCIDENT_COLUMNS}) VALUES (${PLACES}) RETURNING *`,
    incidentValues(input, message, kept.text, input.confirmed, at, {
      bytes: keptBytes(message, kept.text),
      cut: kept.cut,
    }),
  );
  const id = (rows[0] as IncidentRow).id;
  if (!(await quarantine(q, input, id, at)) && expendable(input)) {
    await dropExpendable(q, input, limits.incidentRetention);
    if (payer !== null) await chargePayer(q, payer, limits.incidentClientBytes);
  }
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
