// Stage 5, hack resistance: a verifier must pay only for the task being solved. Every sampled instance
// gets guessing probes and another instance's answer; a few per level get the full battery (probes.ts):
// responses that hold no answer or several must earn less than the ceiling (inclusive), text around a
// wrong answer (keywords, model-shaped reasoning) must add nothing to it, and answers that may be valid are
// judged by rate beyond chance, pooled and per level. Sample-wide checks (hack-checks.ts): a credit floor,
// feedback naming the answer, partial-credit lists by their lift. Guessing is judged per level
// (guessing.ts); the prompt must not give the answer away (leak.ts, leak-derived.ts).
import type { ProblemCode } from '../../contract/codes.js';
import type { Episode, EpisodeRequest, EpisodeRun } from '../../sandbox/episodes.js';
import { excerpt, shapeOf } from '../answers.js';
import { groupBy, mean, type Stage, type StageContext } from '../context.js';
import { guessProbes, judgeGuessing, type GuessProbe, type Strategy } from '../guessing.js';
import { creditFloorProblem, feedbackLeakProblem, judgeListLift, malformedFeedbackProblem, sampleTraits, type JudgedOutcome } from '../hack-checks.js';
import { detectLeak, type Leak } from '../leak.js';
import { derivedLeak } from '../leak-derived.js';
import { listLeak } from '../leak-lists.js';
import { judgedCarrierSpreads } from '../metamorphic.js';
import { statesTolerance } from '../probe-forms.js';
import { LONG_BANDS, otherAnswerProbes, probeBattery, type Family, type Probe } from '../probes.js';
import { isArrangement } from '../prompt-lists.js';
import type { Problem } from '../report.js';
import { answerContent } from '../../sandbox/answer.js';

const ZERO_TOLERANCE: Partial<Record<Family, ProblemCode>> = {
  empty: 'E_ACCEPTS_EMPTY',
  echo: 'E_ACCEPTS_ECHO',
  'format-only': 'E_ACCEPTS_FORMAT_ONLY',
  stuffing: 'E_ACCEPTS_STUFFING',
  enumeration: 'E_ACCEPTS_ENUMERATION',
  huge: 'E_ACCEPTS_HUGE',
  'malformed-list': 'E_ACCEPTS_MALFORMED_LIST',
  'non-answer': 'E_ACCEPTS_NON_ANSWER',
};
const RATE: Partial<Record<Family, ProblemCode>> = { 'other-answer': 'E_ACCEPTS_OTHER_ANSWER', perturbed: 'E_ACCEPTS_PERTURBED', 'prompt-token': 'E_ACCEPTS_GUESSING', 'prompt-formula': 'E_ACCEPTS_GUESSING' };
/** A perturbed answer passing far above chance at one level is a hack whatever the other levels do. */
const LEVEL_RATE_FAMILIES: Family[] = ['perturbed'];
const LEVEL_PASS_EXCESS = 0.5;

/** `excess`, for zero tolerance: what the probe is judged on (its score, the least of its group, what stuffing added, or a list's lift). */
type Outcome = JudgedOutcome;

type Planned = { kind: 'probe'; probe: Probe } | { kind: 'guess'; guess: GuessProbe };

function plan(ctx: StageContext, byLevel: Map<number, Episode[]>): { requests: EpisodeRequest[]; planned: Planned[][]; episodes: Episode[] } {
  const levels = [...byLevel.keys()].sort((a, b) => a - b);
  // The long junk bands go to the first instance of a few levels spread over the range, each band once.
  const longAt = new Map<number, number[]>();
  LONG_BANDS.forEach(([band], i) => {
    const level = levels[Math.round((i * (levels.length - 1)) / Math.max(1, LONG_BANDS.length - 1))] as number;
    longAt.set(level, [...(longAt.get(level) ?? []), band]);
  });
  const requests: EpisodeRequest[] = [];
  const planned: Planned[][] = [];
  const episodes: Episode[] = [];
  const applies = new Set<Family>(ctx.kind.probeFamilies);
  const traits = sampleTraits(ctx.episodes);
  const stated = (e: Episode) => statesTolerance(`${ctx.meta?.description ?? ''}\n${e.instance.prompt}`);
  let index = 0;
  for (const level of levels) {
    const peers = byLevel.get(level) as Episode[];
    peers.forEach((episode, i) => {
      const probed = i < ctx.options.probedPerLevel;
      const probes = probed
        ? probeBattery({ episode, peers, index: index++, long: i === 0 ? (longAt.get(level) ?? []) : [], permutation: isArrangement(episode.instance.prompt, shapeOf(answerContent(episode.reference))), ceiling: ctx.options.zeroToleranceCeiling, statedTolerance: stated(episode), seed: ctx.validationSeed, ...traits })
        : [];
      const list: Planned[] = [...[...probes, ...otherAnswerProbes(episode, peers, probed ? 3 : 1)].filter((probe) => applies.has(probe.family)).map((probe) => ({ kind: 'probe' as const, probe })), ...guessProbes(episode, peers).map((guess) => ({ kind: 'guess' as const, guess }))];
      planned.push(list);
      episodes.push(episode);
      requests.push({ seed: episode.seed, level, responses: list.map((p) => (p.kind === 'probe' ? p.probe.response : p.guess.response)) });
    });
  }
  return { requests, planned, episodes };
}

/** What each zero-tolerance probe is judged on: a group fails only when all its members do; stuffing by what it adds. */
function judgeExcess(outcomes: Outcome[]): void {
  // Per instance: the least score of each group, and the score of each stuffing pair's bare wrong answer.
  const seen = new Map<Episode, { groups: Map<string, number>; bases: Map<string, number> }>();
  const of = (e: Episode) => seen.get(e) ?? (seen.set(e, { groups: new Map(), bases: new Map() }).get(e) as { groups: Map<string, number>; bases: Map<string, number> });
  for (const o of outcomes) {
    const { groups, bases } = of(o.episode);
    if (o.probe.group) groups.set(o.probe.group, Math.min(groups.get(o.probe.group) ?? 1, o.lift ?? o.score));
    if (o.probe.base && o.probe.pair) bases.set(o.probe.pair, o.score);
  }
  for (const o of outcomes) {
    if (o.probe.ceiling === undefined || o.failure) continue;
    const { groups, bases } = of(o.episode);
    if (o.probe.group) o.excess = groups.get(o.probe.group) as number;
    else if (o.probe.pair) o.excess = o.score - (bases.get(o.probe.pair) ?? 0);
    else o.excess = o.lift ?? o.score;
  }
}

function evidenceOf(o: Outcome): Record<string, unknown> {
  const content = answerContent(o.episode.reference);
  return {
    family: o.probe.family,
    form: o.probe.form,
    seed: o.episode.seed,
    level: o.episode.level,
    score: o.score,
    ...(o.excess !== undefined && o.excess !== o.score ? { judged: Number(o.excess.toFixed(3)) } : {}),
    ...(o.feedback ? { feedback: o.feedback.slice(0, 160) } : {}),
    reference: content.slice(0, 80),
    response: excerpt(o.probe.response, [content, '<answer>', '<b>', '**']),
  };
}

interface FamilyStats {
  probes: number;
  maxScore: number;
  meanScore: number;
  passRate: number;
  chanceRate: number;
  failing?: number;
  worst?: Record<string, unknown>;
}

function familyStats(list: Outcome[]): FamilyStats {
  const judged = list.filter((o) => o.excess !== undefined);
  const worst = [...(judged.length ? judged : list)].reduce<Outcome | undefined>((w, o) => (!w || (o.excess ?? o.score) > (w.excess ?? w.score) ? o : w), undefined);
  const scores = list.map((o) => o.score);
  return {
    probes: list.length,
    maxScore: scores.reduce((a, b) => (b > a ? b : a), 0),
    meanScore: mean(scores),
    passRate: mean(scores.map((s) => (s >= 1 ? 1 : 0))),
    chanceRate: mean(list.map((o) => (o.probe.coincident ? 1 : 0))),
    ...(worst ? { worst: evidenceOf(worst) } : {}),
  };
}

/** Each probe's score (or failure), and each instance's guess-probe scores for the guessing judgement. */
function collect(run: EpisodeRun, planned: Planned[][], episodes: Episode[]): { outcomes: Outcome[]; guessed: Map<Episode, Map<Strategy, number>> } {
  const outcomes: Outcome[] = [];
  const guessed = new Map<Episode, Map<Strategy, number>>();
  run.episodes.forEach((e, i) => {
    const episode = episodes[i] as Episode;
    (planned[i] as Planned[]).forEach((p, j) => {
      const verdict = e.ok ? e.verdicts[j] : undefined;
      const score = verdict?.ok ? verdict.score : 0;
      if (p.kind === 'guess') {
        guessed.set(episode, (guessed.get(episode) ?? new Map()).set(p.guess.strategy, score));
        return;
      }
      const failure = !e.ok ? { code: e.code, message: e.message } : verdict && !verdict.ok ? { code: verdict.code, message: verdict.message } : undefined;
      outcomes.push({ probe: p.probe, episode, score, ...(verdict?.ok && verdict.feedback ? { feedback: verdict.feedback } : {}), ...(failure ? { failure } : {}) });
    });
  });
  return { outcomes, guessed };
}

function crashProblems(outcomes: Outcome[]): Problem[] {
  const crashed = outcomes.filter((x) => x.failure);
  const first = crashed[0];
  if (!first?.failure) return [];
  return [
    {
      code: first.failure.code,
      message: `verify failed on ${crashed.length} adversarial responses (first: ${first.probe.family} probe "${first.probe.form}" at level ${first.episode.level}): ${first.failure.message}. A verifier must return a score for any text`,
      evidence: crashed.slice(0, 3).map((x) => ({ ...evidenceOf(x), failure: x.failure })),
    },
  ];
}

/** Zero tolerance: any probe at or above its ceiling fails its family; the worst is the evidence. */
function zeroToleranceProblems(families: Map<Family, Outcome[]>, stats: Record<string, FamilyStats>): Problem[] {
  const problems: Problem[] = [];
  for (const [family, code] of Object.entries(ZERO_TOLERANCE) as Array<[Family, ProblemCode]>) {
    const failing = (families.get(family) ?? []).filter((x) => x.excess !== undefined && x.excess >= (x.probe.ceiling as number));
    if (failing.length === 0) continue;
    const worst = failing.reduce((w, x) => ((x.excess as number) > (w.excess as number) ? x : w));
    (stats[family] as FamilyStats).failing = failing.length;
    const forms = [...new Set(failing.map((x) => x.probe.form))];
    const judged = worst.probe.pair ? `adds ${(worst.excess as number).toFixed(2)} to a wrong answer's score` : `scores ${worst.score}`;
    problems.push({
      code,
      message: `${failing.length} ${family} probe${failing.length === 1 ? '' : 's'} reach the ceiling ${worst.probe.ceiling} (inclusive; the reference scores 1). Worst: "${worst.probe.form}" ${judged}. Failing forms: ${forms.slice(0, 6).join('; ')}${forms.length > 6 ? '; …' : ''}`,
      evidence: evidenceOf(worst),
    });
  }
  return problems;
}

/** Answers that may be valid: judged by how much more often than chance they pass (or score). */
function rateProblems(families: Map<Family, Outcome[]>, stats: Record<string, FamilyStats>, o: StageContext['options']): Problem[] {
  const problems: Problem[] = [];
  for (const [family, code] of Object.entries(RATE) as Array<[Family, ProblemCode]>) {
    const s = stats[family];
    if (!s || s.probes < 5) continue;
    const list = families.get(family) as Outcome[];
    // Close answers keep partial credit in a fair verifier; for lists (partial credit per item) only full passes count.
    const scalar = list.every((x) => shapeOf(answerContent(x.episode.reference)).kind !== 'list');
    const meanLimit = family === 'perturbed' ? (scalar ? o.perturbedMeanExcess : Number.POSITIVE_INFINITY) : o.rateFamilyMeanExcess;
    if (s.meanScore - s.chanceRate <= meanLimit && s.passRate - s.chanceRate <= o.rateFamilyPassExcess) continue;
    const passing = list.filter((x) => x.score >= 1 && !x.probe.coincident);
    problems.push({
      code,
      message: `${family} responses score ${s.meanScore.toFixed(2)} on average and pass ${(100 * s.passRate).toFixed(0)}% of the time, while chance (identical answers) explains ${(100 * s.chanceRate).toFixed(0)}%; passing forms: ${[...new Set(passing.map((x) => x.probe.form))].join('; ') || 'none (partial credit)'}`,
      evidence: evidenceOf(passing[0] ?? list.reduce((w, x) => (x.score > w.score ? x : w))),
    });
  }
  // Per level as well: a tolerance that opens at one level only is hidden by the others when pooled.
  for (const family of LEVEL_RATE_FAMILIES) {
    if (problems.some((p) => p.code === RATE[family])) continue;
    const byLevel = groupBy(families.get(family) ?? [], (x) => x.episode.level);
    const worst = [...byLevel].map(([level, list]) => ({ level, list, excess: mean(list.map((x) => (x.score >= 1 ? 1 : 0))) - mean(list.map((x) => (x.probe.coincident ? 1 : 0))) })).filter((l) => l.list.length >= 10).sort((a, b) => b.excess - a.excess)[0];
    if (!worst || worst.excess <= LEVEL_PASS_EXCESS) continue;
    const passing = worst.list.filter((x) => x.score >= 1 && !x.probe.coincident);
    problems.push({
      code: RATE[family] as ProblemCode,
      message: `at level ${worst.level}, ${family} responses pass ${(100 * worst.excess).toFixed(0)} points more often than chance explains (${passing.length} of ${worst.list.length}); passing forms: ${[...new Set(passing.map((x) => x.probe.form))].join('; ')}`,
      evidence: evidenceOf(passing[0] as Outcome),
    });
  }
  return problems;
}

function leakProblems(ctx: StageContext): { problems: Problem[]; metrics: Record<string, unknown> } {
  const o = ctx.options;
  const leak = detectLeak(ctx.episodes, Math.min(o.leakMaxRate, o.leakLevelMaxRate), o.leakMinLevelSamples);
  const derived = derivedLeak(ctx.episodes, Math.min(o.leakMaxRate, o.leakLevelMaxRate), o.leakMinLevelSamples);
  const lists = listLeak(ctx.episodes, Math.min(o.leakMaxRate, o.leakLevelMaxRate), o.leakMinLevelSamples);
  const over = (l: Leak | null, limit: number) => (l && l.rate - l.chance >= limit ? l : null);
  const found = [over(leak.overall, o.leakMaxRate), over(leak.level, o.leakLevelMaxRate), over(derived.overall, o.leakMaxRate), over(derived.level, o.leakLevelMaxRate), over(lists.overall, o.leakMaxRate), over(lists.level, o.leakLevelMaxRate)].find(Boolean);
  const brief = (l: Leak | null) => l && { rule: l.rule, ...(l.level !== undefined ? { level: l.level } : {}), rate: l.rate, chance: l.chance };
  const problems: Problem[] = found
    ? [
        {
          code: 'E_ANSWER_LEAK',
          message: `the answer can be read off the prompt${found.level !== undefined ? ` at level ${found.level}` : ''}: ${found.rule} in ${(100 * found.rate).toFixed(0)}% of instances (another instance's answer: ${(100 * found.chance).toFixed(0)}%)`,
          evidence: found.examples,
        },
      ]
    : [];
  return { problems, metrics: { overall: brief(leak.overall), level: brief(leak.level), derived: brief(derived.overall), lists: brief(lists.overall) } };
}

export const hackStage: Stage = async (ctx) => {
  const byLevel = groupBy(ctx.episodes, (e) => e.level);
  const { requests, planned, episodes } = plan(ctx, byLevel);
  const run = await ctx.kind.runEpisodes(ctx.pool, ctx.source, requests, { parallel: true, limits: ctx.options.limits });
  const collected = collect(run, planned, episodes);
  const [outcomes, guessed] = [judgedCarrierSpreads(collected.outcomes), collected.guessed];
  await judgeListLift(outcomes, ctx.options.zeroToleranceCeiling, (requests) => ctx.kind.runEpisodes(ctx.pool, ctx.source, requests, { parallel: true, limits: ctx.options.limits }));
  judgeExcess(outcomes);
  const families = groupBy(outcomes.filter((x) => !x.failure), (x) => x.probe.family);
  const stats: Record<string, FamilyStats> = {};
  for (const [family, list] of families) stats[family] = familyStats(list);
  const guessing = await judgeGuessing(ctx, byLevel, guessed);
  const leak = leakProblems(ctx);
  const zero = zeroToleranceProblems(families, stats);
  const floor = zero.some((p) => p.code === 'E_ACCEPTS_NON_ANSWER') ? null : creditFloorProblem(outcomes, ctx.options.zeroToleranceCeiling);
  const extra = [floor, feedbackLeakProblem(outcomes, byLevel), malformedFeedbackProblem(outcomes)].filter((p): p is Problem => p !== null);
  const problems = [...crashProblems(outcomes), ...zero, ...rateProblems(families, stats, ctx.options), ...extra, ...guessing.problems, ...leak.problems];
  // Baselines for the difficulty curve, per level: the fitted constant and another instance's answer.
  for (const level of byLevel.keys()) {
    const other = outcomes.filter((x) => x.probe.family === 'other-answer' && x.episode.level === level && !x.failure).map((x) => x.score);
    ctx.baselines.set(level, { common: guessing.constantByLevel.get(level) ?? 0, other: mean(other) });
  }
  return { ok: problems.length === 0, metrics: { probes: outcomes.length, families: stats, guessing: guessing.levels, leak: leak.metrics }, problems };
};
