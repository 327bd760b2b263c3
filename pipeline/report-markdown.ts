// The batch report as Markdown for people (the run's report file and terminal): the funnel, the kinds, rejections
// by code and stage, repair, cost and the frontier; every value that is not the report's own (names, codes, messages
// a module or an LLM wrote) passes contract/text.ts's Markdown encoder.
import type { AuthorIdentity } from '../agents/author.js';
import { markdownLine, markdownText as md } from '../contract/text.js';
import type { BatchReport } from './report.js';
import type { FrontierReport } from './steering.js';

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
      ? `Weak skills this author cannot train (left out of the share): ` +
        `${frontier.untrainable.map((w) => `${md(w.skill)} (${pct(w.passRate)})`).join(', ')}.`
      : '',
    frontier.saturated.length
      ? `Saturated skills (not aimed at): ` +
        `${frontier.saturated.map((w) => `${md(w.skill)} (${pct(w.passRate)})`).join(', ')}.`
      : '',
    frontier.setAside
      ? `${frontier.setAside} specs that train no weak skill were set aside once the other admissions were taken.`
      : '',
  ].filter(Boolean);
  const perSkill =
    Object.entries(frontier.admittedPerSkill)
      .map(([skill, n]) => `${md(skill)} ${n}`)
      .join(', ') || '(none)';
  return (
    `Weak share ${pct(frontier.weakShare)}: ${frontier.weakAdmitted} of the ${frontier.weakWanted} admissions ` +
    `wanted for weak skills train one.

| weak skill | pass rate | wanted | admitted |
|---|---|---|---|
${weak}

${others.length ? `${others.join('\n')}\n\n` : ''}Admitted per skill: ${perSkill}.`
  );
}

/** Markdown lists show at most this many rejected validations; the JSON report has them all. */
const MAX_LISTED_REJECTIONS = 100;

function rejectionList(report: BatchReport): string {
  if (report.rejections.length === 0) return '(none)';
  const lines = report.rejections.slice(0, MAX_LISTED_REJECTIONS).map((r) => {
    const codes = r.codes.map((c) => markdownLine(c, 80)).join(', ');
    const first = r.firstProblem
      ? `${markdownLine(r.firstProblem.code, 80)} [${markdownLine(r.firstProblem.stage, 80)}] ` +
        `${markdownLine(r.firstProblem.message)}`
      : codes || '(no problem recorded)';
    return (
      `- ${markdownLine(r.spec, 120)}, attempt ${r.attempt}: ${first}` +
      `${r.codes.length > 1 ? ` (${r.codes.length} codes: ${codes})` : ''}`
    );
  });
  if (report.rejections.length > MAX_LISTED_REJECTIONS)
    lines.push(`- … and ${report.rejections.length - MAX_LISTED_REJECTIONS} more (the JSON report lists them all)`);
  return `${lines.join('\n')}\n\nEvery kept report: \`envforge library rejections --batch ${report.batchId}\`.`;
}

/** What the provider's prompt cache did with the input tokens. */
function promptCache(cost: BatchReport['cost']): string {
  const share = cost.inputTokens > 0 ? ` (${((100 * cost.cachedInputTokens) / cost.inputTokens).toFixed(0)}%)` : '';
  return (
    `${cost.cachedInputTokens} read from the provider's prompt cache${share}` +
    `${cost.cacheWriteTokens > 0 ? `, ${cost.cacheWriteTokens} written to it` : ''}`
  );
}

/** Calls, tokens and dollars per agent (architect, generator, repair, reviewer, solver). */
function purposeTable(byPurpose: BatchReport['cost']['byPurpose']): string {
  const rows = Object.entries(byPurpose).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (rows.length === 0) return '';
  const lines = rows.map(
    ([purpose, t]) =>
      `| ${md(purpose)} | ${t.calls} | ${t.inputTokens} | ${t.cachedInputTokens ?? 0} | ${t.outputTokens} | $` +
      `${t.costUsd.toFixed(4)} |`,
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
  const admitted =
    report.admitted
      .map((a) => `- ${md(a.name)}@${a.version} (${a.attempts} attempt${a.attempts === 1 ? '' : 's'})`)
      .join('\n') || '(none)';
  return (
    `# envforge batch ${report.batchId}

Stopped: **${markdownLine(report.stopReason, 200)}** after ${(report.wallMs / 1000).toFixed(1)} s.` +
    `${report.author ? `\n\nAuthor: ${authorLine(report.author)}.` : ''}

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

${report.repair.candidatesRepaired} candidates needed repair; ${report.repair.admittedAfterRepair} were admitted ` +
    `after it` +
    `${report.repair.successRate === null ? '' : ` (${(100 * report.repair.successRate).toFixed(0)}%)`}.

## Cost

${usd(report.cost.totalUsd)} in ${report.cost.calls} calls (${report.cost.cachedCalls} from the cache), ` +
    `${report.cost.inputTokens} input tokens (${promptCache(report.cost)}) and ${report.cost.outputTokens} ` +
    `output tokens; per admitted environment ${usd(report.cost.perAdmittedUsd)} and ` +
    `${report.cost.tokensPerAdmitted === null ? '-' : Math.round(report.cost.tokensPerAdmitted)} tokens.

${purposeTable(report.cost.byPurpose)}

## Admitted

${admitted}
`
  );
}
