// The SQLite store of production incidents and the quarantines they set (migrations 3 to 7): insert (deciding the
// quarantine, keeping to the retention per environment and client and to each client's byte budget), list, resolve
// (lifting it); whole responses are kept once per SHA-256 while an incident refers to them, cut ones in their row.
import type Database from 'better-sqlite3';
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
  payerOf,
  responseDigest,
  type IncidentLimits,
  type ResponseCut,
} from '../store-kit.js';

/** A row as SQLite returns it: the input's fields, with SQL's null, 0/1 and snake_case where they differ. */
type IncidentRow = Omit<IncidentInput, 'response' | 'confirmed' | 'client' | 'principal'> & {
  id: number;
  client?: string | null;
  payer?: string | null;
  kept_bytes?: number;
  cut_chars?: number | null;
  cut_sha256?: string | null;
  response: string | null;
  response_sha256?: string | null;
  confirmed: number;
  created_at: string;
  resolved_at: string | null;
  resolution: string | null;
};

function toIncident(row: IncidentRow): IncidentRecord {
  const { response, response_sha256: _sha, confirmed, created_at, resolved_at, resolution, client, ...more } = row;
  const { payer, kept_bytes: _bytes, cut_chars: _chars, cut_sha256: _cut, ...rest } = more;
  return {
    ...rest,
    ...(response === null ? {} : { response }),
    ...cutOf(row),
    ...(client ? { client } : {}),
    ...(payer ? { principal: payer } : {}),
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
/** Incidents a client's input alone reached (see store-kit's expendable): expendableParams fills it. */
const EXPENDABLE = `fn IN (${list(CLIENT_INPUT_FNS)}) AND code NOT IN (${list(NEVER_THE_CLIENTS_CODES)})`;
const expendableParams = [...CLIENT_INPUT_FNS, ...NEVER_THE_CLIENTS_CODES];
/** The incidents of one environment version and client (its voter) that may be dropped. */
const GROUP = `hash = ? AND client IS ? AND ${EXPENDABLE}`;
const groupOf = (input: IncidentInput) => [input.hash, input.client ?? null, ...expendableParams];
/** The same, of one environment version and payer (what retention keeps per version and client). */
const PAID = `hash = ? AND payer IS ? AND ${EXPENDABLE}`;
const paidOf = (input: IncidentInput) => [input.hash, payerOf(input), ...expendableParams];
/** A payer's incidents that may be dropped, on every version; and its first open vote per version and code (kept). */
const MINE = `payer = ? AND ${EXPENDABLE}`;
const FIRST_VOTES =
  `SELECT min(id) FROM incidents WHERE ${MINE} AND confirmed = 1 AND resolved_at IS NULL ` + 'GROUP BY hash, code';

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
  const group = paidOf(input);
  return db
    .prepare(
      `DELETE FROM incidents WHERE ${PAID} AND id < (SELECT id FROM incidents WHERE ${PAID} ORDER BY id DESC ` +
        `LIMIT 1 OFFSET ?) AND id NOT IN (SELECT min(id) FROM incidents WHERE ${PAID} AND confirmed = 1 AND ` +
        'resolved_at IS NULL GROUP BY code)',
    )
    .run(...group, ...group, keep - 1, ...group).changes;
}

/**
 * Keeps what a payer's own incidents hold, on every version, within `budget` bytes (V22-5): its oldest go first, its
 * first open votes (one per version and code) last, and of those only their responses, cut to a prefix, oldest first.
 * Whether anything changed.
 */
function chargePayer(db: Database.Database, payer: string, budget: number): boolean {
  const mine = [payer, ...expendableParams];
  const votes = db
    .prepare<unknown[], { id: number; kept_bytes: number; sha: string | null; message: string }>(
      `SELECT id, kept_bytes, response_sha256 AS sha, message FROM incidents WHERE id IN (${FIRST_VOTES}) ORDER BY id`,
    )
    .all(...mine);
  const held = votes.reduce((sum, v) => sum + v.kept_bytes, 0);
  const dropped = db
    .prepare(
      `DELETE FROM incidents WHERE id IN (SELECT id FROM (SELECT id, sum(kept_bytes) OVER (ORDER BY id DESC) AS upto ` +
        `FROM incidents WHERE ${MINE} AND id NOT IN (${FIRST_VOTES})) WHERE upto > ?)`,
    )
    .run(...mine, ...mine, budget - held).changes;
  let over = held - budget;
  for (const vote of votes) {
    if (over <= 0 || vote.sha === null) continue;
    const whole = db
      .prepare<[string], { text: string }>('SELECT text FROM incident_responses WHERE sha256 = ?')
      .get(vote.sha);
    if (!whole) continue;
    const { text, cut } = cutResponse(whole.text);
    const bytes = keptBytes(vote.message, text);
    db.prepare(
      'UPDATE incidents SET response = ?, response_sha256 = NULL, cut_chars = ?, cut_sha256 = ?, kept_bytes = ? ' +
        'WHERE id = ?',
    ).run(text, cut.chars, cut.sha256, bytes, vote.id);
    over -= vote.kept_bytes - bytes;
  }
  return dropped > 0 || held > budget;
}

/** Inside the caller's write transaction, under the store's limits. */
export function insertIncident(
  db: Database.Database,
  input: IncidentInput,
  at: string,
  limits: IncidentLimits,
): IncidentRecord {
  const { message, response } = checkIncident(input);
  const payer = payerOf(input);
  // A whole response is kept once, by digest (incident_responses); a cut one is its prefix, in its row.
  let sha: string | null = null;
  let kept: { text: string | null; cut: ResponseCut | null } = { text: null, cut: null };
  if (response !== null) {
    kept = keptResponse(input, response, () =>
      count(db, `${PAID} AND code = ? AND fn = ? AND response_sha256 IS NOT NULL`, [
        ...paidOf(input),
        input.code,
        input.fn,
      ]),
    );
    if (kept.cut === null) {
      sha = responseDigest(response);
      db.prepare('INSERT OR IGNORE INTO incident_responses (sha256, text) VALUES (?, ?)').run(sha, response);
    }
  }
  const info = db
    .prepare(
      `INSERT INTO incidents (${INCIDENT_COLUMNS}, response_sha256) VALUES (${list(INCIDENT_COLUMNS.split(','))}, ?)`,
    )
    .run(
      ...incidentValues(input, message, kept.cut ? kept.text : null, input.confirmed ? 1 : 0, at, {
        bytes: keptBytes(message, kept.text),
        cut: kept.cut,
      }),
      sha,
    );
  // As recorded (its client's budget may drop it at once, when its first votes alone fill it).
  const recorded = toIncident(
    db
      .prepare<[number | bigint], IncidentRow>(`${SELECT} WHERE incidents.id = ?`)
      .get(info.lastInsertRowid) as IncidentRow,
  );
  const quarantined = quarantine(db, input, info.lastInsertRowid, at);
  if (!quarantined && expendable(input)) {
    const dropped = dropExpendable(db, input, limits.incidentRetention) > 0;
    if ((payer !== null && chargePayer(db, payer, limits.incidentClientBytes)) || dropped)
      db.prepare(
        'DELETE FROM incident_responses WHERE sha256 NOT IN (SELECT response_sha256 FROM incidents WHERE ' +
          'response_sha256 IS NOT NULL)',
      ).run();
  }
  return recorded;
}

const count = (db: Database.Database, where: string, params: unknown[]): number =>
  (
    db.prepare<unknown[], { n: number }>(`SELECT count(*) AS n FROM incidents WHERE ${where}`).get(...params) as {
      n: number;
    }
  ).n;

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
