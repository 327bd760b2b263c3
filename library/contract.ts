// The Library contract: where admitted environments live, versioned, with lineage, reports and status,
// beside kept rejections, production incidents and the batch journal. Narrow enough for SQLite (the
// embedded default, sqlite/) and PostgreSQL; tests/library-contract.test.ts runs every store in stores.ts.
import { EnvforgeError } from '../contract/errors.js';
import type { Meta } from '../contract/schema.js';
import type { Fingerprint } from '../validators/novelty/fingerprint.js';
import type { LevelStats, ValidationReport } from '../validators/report.js';

/** Where an environment came from. */
export interface Lineage {
  /** 'seed', 'offline', or the model that wrote it (e.g. 'openai:gpt-4.1'). */
  author: string;
  /** The architect's spec it was written for, when there was one. */
  spec?: unknown;
  /** Content hash of the prompt file that produced it. */
  promptHash?: string;
  /** name@version of the environment it was repaired or derived from. */
  parent?: string;
  batchId?: string;
  /** Free-form provenance (offline author seed and version, …). */
  notes?: Record<string, unknown>;
}

export type EnvStatus = 'active' | 'retired';

export interface EnvRecord {
  name: string;
  version: number;
  /** SHA-256 of the module source: the file name on disk and the identity of the code. */
  hash: string;
  meta: Meta;
  status: EnvStatus;
  retiredReason: string | null;
  report: ValidationReport;
  curve: LevelStats[];
  fingerprint: Fingerprint | null;
  lineage: Lineage;
  validatorVersion: string;
  createdAt: string;
  updatedAt: string;
}

export interface AdmitInput {
  source: string;
  /** An admitting validation report of exactly this source. */
  report: ValidationReport;
  lineage: Lineage;
  /**
   * The admission cursor (`admissionCursor`) of the library the report's novelty stage was judged against.
   * When given, the store re-checks the candidate, inside the admitting transaction (admissions serialised),
   * against every environment admitted after it, with the novelty stage's own rule: two writers that each
   * judged against an older snapshot can never both admit near-duplicates.
   */
  noveltyCursor?: number;
}

/**
 * 'duplicate': a near-duplicate of an environment admitted since the candidate's novelty snapshot; nothing was written.
 */
export type AdmitResult =
  | { status: 'admitted' | 'exists'; env: EnvRecord }
  | { status: 'duplicate'; problems: ValidationReport['problems']; env?: undefined };

export interface ListFilter {
  status?: EnvStatus | 'all';
  skills?: string[];
  /** Every version, not only the newest of each name. */
  allVersions?: boolean;
}

/**
 * Something an admitted environment did wrong in production (serve, export): a timeout, a crash, or a
 * value that breaks the contract, at a (seed, level) and, for verify, a response. It is evidence for
 * quarantine (library/quarantine.ts) and what `library revalidate` replays.
 */
export interface IncidentInput {
  hash: string;
  name: string;
  version: number;
  seed: number;
  level: number;
  code: string;
  /** generate, solve, verify, or call (the whole episode). */
  fn: string;
  message: string;
  /** The response being scored, when verify failed (whole, or cut: IncidentRecord.responseCut). */
  response?: string;
  origin: 'serve' | 'export';
  /** The failure came back when the call was re-run alone in a fresh isolate. */
  confirmed: boolean;
  /**
   * Whose input reached the failure, when only a client's input did (a response, an action log): a short hash
   * of the reward service's client (its address). Quarantine needs the reference, or several independent clients.
   */
  client?: string;
  /** Who what it keeps is charged to (V22-5): a short hash of its client's principal, else its client's. */
  principal?: string;
}

export interface IncidentRecord extends IncidentInput {
  /** Set when `response` is a prefix (V22-5, store-kit's keptResponse): the whole's length and SHA-256. */
  responseCut?: { chars: number; sha256: string };
  id: number;
  createdAt: string;
  /** Set when revalidation dealt with it (retired the environment, or admitted it again). */
  resolvedAt: string | null;
  resolution: string | null;
}

/**
 * Counts of a library: by status over every version; by skill, author and kind over active environments (each counted
 * once, by its newest active version).
 */
export interface LibraryStats {
  /** Names with an active version. */
  environments: number;
  versions: number;
  /** Versions by status. */
  byStatus: Record<string, number>;
  /** Active environments per skill. */
  bySkill: Record<string, number>;
  /** Active environments per author. */
  byAuthor: Record<string, number>;
  /** Active environments by kind ('single', 'episodic'); absent in stats written before contract v2. */
  byKind?: Record<string, number>;
  /** The fewest and the most levels among active environments. */
  levels: { min: number; max: number } | null;
  rejections: number;
}

export interface RejectionFilter {
  /** Only rejections recorded by this batch (lineage.batchId). */
  batchId?: string;
  /** Only rejections with a problem of this code. */
  code?: string;
  /** At most this many, newest first (default 100). */
  limit?: number;
}

/** A kept rejection: the candidate's report and lineage, with its first problem pulled out for listings. */
export interface RejectionRecord {
  hash: string;
  /** meta.name when the candidate's meta was readable. */
  name: string | null;
  codes: string[];
  firstProblem: { code: string; stage: string; message: string } | null;
  report: ValidationReport;
  lineage: Lineage;
  createdAt: string;
}

export interface IntegrityReport {
  ok: boolean;
  problems: string[];
  checkedFiles: number;
  /** Files on disk that no index row names (left by a crash between file and index; removed by gc). */
  orphanFiles: string[];
}

export type BatchStatus = 'running' | 'finished' | 'failed';

/**
 * One run of `envforge run`. options, report and ledger are JSON values: stored as JSON and read back
 * with JSON semantics (undefined becomes null, Dates become strings, …).
 */
export interface BatchRecord {
  id: string;
  status: BatchStatus;
  /** The options of the first start; resuming does not change them. */
  options: unknown;
  createdAt: string;
  updatedAt: string;
  /** Set by finishBatch; null while running. */
  finishedAt: string | null;
  /** The end-of-batch report given to finishBatch; null while running. */
  report: unknown | null;
  /** The latest cost snapshot (saveBatchLedger, or appendJournal with a ledger); null until one is saved. */
  ledger: unknown | null;
}

/** What a batch has durably done: one entry per (kind, key), numbered 1, 2, 3, … per batch. */
export interface JournalEntry {
  batchId: string;
  /** 1-based, contiguous and increasing within the batch, in commit order. */
  seq: number;
  kind: string;
  key: string;
  payload: unknown;
  createdAt: string;
}

export interface JournalInput {
  /** Non-empty, e.g. 'call', 'admitted', 'rejected'. */
  kind: string;
  /** Non-empty; unique per (batch, kind): the identity that makes a replayed append a no-op. */
  key: string;
  payload: unknown;
}

/** The admitted environments: versions, lineage, status and the module files. */
export interface EnvStore {
  /** Atomic: the file and the index row appear together or not at all. Same code again is a no-op. */
  admit(input: AdmitInput): Promise<AdmitResult>;
  /** The newest version (of any status) unless a version is given; undefined when unknown. */
  get(name: string, version?: number): Promise<EnvRecord | undefined>;
  list(filter?: ListFilter): Promise<EnvRecord[]>;
  /** The newest admission's sequence number (0 for an empty library): admissions are numbered in commit order. */
  admissionCursor(): Promise<number>;
  /** Every version (of any status) admitted after `cursor`, oldest first, with the cursor of the newest. */
  admittedSince(cursor: number): Promise<{ envs: EnvRecord[]; cursor: number }>;
  /** The module source, checked against its hash. */
  source(env: Pick<EnvRecord, 'hash'>): Promise<string>;
  /** Retires the given version, or every active version of the name. Returns what changed. */
  retire(name: string, reason: string, version?: number): Promise<EnvRecord[]>;
  stats(): Promise<LibraryStats>;
  integrityCheck(): Promise<IntegrityReport>;
  /** Removes orphan files. */
  gc(): Promise<string[]>;
}

/** Rejected candidates' reports, kept for the funnel and repair analytics (bounded retention). */
export interface RejectionLog {
  recordRejection(input: { source: string; report: ValidationReport; lineage: Lineage }): Promise<void>;
  /** The kept rejections, newest first, optionally of one batch and/or one code. */
  rejections(filter?: RejectionFilter): Promise<RejectionRecord[]>;
}

/** A quarantine: a state of the version, set by the incident that meets the policy, lifted only by resolveIncidents. */
export interface QuarantineRecord {
  hash: string;
  /** Names the evidence that decided it. */
  reason: string;
  createdAt: string;
}

/** What admitted environments did wrong in production: the evidence for quarantine, and the quarantines it set. */
export interface IncidentStore {
  /** Records an incident and the quarantine it completes; retention: library/stores.ts' incident options. */
  recordIncident(input: IncidentInput): Promise<IncidentRecord>;
  /** Incidents, oldest first: of one version (by hash), only unresolved ones (open), without responses (false). */
  incidents(filter?: IncidentFilter): Promise<IncidentRecord[]>;
  /** Resolves every open incident of the hash with the reason, lifting its quarantine; returns how many. */
  resolveIncidents(hash: string, resolution: string): Promise<number>;
  /** The quarantines in force, oldest first. */
  quarantines(): Promise<QuarantineRecord[]>;
}
export type IncidentFilter = { hash?: string; open?: boolean; responses?: boolean };

/**
 * Batch bookkeeping: a journal that makes a killed `envforge run` resumable. For an unknown batch id,
 * every method but getBatch throws a LibraryError naming it; writes need a running batch.
 */
export interface BatchJournal {
  /**
   * Starts batch `id`, or resumes it: a running batch is returned as it is (options unchanged); a failed
   * one is reopened as running (finishedAt and report cleared, ledger and journal kept). A finished
   * batch, or an empty id, is a LibraryError.
   */
  startBatch(id: string, options: unknown): Promise<BatchRecord>;
  /**
   * Appends entries to a running batch's journal, atomically: every entry of one call commits, with
   * consecutive seqs in the given order, or none does. An entry whose (kind, key) the batch already has
   * (from an earlier call or earlier in this one) is a no-op: its existing entry is returned instead, so
   * replaying work on resume never duplicates it. Returns one entry per input, in input order.
   * With `options.ledger`, the batch's ledger is replaced in the same transaction, so the recorded spend
   * and the journal of what was paid for never disagree after a crash.
   */
  appendJournal(batchId: string, entries: JournalInput[], options?: { ledger?: unknown }): Promise<JournalEntry[]>;
  /** The batch's journal (only entries of `kind` when given), ordered by seq. */
  journal(batchId: string, kind?: string): Promise<JournalEntry[]>;
  /** Replaces the running batch's ledger (the latest cost snapshot). */
  saveBatchLedger(batchId: string, ledger: unknown): Promise<void>;
  /** Ends a running batch with its report. Returns the finished record. */
  finishBatch(batchId: string, status: 'finished' | 'failed', report: unknown): Promise<BatchRecord>;
  /** undefined when unknown. */
  getBatch(id: string): Promise<BatchRecord | undefined>;
  /** Newest (most recently started) first; every batch unless a limit is given. */
  listBatches(limit?: number): Promise<BatchRecord[]>;
}

/** Scores a trainer asked the reward service for, counted for one environment version at one level. */
export interface ScoreInput {
  name: string;
  version: number;
  level: number;
  /** Scores counted. */
  n: number;
  /** Of them, scores at or above PASS_SCORE. */
  passed: number;
  /** Their sum (the mean score is scoreSum / n). */
  scoreSum: number;
  /**
   * Asked for by the operator (the reward service's operator token), not by any client: only trusted scores
   * steer `level: "auto"`, the batch and nightly's retirement. Default false.
   */
  trusted?: boolean;
}

export interface ScoreTally extends ScoreInput {
  trusted: boolean;
  updatedAt: string;
}

/** The tallies that may steer (the operator's): `level: "auto"`, the batch's weak skills, nightly's retirement. */
export function trustedTallies(tallies: readonly ScoreTally[]): ScoreTally[] {
  return tallies.filter((t) => t.trusted);
}

/** A score at or above this passes: the pass rate the frontier and `level: "auto"` read. */
export const PASS_SCORE = 0.5;
/**
 * Scores a tally remembers: past this, its counts are scaled down to it before new ones are added, so the
 * newest scores dominate (the learner improves) and counts stay bounded; rows are at most versions × levels.
 */
export const SCORE_WINDOW = 1_000;

/**
 * What the reward service saw a trainer score: pass rates per environment version × level (bounded, durable).
 * Recording scores does not move changeStamp: readers reload the library on it, and scores come every few seconds.
 */
export interface ScoreLog {
  /** Adds the counts, in one transaction (all or none); each tally keeps to SCORE_WINDOW. */
  recordScores(tallies: ScoreInput[]): Promise<void>;
  /** Every tally, by name, version, level and trust (a trusted and an untrusted tally per level at most). */
  scoreTallies(): Promise<ScoreTally[]>;
}

/** A library: the five stores over one location, opened by a factory in open.ts. */
export interface Library extends EnvStore, RejectionLog, IncidentStore, BatchJournal, ScoreLog {
  /** The folder holding the index and the module files. */
  readonly dir: string;
  /**
   * A cheap token that changes whenever what the library holds may have changed (an admission, a
   * retirement, an incident), so a long-running reader such as the reward service knows when to reload.
   */
  changeStamp(): Promise<string>;
  /**
   * Where the store can push changes (PostgreSQL's LISTEN/NOTIFY): calls `listener` soon after anyone
   * commits a change; resolves to a function that stops listening. Absent where readers poll changeStamp.
   */
  onChange?(listener: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** A library that cannot be opened or used as asked: the message says what and where. */
export class LibraryError extends EnvforgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_LIBRARY', message, options);
  }
}
