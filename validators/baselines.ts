// The difficulty curve's baselines per level (a single-turn step of the plan, with no report of its own): the
// mean score of the fitted constant answer (the guessing check) and of another instance's answer (the
// other-answer check), read from the hack stage's report once it has run.
import type { StageContext } from './context.js';
import type { StageName, StageReport } from './report.js';

interface CheckMetrics {
  guessing?: { constantByLevel?: Record<number, number> };
  'other-answer'?: { meanByLevel?: Record<number, number> };
}

/**
 * Fills ctx.baselines for every sampled level from the hack report's check metrics; nothing when the hack stage did not
 * run.
 */
export function deriveBaselines(ctx: StageContext, reports: ReadonlyMap<StageName, StageReport>): void {
  const checks = reports.get('hack')?.metrics.checks as CheckMetrics | undefined;
  if (!checks) return;
  const constant = checks.guessing?.constantByLevel ?? {};
  const other = checks['other-answer']?.meanByLevel ?? {};
  const levels = [...new Set(ctx.episodes.map((e) => e.level))].sort((a, b) => a - b);
  for (const level of levels) ctx.baselines.set(level, { common: constant[level] ?? 0, other: other[level] ?? 0 });
}
