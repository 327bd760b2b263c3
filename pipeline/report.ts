// The batch report, built from the journal: the funnel (specs → modules → stages → admitted), rejection
// reasons by code, repair success, tokens and dollars per admitted environment, wall time, and who
// authored the modules, as JSON (pipeline/report-markdown.ts renders it for people).
import type { AuthorIdentity } from '../agents/author.js';
import type { LedgerSnapshot } from '../agents/llm/cost.js';
import { specKind, type EnvSpec } from '../agents/spec.js';
import { KIND_NAMES, type KindName } from '../kinds/registry.js';
import type { FrontierReport } from './steering.js';

export interface CandidateOutcome {
  spec: string;
  /**
   * existing: the module was identical to one the library already holds (admission was a no-op); extra: it
   * validated after --target was reached (it was in flight), so it was not admitted (pipeline/target-gate.ts).
   */
  status: 'admitted' | 'existing' | 'extra' | 'rejected' | 'unwritten';
  attempts: number;
  name?: string;
  version?: number;
}

/** A rejected validation's first problem: what the Markdown report and `library rejections` show first. */
export interface FirstProblem {
  code: string;
  stage: string;
  message: string;
}

/** One rejected validation of a candidate (attempt 1 is the generator's module, later ones repairs). */
export interface RejectedValidation {
  spec: string;
  attempt: number;
  codes: string[];
  firstProblem: FirstProblem | null;
}

export interface BatchReport {
  batchId: string;
  stopReason: string;
  /** The author, when the caller named it (the offline author's seed reproduces the run). */
  author?: AuthorIdentity;
  funnel: {
    specs: number;
    specsDropped: number;
    candidates: number;
    modulesAsked: number;
    modulesWritten: number;
    validations: number;
    admitted: number;
    existing: number;
    /** Validated as admissible after the target was reached: not admitted, their modules stay in the journal. */
    extra: number;
    rejected: number;
    unwritten: number;
    serviceFailures: number;
  };
  /** The funnel by environment kind (the spec's kind: single-turn or episodic). */
  byKind: Record<KindName, KindCounts>;
  /** For each validation, the first stage that failed. */
  firstFailedStage: Record<string, number>;
  rejectionsByCode: Record<string, number>;
  /** Every rejected validation, by candidate then attempt, with its first problem. */
  rejections: RejectedValidation[];
  repair: { candidatesRepaired: number; admittedAfterRepair: number; successRate: number | null };
  /**
   * inputTokens counts every input token; cachedInputTokens and cacheWriteTokens are the parts the provider's prompt
   * cache read and wrote.
   */
  cost: {
    totalUsd: number;
    inputTokens: number;
    cachedInputTokens: number;
    cacheWriteTokens: number;
    outputTokens: number;
    calls: number;
    cachedCalls: number;
    perAdmittedUsd: number | null;
    tokensPerAdmitted: number | null;
    byPurpose: LedgerSnapshot['byPurpose'];
  };
  admitted: Array<{ name: string; version: number; attempts: number }>;
  serviceFailures: Array<{ spec: string; code: string; message: string }>;
  /** The trainer feedback the batch steered by (only with --feedback). */
  frontier?: FrontierReport;
  wallMs: number;
}

export interface KindCounts {
  specs: number;
  candidates: number;
  admitted: number;
  rejected: number;
}

interface ReportInput {
  batchId: string;
  stopReason: string;
  specs: EnvSpec[];
  dropped: number;
  modules: Map<string, { source: string | null; purpose: 'generator' | 'repair' }>;
  verdicts: Map<
    string,
    { verdict: string; codes: string[]; firstFailedStage: string | null; firstProblem?: FirstProblem | null }
  >;
  outcomes: CandidateOutcome[];
  failures: Array<{ spec: string; code: string; message: string }>;
  ledger: LedgerSnapshot;
  wallMs: number;
  author?: AuthorIdentity;
  frontier?: FrontierReport;
}

const bump = (map: Record<string, number>, key: string) => {
  map[key] = (map[key] ?? 0) + 1;
};

/** Specs, candidates, admissions and rejections per kind, keyed by the specs' kinds. */
function countByKind(input: ReportInput): Record<KindName, KindCounts> {
  const kindOf = new Map(input.specs.map((s) => [s.name, specKind(s)]));
  const out = Object.fromEntries(
    KIND_NAMES.map((k) => [k, { specs: 0, candidates: 0, admitted: 0, rejected: 0 }]),
  ) as Record<KindName, KindCounts>;
  for (const spec of input.specs) out[specKind(spec)].specs++;
  for (const name of new Set([...input.modules.keys()].map((k) => k.slice(0, k.lastIndexOf('/')))))
    out[kindOf.get(name) ?? 'single'].candidates++;
  for (const o of input.outcomes) {
    if (o.status === 'admitted') out[kindOf.get(o.spec) ?? 'single'].admitted++;
    if (o.status === 'rejected') out[kindOf.get(o.spec) ?? 'single'].rejected++;
  }
  return out;
}

export function buildReport(input: ReportInput): BatchReport {
  const firstFailedStage: Record<string, number> = {};
  const rejectionsByCode: Record<string, number> = {};
  const rejections: RejectedValidation[] = [];
  for (const [key, v] of input.verdicts) {
    if (v.verdict === 'admit') continue;
    bump(firstFailedStage, v.firstFailedStage ?? 'unknown');
    for (const code of v.codes) bump(rejectionsByCode, code);
    const slash = key.lastIndexOf('/');
    rejections.push({
      spec: key.slice(0, slash),
      attempt: Number(key.slice(slash + 1)) + 1,
      codes: v.codes,
      firstProblem: v.firstProblem ?? null,
    });
  }
  rejections.sort((a, b) => (a.spec < b.spec ? -1 : a.spec > b.spec ? 1 : a.attempt - b.attempt));
  const admitted = input.outcomes.filter((o) => o.status === 'admitted');
  // A candidate needed repair when the repair agent was asked for one of its modules.
  const repaired = new Set(
    [...input.modules].filter(([, m]) => m.purpose === 'repair').map(([key]) => key.slice(0, key.lastIndexOf('/'))),
  );
  const admittedAfterRepair = admitted.filter((o) => repaired.has(o.spec)).length;
  const { total } = input.ledger;
  const tokens = total.inputTokens + total.outputTokens;
  return {
    batchId: input.batchId,
    stopReason: input.stopReason,
    ...(input.author ? { author: { ...input.author } } : {}),
    funnel: {
      specs: input.specs.length,
      specsDropped: input.dropped,
      candidates: new Set([...input.modules.keys()].map((k) => k.slice(0, k.lastIndexOf('/')))).size,
      modulesAsked: input.modules.size,
      modulesWritten: [...input.modules.values()].filter((m) => m.source !== null).length,
      validations: input.verdicts.size,
      admitted: admitted.length,
      existing: input.outcomes.filter((o) => o.status === 'existing').length,
      extra: input.outcomes.filter((o) => o.status === 'extra').length,
      rejected: input.outcomes.filter((o) => o.status === 'rejected').length,
      unwritten: input.outcomes.filter((o) => o.status === 'unwritten').length,
      serviceFailures: input.failures.length,
    },
    byKind: countByKind(input),
    firstFailedStage,
    rejectionsByCode,
    rejections,
    repair: {
      candidatesRepaired: repaired.size,
      admittedAfterRepair,
      successRate: repaired.size ? admittedAfterRepair / repaired.size : null,
    },
    cost: {
      totalUsd: total.costUsd,
      inputTokens: total.inputTokens,
      cachedInputTokens: total.cachedInputTokens ?? 0,
      cacheWriteTokens: total.cacheWriteTokens ?? 0,
      outputTokens: total.outputTokens,
      calls: total.calls,
      cachedCalls: total.cachedCalls,
      perAdmittedUsd: admitted.length ? total.costUsd / admitted.length : null,
      tokensPerAdmitted: admitted.length ? tokens / admitted.length : null,
      byPurpose: input.ledger.byPurpose,
    },
    admitted: admitted.map((o) => ({ name: o.name as string, version: o.version as number, attempts: o.attempts })),
    serviceFailures: input.failures,
    ...(input.frontier ? { frontier: input.frontier } : {}),
    wallMs: Math.round(input.wallMs),
  };
}
