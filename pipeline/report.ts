// The batch report, built from the journal: the funnel (specs → modules → stages → admitted), rejection
// reasons by code, repair success, tokens and dollars per admitted environment, wall time, and who
// authored the modules; as JSON and as Markdown for people, in which every value that is not the report's own
// (names, codes, messages a module or an LLM wrote) passes contract/text.ts's Markdown encoder.
import type { AuthorIdentity } from '../agents/author.js';
import type { LedgerSnapshot } from '../agents/llm/cost.js';
import { markdownLine, markdownText as md } from '../contract/text.js';
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
  /** inputTokens counts every input token; cachedInputTokens and cacheWriteTokens are the parts the provider's prompt cache read and wrote. */
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

function authorLine(author: AuthorIdentity): string {
  const details = [
    author.version !== undefined ? `v${author.version}` : '',
    author.seed !== undefined ? `seed ${author.seed}` : '',
  ].filter(Boolean);
  return `${author.provider}${details.length ? ` (${details.join(', ')})` : ''}`;
}

const pct = (rate: number) => `${(100 * rate).toFixed(0)}%`;

/** The frontier the batch steered by, and what it admitted for it. */
export function frontierMarkdown(frontier: FrontierReport): string {
  const weak =
    frontier.weak.map((w) => `| ${md(w.skill)} | ${pct(w.passRate)} | ${w.wanted} | ${w.admitted} |`).join('\n') ||
    '| (none the author can train) | | | |';
  const others = [
    frontier.untrainable.length
      ? `Weak skills this author cannot train (left out of the share): ${frontier.untrainable.map((w) => `${md(w.skill)} (${pct(w.passRate)})`).join(', ')}.`
      : '',
    frontier.saturated.length
      ? `Saturated skills (not aimed at): ${frontier.saturated.map((w) => `${md(w.skill)} (${pct(w.passRate)})`).join(', ')}.`
      : '',
    frontier.setAside
      ? `${frontier.setAside} specs that train no weak skill were set aside once the other admissions were taken.`
      : '',
  ].filter(Boolean);
  const perSkill =
    Object.entries(frontier.admittedPerSkill)
      .map(([skill, n]) => `${md(skill)} ${n}`)
      .join(', ') || '(none)';
  return `Weak share ${pct(frontier.weakShare)}: ${frontier.weakAdmitted} of the ${frontier.weakWanted} admissions wanted for weak skills train one.

| weak skill | pass rate | wanted | admitted |
|---|---|---|---|
${weak}

${others.length ? `${others.join('\n')}\n\n` : ''}Admitted per skill: ${perSkill}.`;
}

/** Markdown lists show at most this many rejected validations; the JSON report has them all. */
const MAX_LISTED_REJECTIONS = 100;

function rejectionList(report: BatchReport): string {
  if (report.rejections.length === 0) return '(none)';
  const lines = report.rejections.slice(0, MAX_LISTED_REJECTIONS).map((r) => {
    const codes = r.codes.map((c) => markdownLine(c, 80)).join(', ');
    const first = r.firstProblem
      ? `${markdownLine(r.firstProblem.code, 80)} [${markdownLine(r.firstProblem.stage, 80)}] ${markdownLine(r.firstProblem.message)}`
      : codes || '(no problem recorded)';
    return `- ${markdownLine(r.spec, 120)}, attempt ${r.attempt}: ${first}${r.codes.length > 1 ? ` (${r.codes.length} codes: ${codes})` : ''}`;
  });
  if (report.rejections.length > MAX_LISTED_REJECTIONS)
    lines.push(`- … and ${report.rejections.length - MAX_LISTED_REJECTIONS} more (the JSON report lists them all)`);
  return `${lines.join('\n')}\n\nEvery kept report: \`envforge library rejections --batch ${report.batchId}\`.`;
}

/** What the provider's prompt cache did with the input tokens. */
function promptCache(cost: BatchReport['cost']): string {
  const share = cost.inputTokens > 0 ? ` (${((100 * cost.cachedInputTokens) / cost.inputTokens).toFixed(0)}%)` : '';
  return `${cost.cachedInputTokens} read from the provider's prompt cache${share}${cost.cacheWriteTokens > 0 ? `, ${cost.cacheWriteTokens} written to it` : ''}`;
}

/** Calls, tokens and dollars per agent (architect, generator, repair, reviewer, solver). */
function purposeTable(byPurpose: BatchReport['cost']['byPurpose']): string {
  const rows = Object.entries(byPurpose).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (rows.length === 0) return '';
  const lines = rows.map(
    ([purpose, t]) =>
      `| ${md(purpose)} | ${t.calls} | ${t.inputTokens} | ${t.cachedInputTokens ?? 0} | ${t.outputTokens} | $${t.costUsd.toFixed(4)} |`,
  );
  return [
    '| agent | calls | input tokens | of them cached | output tokens | cost |',
    '| --- | --- | --- | --- | --- | --- |',
    ...lines,
  ].join('\n');
}

export function reportMarkdown(report: BatchReport): string {
  const f = report.funnel;
  const rows = (map: Record<string, number>) =>
    Object.entries(map)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `| ${markdownLine(k, 120)} | ${v} |`)
      .join('\n') || '| (none) | |';
  const usd = (n: number | null) => (n === null ? '-' : `$${n.toFixed(4)}`);
  return `# envforge batch ${report.batchId}

Stopped: **${markdownLine(report.stopReason, 200)}** after ${(report.wallMs / 1000).toFixed(1)} s.${report.author ? `\n\nAuthor: ${authorLine(report.author)}.` : ''}

${report.frontier ? `## Trainer feedback: the frontier\n\n${frontierMarkdown(report.frontier)}\n\n` : ''}## Funnel

| step | count |
|---|---|
| specs kept (dropped as duplicates) | ${f.specs} (${f.specsDropped}) |
| candidates | ${f.candidates} |
| modules asked / written | ${f.modulesAsked} / ${f.modulesWritten} |
| validations | ${f.validations} |
| admitted | ${f.admitted} |
| identical to an environment already held | ${f.existing} |
| extra: admissible after the target was reached, not admitted | ${f.extra ?? 0} |
| rejected after repairs | ${f.rejected} |
| no module written | ${f.unwritten} |
| LLM service failures | ${f.serviceFailures} |

## By kind

| kind | specs | candidates | admitted | rejected |
|---|---|---|---|---|
${Object.entries(report.byKind ?? {})
  .map(([kind, c]) => `| ${md(kind)} | ${c.specs} | ${c.candidates} | ${c.admitted} | ${c.rejected} |`)
  .join('\n')}

## First failing stage of rejected validations

| stage | count |
|---|---|
${rows(report.firstFailedStage)}

## Rejections by code

| code | count |
|---|---|
${rows(report.rejectionsByCode)}

## Rejected candidates

${rejectionList(report)}

## Repair

${report.repair.candidatesRepaired} candidates needed repair; ${report.repair.admittedAfterRepair} were admitted after it${report.repair.successRate === null ? '' : ` (${(100 * report.repair.successRate).toFixed(0)}%)`}.

## Cost

${usd(report.cost.totalUsd)} in ${report.cost.calls} calls (${report.cost.cachedCalls} from the cache), ${report.cost.inputTokens} input tokens (${promptCache(report.cost)}) and ${report.cost.outputTokens} output tokens; per admitted environment ${usd(report.cost.perAdmittedUsd)} and ${report.cost.tokensPerAdmitted === null ? '-' : Math.round(report.cost.tokensPerAdmitted)} tokens.

${purposeTable(report.cost.byPurpose)}

## Admitted

${report.admitted.map((a) => `- ${md(a.name)}@${a.version} (${a.attempts} attempt${a.attempts === 1 ? '' : 's'})`).join('\n') || '(none)'}
`;
}
