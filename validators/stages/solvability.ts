// Stage 4, solvability: the reference response (solve) scores exactly 1 on every sampled instance.
import type { Problem } from '../report.js';
import { clip, type Stage } from '../context.js';

export const solvabilityStage: Stage = async (ctx) => {
  const unsolved = ctx.episodes.filter((e) => !(e.referenceVerdict.ok && e.referenceVerdict.score === 1));
  const problems: Problem[] = [];
  if (unsolved.length > 0) {
    const levels = [...new Set(unsolved.map((e) => e.level))].sort((a, b) => a - b);
    problems.push({
      code: 'E_UNSOLVED',
      message:
        `verify gives the reference a score below 1 on ${unsolved.length} of ${ctx.episodes.length} instances ` +
        `(levels ${levels.join(', ')}); solve and verify disagree`,
      evidence: unsolved.slice(0, 3).map((e) => ({
        seed: e.seed,
        level: e.level,
        reference: clip(e.reference),
        score: e.referenceVerdict.ok ? e.referenceVerdict.score : null,
        feedback: e.referenceVerdict.ok ? e.referenceVerdict.feedback : undefined,
      })),
    });
  }
  return {
    ok: problems.length === 0,
    metrics: {
      solvedShare: ctx.episodes.length ? 1 - unsolved.length / ctx.episodes.length : 0,
      unsolvedLevels: [...new Set(unsolved.map((e) => e.level))],
    },
    problems,
  };
};
