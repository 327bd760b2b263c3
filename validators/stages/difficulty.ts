// Stage 7, difficulty: per level, instance size, reference work and cheap-baseline scores; levels must
// change the task, grow monotonically within tolerance, and the top level must differ from level 1.
import { answerContent, mostCommon, normalizeAnswer } from '../answers.js';
import { mean, type Stage, type StageContext } from '../context.js';
import type { LevelStats, Problem } from '../report.js';

export function levelCurve(ctx: StageContext): LevelStats[] {
  const levels = [...new Set(ctx.episodes.map((e) => e.level))].sort((a, b) => a - b);
  return levels.map((level) => {
    const at = ctx.episodes.filter((e) => e.level === level);
    const answers = at.map((e) => normalizeAnswer(answerContent(e.reference)));
    const top = mostCommon(answers);
    const baseline = ctx.baselines.get(level);
    return {
      level,
      samples: at.length,
      promptChars: mean(at.map((e) => e.instance.prompt.length)),
      instanceChars: mean(at.map((e) => JSON.stringify(e.instance).length)),
      referenceChars: mean(at.map((e) => e.reference.length)),
      generateMs: mean(at.map((e) => e.ms[0])),
      solveMs: mean(at.map((e) => e.ms[1])),
      distinctPrompts: new Set(at.map((e) => e.instance.prompt)).size,
      distinctAnswers: top.distinct,
      topAnswerShare: top.share,
      baselineCommon: baseline?.common ?? Number.NaN,
      baselineOther: baseline?.other ?? Number.NaN,
    };
  });
}

const SIZE_MEASURES = ['instanceChars', 'promptChars', 'referenceChars'] as const;

export const difficultyStage: Stage = async (ctx) => {
  const curve = levelCurve(ctx);
  const problems: Problem[] = [];
  const first = curve[0];
  const last = curve[curve.length - 1];
  if (!first || !last || curve.length < 2) return { ok: true, metrics: { curve }, problems };
  const growth: Record<string, number> = {};
  for (const m of SIZE_MEASURES) growth[m] = last[m] / Math.max(1e-9, first[m]);
  // Solver work only counts when it is measurable at millisecond resolution.
  growth.solveMs = last.solveMs >= 1 ? last.solveMs / Math.max(0.05, first.solveMs) : 1;
  const best = Object.entries(growth).reduce((a, b) => (b[1] > a[1] ? b : a));
  const unchanged = Object.values(growth).every((g) => g > 0.93 && g < 1.07);
  if (unchanged) {
    problems.push({
      code: 'E_LEVEL_IGNORED',
      message: `level ${last.level} instances look like level ${first.level} ones (size ratios ${Object.entries(growth).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(', ')}): generate must use its level argument`,
      evidence: growth,
    });
  } else if (best[1] < ctx.options.minTopLevelGrowth) {
    problems.push({
      code: 'E_FLAT_DIFFICULTY',
      message: `the top level is at most ${best[1].toFixed(2)}× level 1 on every measure (best: ${best[0]}); it must be at least ${ctx.options.minTopLevelGrowth}× bigger or harder`,
      evidence: growth,
    });
  } else {
    // Monotone on the measure that carries the difficulty, within tolerance.
    const measure = best[0] as (typeof SIZE_MEASURES)[number] | 'solveMs';
    const dips = curve.slice(1).filter((l, i) => l[measure] < (curve[i] as LevelStats)[measure] * (1 - ctx.options.monotoneTolerance));
    if (dips.length > 0) {
      problems.push({
        code: 'E_NON_MONOTONIC',
        message: `${measure} shrinks from one level to the next at levels ${dips.map((l) => l.level).join(', ')} (tolerance ${(100 * ctx.options.monotoneTolerance).toFixed(0)}%)`,
        evidence: curve.map((l) => ({ level: l.level, [measure]: Number(l[measure].toFixed(1)) })),
      });
    }
    const easier = ['baselineCommon', 'baselineOther'] as const;
    for (const b of easier) {
      if (Number.isFinite(first[b]) && Number.isFinite(last[b]) && last[b] > first[b] + 0.2 && last[b] > 0.3) {
        problems.push({ code: 'E_NON_MONOTONIC', message: `the ${b} baseline scores ${last[b].toFixed(2)} at the top level but ${first[b].toFixed(2)} at level 1: higher levels are easier to guess`, evidence: { first: first[b], last: last[b] } });
      }
    }
  }
  return { ok: problems.length === 0, metrics: { growth, curve }, problems };
};
