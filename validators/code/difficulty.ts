// Difficulty for the code kind: what makes a program's task harder is in its hidden tests (longer inputs,
// larger values), not in the prompt, which states the same function at every level. The mean size of a
// test's arguments must grow from level 1 to the top by a factor and rise with the level by rank.
import { canonicalJson } from '../../contract/compare.js';
import type { CodeInstance } from '../../kinds/code.js';
import { mean, type Stage } from '../context.js';
import type { Problem } from '../report.js';
import { spearman } from '../stats.js';

export const codeDifficulty: Stage = async (ctx) => {
  const o = ctx.options;
  const byLevel = [...Map.groupBy(ctx.episodes, (e) => e.level)].sort((a, b) => a[0] - b[0]);
  const perLevel = byLevel.map(([level, at]) => ({
    level,
    testChars: mean(at.map((e) => mean((e.instance as CodeInstance).tests.map((t) => canonicalJson(t.input).length)))),
  }));
  const first = perLevel[0];
  const last = perLevel[perLevel.length - 1];
  const problems: Problem[] = [];
  if (!first || !last || perLevel.length < 2) return { ok: true, metrics: { perLevel }, problems };
  const growth = last.testChars / Math.max(1, first.testChars);
  const trend = spearman(
    perLevel.map((l) => l.level),
    perLevel.map((l) => l.testChars),
  );
  const evidence = {
    growth: Number(growth.toFixed(2)),
    trend: Number(trend.toFixed(2)),
    perLevel: perLevel.map((l) => ({ level: l.level, testChars: Number(l.testChars.toFixed(1)) })),
  };
  if (growth < o.minTopLevelGrowth)
    problems.push({
      code: 'E_FLAT_DIFFICULTY',
      message:
        `the hidden tests' arguments are ${growth.toFixed(2)}× as long at the top level as at level 1 (at ` +
        `least ${o.minTopLevelGrowth}× needed): harder levels must test bigger inputs`,
      evidence,
    });
  else if (trend < o.minTrend)
    problems.push({
      code: 'E_NON_MONOTONIC',
      message:
        `the hidden tests' argument size grows from level 1 to the top but does not rise with the level (rank ` +
        `correlation ${trend.toFixed(2)}, at least ${o.minTrend})`,
      evidence,
    });
  return { ok: problems.length === 0, metrics: evidence, problems };
};
