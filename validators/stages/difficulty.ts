// Stage 7, difficulty: levels must change the task, and something that makes a task harder must rise
// with the level. Signals per instance: prompt, instance and reference size, how many numbers the prompt
// holds and how large they are, and (only where it is stable) the reference solver's time. A signal
// carries the difficulty when the top level exceeds level 1 by a factor and its per-level means rise with
// the level by rank correlation over every level; one signal that shrinks (a reference that gets shorter
// as a base grows) or one noisy level does not reject a candidate whose other signals carry it.
import { mostCommon, normalizeAnswer, tokenize } from '../answers.js';
import { mean, type Stage, type StageContext } from '../context.js';
import type { LevelStats, Problem } from '../report.js';
import { rankShift, spearman } from '../stats.js';
import type { Episode } from '../../sandbox/episodes.js';
import { answerContent } from '../../sandbox/answer.js';

/** An instance's size as JSON, once per instance: the curve and the signals read it (instances can be large). */
const instanceSizes = new WeakMap<object, number>();
function instanceChars(e: Episode): number {
  let size = instanceSizes.get(e.instance);
  if (size === undefined) instanceSizes.set(e.instance, (size = JSON.stringify(e.instance).length));
  return size;
}

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
      instanceChars: mean(at.map((e) => instanceChars(e))),
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

/** The numbers a text holds: how many, and log10 of the largest magnitude (plus one). */
function numbersOf(text: string): { count: number; magnitude: number } {
  const known = seen.get(text);
  if (known) return known;
  let count = 0;
  let largest = 0;
  for (const t of tokenize(text, 20_000)) {
    // Most tokens are words: the cheap test first, the conversion only for a token that starts like a number.
    if (!/^[+-]?\d/.test(t)) continue;
    const v = Number(t);
    if (Number.isFinite(v)) {
      count++;
      largest = Math.max(largest, Math.abs(v));
    }
  }
  const out = { count, magnitude: Math.log10(1 + largest) };
  if (seen.size > 5_000) seen.clear();
  seen.set(text, out);
  return out;
}
const seen = new Map<string, { count: number; magnitude: number }>();

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length === 0 ? 0 : ((s[(s.length - 1) >> 1] as number) + (s[s.length >> 1] as number)) / 2;
};

/** Per-instance signals; magnitudes are logarithms, so a growth factor is 10^(difference). */
const SIGNALS: Record<string, { of: (e: Episode) => number; log?: boolean }> = {
  promptChars: { of: (e) => e.instance.prompt.length },
  instanceChars: { of: (e) => instanceChars(e) },
  referenceChars: { of: (e) => e.reference.length },
  promptNumbers: { of: (e) => numbersOf(e.instance.prompt).count },
  promptMagnitude: { of: (e) => numbersOf(e.instance.prompt).magnitude, log: true },
  answerMagnitude: { of: (e) => numbersOf(answerContent(e.reference)).magnitude, log: true },
};

interface Signal {
  /** Top level over level 1 (a factor). */
  growth: number;
  /** Spearman correlation of level against the signal's per-level mean. */
  trend: number;
  /** Whether the top level's values are reliably above (1) or below (-1) level 1's, or indistinguishable (0). */
  shift: -1 | 0 | 1;
  perLevel: number[];
}

function signalOf(
  levels: number[],
  byLevel: Map<number, Episode[]>,
  of: (e: Episode) => number,
  log: boolean,
  centre: (v: number[]) => number,
): Signal {
  const values = levels.map((l) => (byLevel.get(l) as Episode[]).map(of));
  const perLevel = values.map(centre);
  const first = perLevel[0] as number;
  const last = perLevel[perLevel.length - 1] as number;
  const growth = log ? 10 ** (last - first) : last / Math.max(1e-9, first);
  const shift = rankShift(values[0] as number[], values[values.length - 1] as number[]);
  return { growth, trend: spearman(levels, perLevel), shift, perLevel: perLevel.map((v) => Number(v.toFixed(2))) };
}

/**
 * Structure, not size: a prompt of the same length that gives fewer numbers as the level rises (blanks in a
 * fixed grid, fewer clues) is harder by what it leaves out. Its shrinking count is a signal of its own.
 */
function fewerGivens(signals: Record<string, Signal>): Record<string, Signal> {
  const numbers = signals.promptNumbers;
  const size = signals.promptChars;
  if (!numbers || !size || size.growth < 0.8 || size.growth > 1.25 || numbers.growth <= 0) return {};
  return {
    fewerGivens: {
      growth: 1 / numbers.growth,
      trend: -numbers.trend,
      shift: -numbers.shift as Signal['shift'],
      perLevel: numbers.perLevel,
    },
  };
}

export const difficultyStage: Stage = async (ctx) => {
  const curve = levelCurve(ctx);
  const problems: Problem[] = [];
  if (curve.length < 2) return { ok: true, metrics: { curve }, problems };
  const byLevel = Map.groupBy(ctx.episodes, (e) => e.level);
  // Levels with too few instances (most failed to run) say nothing about a trend.
  const levels = [...byLevel.keys()].filter((l) => (byLevel.get(l) as Episode[]).length >= 3).sort((a, b) => a - b);
  const signals: Record<string, Signal> = {};
  for (const [name, s] of Object.entries(SIGNALS))
    signals[name] = signalOf(levels, byLevel, s.of, s.log ?? false, mean);
  // Solve time: medians (load spikes move means), and counted only when it rises steadily and well above clock
  // resolution.
  const solve = signalOf(levels, byLevel, (e) => e.ms[1], false, median);
  const timingStable = solve.trend >= 0.9 && (solve.perLevel[solve.perLevel.length - 1] as number) >= 2;
  const judged = { ...signals, ...(timingStable ? { solveMs: solve } : {}), ...fewerGivens(signals) };
  const o = ctx.options;
  // Growth counts only where the top level's values are reliably above level 1's: noise in a heavy-tailed
  // signal (answer magnitudes) can move its mean by 25% on levels that are identical.
  const growing = Object.entries(judged).filter(([, s]) => s.growth >= o.minTopLevelGrowth && s.shift === 1);
  const carrying = growing.filter(([, s]) => s.trend >= o.minTrend);
  const summary = Object.entries(judged)
    .map(([k, s]) => `${k} ×${s.growth.toFixed(2)} (trend ${s.trend.toFixed(2)})`)
    .join(', ');
  const evidence = Object.fromEntries(
    Object.entries(judged).map(([k, s]) => [
      k,
      { growth: Number(s.growth.toFixed(3)), trend: Number(s.trend.toFixed(3)), perLevel: s.perLevel },
    ]),
  );
  // Levels look alike when no signal tells the top level from level 1 (a rank trend over the level means
  // swings past ±0.5 on identical levels, so it decides nothing here).
  const unchanged = Object.values(signals).every((s) => s.shift === 0 || (s.growth > 0.93 && s.growth < 1.07));
  if (unchanged) {
    problems.push({
      code: 'E_LEVEL_IGNORED',
      message:
        `levels ${levels[0]} to ${levels[levels.length - 1]} look alike (${summary}): generate ` +
        `must use its level argument`,
      evidence,
    });
  } else if (growing.length === 0) {
    problems.push({
      code: 'E_FLAT_DIFFICULTY',
      message:
        `no signal of the top level is ${o.minTopLevelGrowth}× level 1 or more (${summary}): it must be ` +
        `measurably bigger or harder`,
      evidence,
    });
  } else if (carrying.length === 0) {
    problems.push({
      code: 'E_NON_MONOTONIC',
      message:
        `${growing.map(([k]) => k).join(', ')} grow${growing.length === 1 ? 's' : ''} from level 1 to the top ` +
        `but do${growing.length === 1 ? 'es' : ''} not rise with the level (rank correlation below ` +
        `${o.minTrend}): ${summary}`,
      evidence,
    });
  }
  // Guessing must not get easier as levels rise.
  const first = curve[0] as LevelStats;
  const last = curve[curve.length - 1] as LevelStats;
  for (const b of ['baselineCommon', 'baselineOther'] as const) {
    const trend = spearman(
      curve.map((l) => l.level),
      curve.map((l) => (Number.isFinite(l[b]) ? l[b] : 0)),
    );
    if (
      Number.isFinite(first[b]) &&
      Number.isFinite(last[b]) &&
      last[b] > first[b] + 0.2 &&
      last[b] > 0.3 &&
      trend >= o.minTrend
    ) {
      problems.push({
        code: 'E_NON_MONOTONIC',
        message:
          `the ${b} baseline scores ${last[b].toFixed(2)} at the top level but ${first[b].toFixed(2)} at level ` +
          `1 (trend ${trend.toFixed(2)}): higher levels are easier to guess`,
        evidence: curve.map((l) => ({ level: l.level, [b]: l[b] })),
      });
    }
  }
  return {
    ok: problems.length === 0,
    metrics: { signals: evidence, carrying: carrying.map(([k]) => k), timingStable, curve },
    problems,
  };
};
