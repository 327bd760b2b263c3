// The library's tables as both stores hold them (snake_case columns, JSON in text columns) and how a row
// becomes a contract record, so SQLite and PostgreSQL read back exactly the same values.
import type { Meta } from '../contract/schema.js';
import { countsPerKind, kindOf } from '../kinds/registry.js';
import type { ValidationReport } from '../validators/report.js';
import type {
  BatchRecord,
  BatchStatus,
  EnvRecord,
  JournalEntry,
  LibraryStats,
  Lineage,
  ListFilter,
  RejectionRecord,
} from './contract.js';

export interface EnvRow {
  name: string;
  version: number;
  hash: string;
  meta: string;
  status: 'active' | 'retired';
  retired_reason: string | null;
  report: string;
  curve: string;
  fingerprint: string | null;
  lineage: string;
  validator_version: string;
  created_at: string;
  updated_at: string;
}

export function toRecord(row: EnvRow): EnvRecord {
  return {
    name: row.name,
    version: row.version,
    hash: row.hash,
    meta: JSON.parse(row.meta) as Meta,
    status: row.status,
    retiredReason: row.retired_reason,
    report: JSON.parse(row.report) as ValidationReport,
    curve: JSON.parse(row.curve) as EnvRecord['curve'],
    fingerprint: row.fingerprint ? (JSON.parse(row.fingerprint) as EnvRecord['fingerprint']) : null,
    lineage: JSON.parse(row.lineage) as Lineage,
    validatorVersion: row.validator_version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface BatchRow {
  n: number;
  id: string;
  status: BatchStatus;
  options: string;
  report: string | null;
  ledger: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

export interface JournalRow {
  batch_id: string;
  seq: number;
  kind: string;
  key: string;
  payload: string;
  created_at: string;
}

export function toBatch(row: BatchRow): BatchRecord {
  return {
    id: row.id,
    status: row.status,
    options: JSON.parse(row.options) as unknown,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    report: row.report === null ? null : (JSON.parse(row.report) as unknown),
    ledger: row.ledger === null ? null : (JSON.parse(row.ledger) as unknown),
  };
}

export function toEntry(row: JournalRow): JournalEntry {
  return {
    batchId: row.batch_id,
    seq: row.seq,
    kind: row.kind,
    key: row.key,
    payload: JSON.parse(row.payload) as unknown,
    createdAt: row.created_at,
  };
}

/** The library's stats from every envs row (any status) and the number of kept rejections. */

export function statsOf(
  rows: ReadonlyArray<Pick<EnvRow, 'name' | 'version' | 'status' | 'lineage' | 'meta'>>,
  rejections: number,
): LibraryStats {
  const count = (map: Record<string, number>, key: string) => {
    map[key] = (map[key] ?? 0) + 1;
  };
  const byStatus: Record<string, number> = {};
  const bySkill: Record<string, number> = {};
  const byAuthor: Record<string, number> = {};
  // Skills, authors, kinds and levels count each active environment once (its newest active version);
  // statuses count versions (an environment can have an active and a retired version).
  const newest = new Map<string, Pick<EnvRow, 'version' | 'lineage' | 'meta'>>();
  for (const row of rows) {
    count(byStatus, row.status);
    if (row.status === 'active' && (newest.get(row.name)?.version ?? -1) < row.version) newest.set(row.name, row);
  }
  const byKind: Record<string, number> = countsPerKind(() => 0);
  let min = Infinity;
  let max = -Infinity;
  const activeNames = new Set(newest.keys());
  for (const row of newest.values()) {
    const meta = JSON.parse(row.meta) as Meta;
    for (const skill of meta.skills) count(bySkill, skill);
    count(byAuthor, (JSON.parse(row.lineage) as Lineage).author);
    count(byKind, kindOf(meta).name);
    min = Math.min(min, meta.levels);
    max = Math.max(max, meta.levels);
  }
  return {
    environments: activeNames.size,
    versions: rows.length,
    byStatus,
    bySkill,
    byAuthor,
    byKind,
    levels: Number.isFinite(max) ? { min, max } : null,
    rejections,
  };
}

/** What list() shows of every envs row ordered by name, then version newest first. */
export function listOf(rows: readonly EnvRow[], filter: ListFilter = {}): EnvRecord[] {
  const status = filter.status ?? 'active';
  const newest = new Set<string>();
  const out: EnvRecord[] = [];
  for (const row of rows) {
    if (status !== 'all' && row.status !== status) continue;
    if (!filter.allVersions) {
      if (newest.has(row.name)) continue;
      newest.add(row.name);
    }
    const record = toRecord(row);
    if (filter.skills && !filter.skills.some((s) => record.meta.skills.includes(s))) continue;
    out.push(record);
  }
  return out;
}

export interface RejectionRow {
  hash: string;
  name: string | null;
  codes: string;
  report: string;
  lineage: string;
  created_at: string;
}

export function toRejection(row: RejectionRow): RejectionRecord {
  const report = JSON.parse(row.report) as ValidationReport;
  const first = report.problems[0];
  return {
    hash: row.hash,
    name: row.name,
    codes: JSON.parse(row.codes) as string[],
    firstProblem: first ? { code: first.code, stage: first.stage, message: first.message } : null,
    report,
    lineage: JSON.parse(row.lineage) as Lineage,
    createdAt: row.created_at,
  };
}
