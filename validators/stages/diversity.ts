// Stage 6, diversity: different seeds give different prompts, and no single answer dominates a level
// (a policy could learn to always say it). Both are judged so that sampling noise does not reject an
// honest environment: prompts by their collision rate (the chance that two seeds give the same prompt,
// which a small but real instance space keeps low while ignored seeds push it to 1), answers on a lower
// confidence bound of the top share (the hack stage's guessing judgement also scores the best constant).
import { entropyBits, mostCommon, normalizeAnswer } from '../answers.js';
import type { Problem } from '../report.js';
import type { Stage } from '../context.js';
import { lowerBound } from '../stats.js';
import { answerContent } from '../../sandbox/answer.js';
import { memorisedGain } from '../memorised-pool.js';

/** The share of pairs of samples that are equal: about 1/N for N equally likely values, 1 when all are the same. */
function collision(values: string[]): number {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let pairs = 0;
  for (const c of counts.values()) pairs += c * (c - 1);
  return values.length < 2 ? 0 : pairs / (values.length * (values.length - 1));
}

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
      promptCollision: collision(at.map((e) => e.instance.prompt)),
      topAnswer: top.value ?? '',
      topAnswerShare: top.share,
      answerEntropyBits: Number(entropyBits(answers).toFixed(2)),
    };
  });
  const distinctOverall = new Set(ctx.episodes.map((e) => e.instance.prompt)).size / Math.max(1, ctx.episodes.length);
  const repetitive = perLevel.filter((l) => l.samples >= 10 && l.promptCollision > ctx.options.maxPromptCollision);
  if (repetitive.length > 0) {
    const worst = repetitive.reduce((a, b) => (b.promptCollision > a.promptCollision ? b : a));
    problems.push({
      code: 'E_SEED_IGNORED',
      message:
        `two seeds give the same prompt ${(100 * worst.promptCollision).toFixed(0)}% of the time ` +
        `at level ${worst.level}${
          repetitive.length > 1
            ? ` (also levels ${repetitive
                .filter((l) => l !== worst)
                .map((l) => l.level)
                .join(', ')})`
            : ''
        }, at most ${(100 * ctx.options.maxPromptCollision).toFixed(0)}% allowed (` +
        `${(100 * distinctOverall).toFixed(0)}` +
        `% of all sampled prompts are distinct); instances must depend on the seed through rng`,
      evidence: {
        distinctOverall,
        levels: repetitive.map((l) => ({
          level: l.level,
          promptCollision: Number(l.promptCollision.toFixed(3)),
          distinctPromptShare: l.distinctPromptShare,
        })),
      },
    });
  }
  const degenerate = perLevel.filter(
    (l) =>
      l.samples >= 10 && lowerBound(l.topAnswerShare, l.samples, ctx.options.guessZ) > ctx.options.maxTopAnswerShare,
  );
  if (degenerate.length > 0) {
    const worst = degenerate.reduce((a, b) => (b.topAnswerShare > a.topAnswerShare ? b : a));
    problems.push({
      code: 'E_DEGENERATE_ANSWERS',
      message:
        `at level ${worst.level}, ${(100 * worst.topAnswerShare).toFixed(0)}% of instances have the answer "` +
        `${worst.topAnswer.slice(0, 60)}" (at most ${(100 * ctx.options.maxTopAnswerShare).toFixed(0)}% ` +
        `allowed, judged at ` +
        `${(100 * lowerBound(worst.topAnswerShare, worst.samples, ctx.options.guessZ)).toFixed(0)}% with ` +
        `confidence)`,
      evidence: degenerate.map((l) => ({
        level: l.level,
        topAnswer: l.topAnswer.slice(0, 60),
        share: l.topAnswerShare,
      })),
    });
  }
  const memory = memorisedGain(
    ctx.episodes.map((e) => ({ level: e.level, prompt: e.instance.prompt, answer: answerContent(e.reference) })),
    10,
    ctx.options.guessZ,
  );
  if (memory.gain > ctx.options.maxMemorisedGain) problems.push(smallPool(memory, ctx.options.maxMemorisedGain));
  return { ok: problems.length === 0, metrics: { distinctPromptShare: distinctOverall, levels: perLevel }, problems };
};

/** The effective-instance-count problem: the memoriser's rate, chance's, and each level's key and pool estimate. */
function smallPool(memory: ReturnType<typeof memorisedGain>, max: number): Problem {
  const smallest = memory.levels.reduce((a, b) => (b.pool < a.pool ? b : a));
  return {
    code: 'E_SEED_IGNORED',
    message:
      'answers memorised by the prompt parts that decide them (or by shared numbers or words) are right on ' +
      `${(100 * memory.rate).toFixed(0)}% of ` +
      `held-out instances (chance ${(100 * memory.chance).toFixed(0)}%, at most ${(100 * max).toFixed(0)} points ` +
      `over chance allowed, judged with confidence): about ${smallest.pool} distinct answers at level ` +
      `${smallest.level} behind the varied text; the problem itself must depend on the seed through rng`,
    evidence: {
      rate: Number(memory.rate.toFixed(3)),
      chance: Number(memory.chance.toFixed(3)),
      levels: memory.levels.map((l) => ({
        ...l,
        chance: Number(l.chance.toFixed(2)),
        pool: Number.isFinite(l.pool) ? l.pool : null,
        key: l.key.map((k) => k.slice(0, 60)),
      })),
    },
  };
}
