// What every library store shares beside the contract: timestamps, JSON columns, and the rules an input
// must meet before any store writes it (incidents), so the stores judge inputs alike.
import { isProblemCode, PROBLEM_CODES } from '../contract/codes.js';
import { createHash } from 'node:crypto';
import { hashSource } from '../contract/hash.js';
import type { Meta } from '../contract/schema.js';
import { CLIENT_INPUT_FNS, neverTheClients } from './quarantine-policy.js';
import type { Problem, ValidationReport } from '../validators/report.js';
import {
  LibraryError,
  SCORE_WINDOW,
  type AdmitInput,
  type IncidentInput,
  type IncidentRecord,
  type JournalInput,
  type ScoreInput,
} from './contract.js';

export const now = (): string => new Date().toISOString();

export const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** JSON text of a value (undefined is null); a value JSON cannot hold is a LibraryError. */
export function toJson(value: unknown, what: string): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (error) {
    throw new LibraryError(`${what} cannot be stored as JSON: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Incidents a client's input alone reached kept per environment version and client (the newest; its first confirmed
 * one per code is kept too): enough for revalidation to replay, and no client's volume displaces anyone else's.
 */
export const INCIDENT_RETENTION = 100;
const MAX_MESSAGE_CHARS = 2_000;

/**
 * What one client's own input failures may keep in the library, in bytes, across every environment (V22-5): the
 * incidents a client makes the library keep are charged to it as a whole, its oldest going first.
 */
export const INCIDENT_CLIENT_BYTES = 16 * 2 ** 20;
/** Responses kept whole per environment version, code, fn and client: what revalidation needs to replay a failure. */
export const WHOLE_RESPONSES = 3;
/** The characters of a response kept beside its digest once its failure's whole responses are kept. */
export const RESPONSE_PREFIX_CHARS = 1_024;
/** What an incident's row costs beside its message and response (its columns, its index entries), as charged. */
const INCIDENT_ROW_BYTES = 256;

/** A response kept as its first RESPONSE_PREFIX_CHARS only: its whole length and SHA-256. */
export type ResponseCut = NonNullable<IncidentRecord['responseCut']>;

/** The store's limits on what clients' own input failures keep (library/stores.ts). */
export interface IncidentLimits {
  incidentRetention: number;
  incidentClientBytes: number;
}

/** Who an incident's kept bytes are charged to: its principal, else its client (rows written before V22-5). */
export const payerOf = (input: Pick<IncidentInput, 'principal' | 'client'>): string | null =>
  input.principal ?? input.client ?? null;

/** The bytes an incident is charged: its row, its message and its response as stored (whole, or the prefix). */
export const keptBytes = (message: string, response: string | null): number =>
  INCIDENT_ROW_BYTES + Buffer.byteLength(message) + (response === null ? 0 : Buffer.byteLength(response));

/** The SHA-256 of a response (how a cut one is still named, and how a store keeps a whole one once). */
export const responseDigest = (response: string): string => createHash('sha256').update(response, 'utf8').digest('hex');

/**
 * How a new incident's response is stored: whole when it is no client's own (a tripwire, the environment's: it decides
 * a quarantine) or among the first WHOLE_RESPONSES of its failure's shape from its client (`wholeSoFar`: those kept
 * whole now), else its prefix and what the whole was (the same failure from one client is one piece of evidence).
 */
export function keptResponse(
  input: IncidentInput,
  response: string,
  wholeSoFar: () => number,
): { text: string; cut: ResponseCut | null } {
  if (!expendable(input) || payerOf(input) === null || wholeSoFar() < WHOLE_RESPONSES)
    return { text: response, cut: null };
  return cutResponse(response);
}

/** A response cut to its prefix, with what the whole was. */
export const cutResponse = (response: string): { text: string; cut: ResponseCut } => ({
  text: response.slice(0, RESPONSE_PREFIX_CHARS),
  cut: { chars: response.length, sha256: responseDigest(response) },
});

/**
 * Whether retention may drop this incident: only a client's input alone reached it (never a tripwire, never the
 * environment's own failure), so it is no evidence but that client's, and that client's volume is what it bounds.
 */
export function expendable(i: Pick<IncidentInput, 'fn' | 'code'>): boolean {
  return CLIENT_INPUT_FNS.includes(i.fn) && !neverTheClients(i.code);
}

/**
 * Whether a new incident can change its version's verdict, so that the store reads the version's open incidents again
 * (the verdict is decided when its evidence changes, and only then): yes for a tripwire or the environment's own
 * failure; never for a client's unconfirmed input failure, which counts for nothing; for a client's confirmed one,
 * only as its first open vote on that code ('vote': the store looks for an earlier one first).
 */
export function mayDecide(i: IncidentInput): 'yes' | 'no' | 'vote' {
  if (!expendable(i)) return 'yes';
  return i.confirmed && i.client ? 'vote' : 'no';
}

/**
 * Checks an incident and bounds its message (the response is returned whole: keptResponse decides what is stored); a
 * LibraryError says what is missing.
 */
export function checkIncident(input: IncidentInput): { message: string; response: string | null } {
  const bad = (what: string) => new LibraryError(`an incident needs ${what}`);
  if (!/^[0-9a-f]{64}$/.test(input.hash)) throw bad('the SHA-256 hash of the module');
  if (typeof input.name !== 'string' || input.name === '' || !Number.isSafeInteger(input.version) || input.version < 1)
    throw bad('the environment name and version');
  if (!Number.isSafeInteger(input.seed) || input.seed < 0 || !Number.isSafeInteger(input.level) || input.level < 1)
    throw bad('a seed (a non-negative safe integer) and a level');
  if (typeof input.code !== 'string' || input.code === '' || typeof input.fn !== 'string')
    throw bad('a code and a function name');
  if (input.origin !== 'serve' && input.origin !== 'export') throw bad("an origin of 'serve' or 'export'");
  for (const who of ['client', 'principal'] as const) {
    const value = input[who];
    if (value !== undefined && (typeof value !== 'string' || !/^[\x21-\x7e]{1,64}$/.test(value)))
      throw bad(`a ${who} of 1 to 64 printable characters, when it names one`);
  }
  return { message: String(input.message).slice(0, MAX_MESSAGE_CHARS), response: input.response ?? null };
}

/** The incident columns incidentValues fills, in order (each store names its response column `response`). */
export const INCIDENT_COLUMNS =
  'hash, name, version, seed, level, code, fn, message, response, origin, confirmed, created_at, client, payer, ' +
  'kept_bytes, cut_chars, cut_sha256';

/**
 * The incidents row's values in INCIDENT_COLUMNS' order: `response` as the store keeps it there (the text, or a
 * SQLite store's digest of it), `kept` what it keeps and is charged.
 */
export const incidentValues = (
  input: IncidentInput,
  message: string,
  response: string | null,
  confirmed: boolean | number,
  at: string,
  kept: { bytes: number; cut: ResponseCut | null },
): unknown[] => [
  input.hash,
  input.name,
  input.version,
  input.seed,
  input.level,
  input.code,
  input.fn,
  message,
  response,
  input.origin,
  confirmed,
  at,
  input.client ?? null,
  payerOf(input),
  kept.bytes,
  kept.cut?.chars ?? null,
  kept.cut?.sha256 ?? null,
];

/** A row's cut response (cut_chars, cut_sha256) as the record's responseCut, when it was cut. */
export const cutOf = (row: { cut_chars?: number | string | null; cut_sha256?: string | null }) =>
  row.cut_chars === null || row.cut_chars === undefined || !row.cut_sha256
    ? {}
    : { responseCut: { chars: Number(row.cut_chars), sha256: row.cut_sha256 } };

/** An admission's code hash and meta, once its report is known to admit exactly this source. */
export function checkAdmission(input: AdmitInput): { hash: string; meta: Meta } {
  const hash = hashSource(input.source);
  const { report } = input;
  if (report.verdict !== 'admit' || !report.meta)
    throw new LibraryError(`only admitted candidates enter the library (verdict: ${report.verdict})`);
  if (report.hash !== hash)
    throw new LibraryError('the validation report is for different code than the source being admitted');
  return { hash, meta: report.meta };
}

/** Journal entries checked (non-empty kind and key) with their payloads as JSON, and the ledger's JSON. */
export function journalRows(
  batchId: string,
  entries: JournalInput[],
  ledger: unknown,
): { rows: Array<{ kind: string; key: string; payload: string }>; ledger: string | undefined } {
  const rows = entries.map((entry, i) => {
    if (!nonEmpty(entry.kind) || !nonEmpty(entry.key))
      throw new LibraryError(`journal entry ${i} of batch "${batchId}" needs a non-empty kind and key`);
    return {
      kind: entry.kind,
      key: entry.key,
      payload: toJson(entry.payload, `the payload of journal entry ${entry.kind} ${entry.key}`),
    };
  });
  return { rows, ledger: ledger === undefined ? undefined : toJson(ledger, `the ledger of batch "${batchId}"`) };
}

/** Checks a score tally; a LibraryError says what is wrong. */
export function checkScore(t: ScoreInput): void {
  const ok =
    typeof t.name === 'string' &&
    t.name !== '' &&
    Number.isSafeInteger(t.version) &&
    t.version >= 1 &&
    Number.isSafeInteger(t.level) &&
    t.level >= 1 &&
    Number.isFinite(t.n) &&
    t.n > 0 &&
    Number.isFinite(t.passed) &&
    t.passed >= 0 &&
    t.passed <= t.n &&
    Number.isFinite(t.scoreSum) &&
    t.scoreSum >= 0 &&
    t.scoreSum <= t.n;
  if (!ok)
    throw new LibraryError(
      `a score tally needs a name, version ≥ 1, level ≥ 1 and counts with 0 ≤ passed, scoreSum ≤ n, n > 0; ` +
        `got ${JSON.stringify(t).slice(0, 200)}`,
    );
}

/** Counts of one tally: how many scores, how many passed, their sum. */
export type Counts = [n: number, passed: number, sum: number];

/**
 * A stored tally with new counts added, kept to SCORE_WINDOW: a moving estimate of the learner as it is
 * now, so the old counts shrink to make room for the new ones.
 */
export function addCounts(stored: Counts | null, t: ScoreInput): Counts {
  let [n, passed, sum] = stored ?? [0, 0, 0];
  const keep = Math.max(0, SCORE_WINDOW - Math.min(t.n, SCORE_WINDOW));
  if (n > keep) [n, passed, sum] = keep === 0 ? [0, 0, 0] : [keep, (passed * keep) / n, (sum * keep) / n];
  const scale = t.n > SCORE_WINDOW ? SCORE_WINDOW / t.n : 1;
  return [n + t.n * scale, passed + t.passed * scale, sum + t.scoreSum * scale];
}

/**
 * A rejection as the library keeps it. A candidate that never loaded as a module (it did not compile, or its
 * top level failed: the static stage has no exports) may be any file an operator named (a key, a config):
 * its problems keep their codes, meanings and positions, never its text, so none of it reaches the kept
 * rejections or the dashboard. The report printed to the operator who ran the command is not touched.
 */
export function keptReport(report: ValidationReport): ValidationReport {
  const staticStage = report.stages.find((s) => s.stage === 'static');
  if (!staticStage || staticStage.ok || 'exports' in staticStage.metrics) return report;
  const scrub = <P extends Problem>(p: P): P => {
    const { evidence: _evidence, ...rest } = p;
    const at = /(?:\[environment\.js:|\()(\d+):(\d+)[\])]\s*$/.exec(p.message);
    return {
      ...rest,
      message:
        `${isProblemCode(p.code) ? PROBLEM_CODES[p.code] : 'a problem'}` +
        `${at ? ` (line ${at[1]}, column ${at[2]})` : ''}`,
    } as P;
  };
  return {
    ...report,
    name: null,
    meta: null,
    problems: report.problems.map(scrub),
    stages: report.stages.map((s) => ({ ...s, problems: s.problems.map(scrub) })),
  };
}
