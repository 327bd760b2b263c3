// What each dashboard page shows, as JSON: an environment (versions, lineage, report, curve, trainer pass
// rates per level), the batches and one batch (funnel, rejections by code with meanings, repair, cost), a
// kept rejection, the trainer's frontier, and the code registry. pages.ts renders it; the API serves it.
import { CODES, isCode } from '../contract/codes.js';
import { ALL_KINDS, kindOf } from '../kinds/registry.js';
import {
  trustedTallies,
  type BatchRecord,
  type EnvRecord,
  type Library,
  type RejectionRecord,
  type ScoreTally,
} from '../library/contract.js';
import { envSkillsOf } from '../pipeline/feedback/frontier.js';
import { feedbackFromScores, frontierOf, type TrainerFeedback } from '../pipeline/feedback/source.js';
import { readFeedbackFile } from '../pipeline/feedback/parse.js';
import type { BatchReport } from '../pipeline/report.js';
import { LibraryView } from './view.js';

/** The library as the dashboard holds it between reloads. */
export interface Snapshot {
  records: EnvRecord[];
  view: LibraryView;
  versions: Map<string, EnvRecord[]>;
  /** The trusted tallies (the operator's: serve/scores.ts); a client's scores are no pass rate to show. */
  tallies: ScoreTally[];
}

export async function loadSnapshot(library: Library): Promise<Snapshot> {
  const [records, tallies] = await Promise.all([
    library.list({ status: 'all', allVersions: true }),
    library.scoreTallies().then(trustedTallies),
  ]);
  const versions = new Map<string, EnvRecord[]>();
  for (const r of records) versions.set(r.name, [...(versions.get(r.name) ?? []), r]);
  for (const list of versions.values()) list.sort((a, b) => a.version - b.version);
  return { records, view: new LibraryView(records, tallies), versions, tallies };
}

/** The same environments with newer trainer scores (cheap: the scores change every few seconds, the library seldom). */
export function withTallies(snap: Snapshot, all: ScoreTally[]): Snapshot {
  const tallies = trustedTallies(all);
  const sign = (ts: ScoreTally[]) =>
    ts
      .map((t) => t.updatedAt)
      .sort()
      .at(-1) ?? '';
  if (tallies.length === snap.tallies.length && sign(tallies) === sign(snap.tallies)) return snap;
  return { ...snap, view: new LibraryView(snap.records, tallies), tallies };
}

export interface LevelRates {
  level: number;
  trainer: number | null;
  trainerScores: number;
  solver: number | null;
}

export interface EnvDetail {
  env: EnvRecord;
  versions: Array<{ version: number; status: string; createdAt: string; hash: string }>;
  kind: string;
  /** The kind's episodes are rollouts (the page shows reference rollouts, not sample instances). */
  rollouts: boolean;
  rates: LevelRates[];
}

/** The kind the dashboard shows: its plug's label ('single-turn', 'episodic', 'code'). */
const kindLabel = (meta: unknown) => kindOf(meta).label;

/** The environment's given version (default its newest), or undefined when unknown. */
export function envDetail(snap: Snapshot, name: string, version?: number): EnvDetail | undefined {
  const list = snap.versions.get(name);
  const env = version === undefined ? list?.[list.length - 1] : list?.find((r) => r.version === version);
  if (!list || !env) return undefined;
  const calibration =
    (env.lineage.notes as { calibration?: { curve?: Array<{ level: number; passRate: number }> } } | undefined)
      ?.calibration?.curve ?? [];
  const rates = Array.from({ length: env.meta.levels }, (_, i): LevelRates => {
    const t = snap.tallies.find((x) => x.name === name && x.version === env.version && x.level === i + 1);
    const solver = calibration.find((c) => c.level === i + 1);
    return {
      level: i + 1,
      trainer: t && t.n > 0 ? t.passed / t.n : null,
      trainerScores: Math.round(t?.n ?? 0),
      solver: solver ? solver.passRate : null,
    };
  });
  return {
    env,
    versions: list.map((r) => ({ version: r.version, status: r.status, createdAt: r.createdAt, hash: r.hash })),
    kind: kindLabel(env.meta),
    rollouts: kindOf(env.meta).rollouts,
    rates,
  };
}

export interface BatchSummary {
  id: string;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  admitted: number | null;
  rejected: number | null;
  validations: number | null;
  costUsd: number | null;
  perAdmittedUsd: number | null;
  stopReason: string | null;
}

const reportOf = (b: BatchRecord) =>
  b.report && typeof b.report === 'object' && 'funnel' in b.report ? (b.report as BatchReport) : null;

export function batchSummary(b: BatchRecord): BatchSummary {
  const r = reportOf(b);
  const ledger = b.ledger as { totalUsd?: number } | null;
  return {
    id: b.id,
    status: b.status,
    createdAt: b.createdAt,
    finishedAt: b.finishedAt,
    admitted: r?.funnel.admitted ?? null,
    rejected: r?.funnel.rejected ?? null,
    validations: r?.funnel.validations ?? null,
    costUsd: r?.cost.totalUsd ?? ledger?.totalUsd ?? null,
    perAdmittedUsd: r?.cost.perAdmittedUsd ?? null,
    stopReason: r?.stopReason ?? null,
  };
}

export interface BatchDetail {
  batch: BatchSummary;
  report: BatchReport | null;
  /** Rejections by code, most frequent first, each with its meaning from the code registry. */
  codes: Array<{ code: string; count: number; meaning: string }>;
  /** The kept reports of the batch's rejected candidates (newest first), each linkable by hash. */
  rejected: Array<{
    hash: string;
    name: string | null;
    codes: string[];
    firstProblem: RejectionRecord['firstProblem'];
    createdAt: string;
  }>;
}

export const meaningOf = (code: string): string => (isCode(code) ? CODES[code] : 'not in the code registry');

export async function batchDetail(library: Library, id: string): Promise<BatchDetail | undefined> {
  const batch = await library.getBatch(id);
  if (!batch) return undefined;
  const report = reportOf(batch);
  const codes = Object.entries(report?.rejectionsByCode ?? {})
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([code, count]) => ({ code, count, meaning: meaningOf(code) }));
  const kept = await library.rejections({ batchId: id, limit: 1_000 });
  const rejected = kept.map((r) => ({
    hash: r.hash,
    name: r.name,
    codes: r.codes,
    firstProblem: r.firstProblem,
    createdAt: r.createdAt,
  }));
  return { batch: batchSummary(batch), report, codes, rejected };
}

export async function rejectionDetail(library: Library, hash: string): Promise<RejectionRecord | undefined> {
  // Kept rejections are bounded (10,000 by default), so a scan is bounded too.
  return (await library.rejections({ limit: 100_000 })).find((r) => r.hash === hash);
}

/** The learner's recorded pass rate over one kind's environments, with how many scores it rests on. */
export interface KindRates {
  kind: string;
  environments: number;
  /** Environments with at least one recorded score. */
  scored: number;
  scores: number;
  passRate: number | null;
}

/**
 * Pass rates per kind, every registered kind in registry order, from the reward service's records (verdicts and
 * finished episodes).
 */
export function kindRates(snap: Snapshot): KindRates[] {
  const kindOfName = (name: string) => kindLabel(snap.versions.get(name)?.at(-1)?.meta ?? {});
  return ALL_KINDS.map(({ label: kind }) => {
    const names = [...snap.versions.keys()].filter((n) => kindOfName(n) === kind);
    const tallies = snap.tallies.filter((t) => kindOfName(t.name) === kind && snap.versions.has(t.name));
    const scores = tallies.reduce((a, t) => a + t.n, 0);
    const passed = tallies.reduce((a, t) => a + t.passed, 0);
    return {
      kind,
      environments: names.length,
      scored: new Set(tallies.filter((t) => t.n > 0).map((t) => t.name)).size,
      scores,
      passRate: scores > 0 ? passed / scores : null,
    };
  });
}

export interface FrontierDetail {
  /** What the trainer's pass rates come from: the dashboard's --feedback file, else the reward service's records. */
  feedback: TrainerFeedback;
  /** The recorded pass rates per kind, with their sample sizes. */
  byKind: KindRates[];
  /** The newest batch that steered by feedback: what it wanted and admitted per weak skill. */
  lastSteered: { id: string; frontier: NonNullable<BatchReport['frontier']> } | null;
}

export async function frontierDetail(library: Library, snap: Snapshot, feedbackFile?: string): Promise<FrontierDetail> {
  const envSkills = envSkillsOf([...snap.versions.values()].flat());
  const rows = feedbackFile ? await readFeedbackFile(feedbackFile) : feedbackFromScores(snap.tallies);
  const feedback: TrainerFeedback =
    rows.length > 0
      ? frontierOf(rows, envSkills, feedbackFile ? 'file' : 'scores')
      : { source: 'none', weak: [], saturated: [], summary: null, frontier: null, scores: 0 };
  let lastSteered: FrontierDetail['lastSteered'] = null;
  for (const b of await library.listBatches(50)) {
    const frontier = reportOf(b)?.frontier;
    if (frontier) {
      lastSteered = { id: b.id, frontier };
      break;
    }
  }
  return { feedback, byKind: kindRates(snap), lastSteered };
}

export const codeRegistry = (): Array<{ code: string; meaning: string }> =>
  Object.entries(CODES).map(([code, meaning]) => ({ code, meaning }));
