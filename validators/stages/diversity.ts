// Stage 6, diversity: different seeds give different prompts, and no single answer dominates a level
// (a policy could learn to always say it). Dominance is judged on a lower confidence bound of the share,
// so a level's sampling noise does not reject an honest environment (the hack stage's guessing judgement
// also scores the best constant answer per level).
import { answerContent, entropyBits, mostCommon, normalizeAnswer } from '../answers.js';
import type { Problem } from '../report.js';
import type { Stage } from '../context.js';
import { lowerBound } from '../stats.js';

export const diversityStage: Stage = async (ctx) => {
  const problems: Problem[] = [];
  const levels = [...new Set(ctx.episodes.map((e) => e.level))].sort((a, b) => a - b);
  const perLevel = levels.map((level) => {
    const at = ctx.episodes.filter((e) => e.level === level);
    const answers = at.map((e) => normalizeAnswer(answerContent(e.reference)));
    const top = mostCommon(answers);
    return {
      level,
      samples: at.length,
      distinctPromptShare: new Set(at.map((e) => e.instance.prompt)).size / Math.max(1, at.length),
      topAnswer: top.value ?? '',
      topAnswerShare: top.share,
      answerEntropyBits: Number(entropyBits(answers).toFixed(2)),
    };
  });
  const distinctOverall = new Set(ctx.episodes.map((e) => e.instance.prompt)).size / Math.max(1, ctx.episodes.length);
  const repetitive = perLevel.filter((l) => l.distinctPromptShare < 0.5);
  if (distinctOverall < ctx.options.minDistinctPromptShare || repetitive.length > 0) {
    problems.push({
      code: 'E_SEED_IGNORED',
      message: `only ${(100 * distinctOverall).toFixed(0)}% of sampled prompts are distinct${repetitive.length ? ` (levels ${repetitive.map((l) => l.level).join(', ')} repeat more than half their prompts)` : ''}; instances must depend on the seed through rng`,
      evidence: { distinctOverall, levels: repetitive.map((l) => ({ level: l.level, distinctPromptShare: l.distinctPromptShare })) },
    });
  }
  const degenerate = perLevel.filter((l) => l.samples >= 10 && lowerBound(l.topAnswerShare, l.samples, ctx.options.guessZ) > ctx.options.maxTopAnswerShare);
  if (degenerate.length > 0) {
    const worst = degenerate.reduce((a, b) => (b.topAnswerShare > a.topAnswerShare ? b : a));
    problems.push({
      code: 'E_DEGENERATE_ANSWERS',
      message: `at level ${worst.level}, ${(100 * worst.topAnswerShare).toFixed(0)}% of instances have the answer "${worst.topAnswer.slice(0, 60)}" (at most ${(100 * ctx.options.maxTopAnswerShare).toFixed(0)}% allowed, judged at ${(100 * lowerBound(worst.topAnswerShare, worst.samples, ctx.options.guessZ)).toFixed(0)}% with confidence)`,
      evidence: degenerate.map((l) => ({ level: l.level, topAnswer: l.topAnswer.slice(0, 60), share: l.topAnswerShare })),
    });
  }
  return { ok: problems.length === 0, metrics: { distinctPromptShare: distinctOverall, levels: perLevel }, problems };
};
