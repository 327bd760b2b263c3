// The Library contract: where admitted environments live, versioned, with lineage, reports and status.
// One interface, narrow enough for SQLite (the embedded default) and PostgreSQL; tests/library-contract.ts
// checks any implementation against it.
import { EnvforgeError } from '../contract/errors.js';
import type { Meta } from '../contract/schema.js';
import type { Fingerprint } from '../validators/novelty.js';
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
}

export type AdmitResult = { status: 'admitted' | 'exists'; env: EnvRecord };

export interface ListFilter {
  status?: EnvStatus | 'all';
  skills?: string[];
  /** Every version, not only the newest of each name. */
  allVersions?: boolean;
}

export interface LibraryStats {
  environments: number;
  versions: number;
  byStatus: Record<string, number>;
  bySkill: Record<string, number>;
  byAuthor: Record<string, number>;
  /** The fewest and the most levels among active environments. */
  levels: { min: number; max: number } | null;
  rejections: number;
}

export interface IntegrityReport {
  ok: boolean;
  problems: string[];
  checkedFiles: number;
  /** Files on disk that no index row names (left by a crash between file and index; removed by gc). */
  orphanFiles: string[];
}

export interface Library {
  /** The folder holding the index and the module files. */
  readonly dir: string;
  /** Atomic: the file and the index row appear together or not at all. Same code again is a no-op. */
  admit(input: AdmitInput): Promise<AdmitResult>;
  /** Keeps a rejected candidate's report for the funnel and repair analytics (bounded retention). */
  recordRejection(input: { source: string; report: ValidationReport; lineage: Lineage }): Promise<void>;
  /** The newest version (of any status) unless a version is given; undefined when unknown. */
  get(name: string, version?: number): Promise<EnvRecord | undefined>;
  list(filter?: ListFilter): Promise<EnvRecord[]>;
  /** The module source, checked against its hash. */
  source(env: Pick<EnvRecord, 'hash'>): Promise<string>;
  /** Retires the given version, or every active version of the name. Returns what changed. */
  retire(name: string, reason: string, version?: number): Promise<EnvRecord[]>;
  stats(): Promise<LibraryStats>;
  integrityCheck(): Promise<IntegrityReport>;
  /** Removes orphan files. */
  gc(): Promise<string[]>;
  close(): Promise<void>;
}

/** A library that cannot be opened or used as asked: the message says what and where. */
export class LibraryError extends EnvforgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_LIBRARY', message, options);
  }
}
