// Guessing, judged per level (never pooled alone, so a level where guessing pays is not hidden by the
// others): the best constant answer (fitted on half the level's instances, scored on the other half), the
// list the prompt prints for list answers ("every option", or the input copied), and for multiple-choice
// environments informed guessing (choice-rules.ts). Each is set against nominal chance: 1/K for K options,
// else zero. The test is sequential: the first sample condemns only an overwhelming guess; a level where
// a guess merely looks strong gets more instances before its verdict, so the verdict rests on enough
// samples (small ones overstate a learned guess) and honest levels cost nothing extra.
import type { ProblemCode } from '../contract/codes.js';
import { scoreOf, type Episode } from '../sandbox/episodes.js';
import { joinItems, mostCommon, normalizeAnswer, shapeOf } from './answers.js';
import { informedGuessing, type ChoiceCase } from './choice-rules.js';
import type { StageContext } from './context.js';
import { chosenOption, parseChoices, printedList, tokenGuesses } from './prompt-lists.js';
import type { Problem } from './report.js';
import { levelSeeds } from './seeds.js';
import { lowerBound } from './stats.js';
import { answerContent, withContent } from '../sandbox/answer.js';

export type Strategy = 'constant' | 'printed list' | 'input copied' | 'every prompt token' | 'informed guess';
const CODE: Record<Strategy, ProblemCode> = { constant: 'E_ACCEPTS_CONSTANT', 'printed list': 'E_ACCEPTS_GUESSING', 'input copied': 'E_ACCEPTS_GUESSING', 'every prompt token': 'E_ACCEPTS_GUESSING', 'informed guess': 'E_ACCEPTS_GUESSING' };
/** Guesses read from the prompt's tokens whatever its layout: only full passes count (partial credit for a copy is the task's own). */
const TOKEN_GUESSES: Strategy[] = ['input copied', 'every prompt token'];
const WHAT: Record<Strategy, string> = {
  'input copied': "the answer's items copied in the order the prompt gives them",
  'every prompt token': "every token of the prompt of the answer's kind, listed",
  constant: 'one fixed answer (the most common reference of the other half of the instances)',
  'printed list': 'answering with the list the prompt prints (every option, or the input copied)',
  'informed guess': 'a multiple-choice guessing rule learned from half the instances',
};

export interface GuessProbe {
  strategy: Strategy;
  response: string;
}

const contentOf = (e: Episode) => normalizeAnswer(answerContent(e.reference));

/** The level's most common reference among `episodes`. */
function constantOf(episodes: Episode[]): Episode | undefined {
  const top = mostCommon(episodes.map(contentOf)).value;
  return episodes.find((e) => contentOf(e) === top);
}

function listProbe(episode: Episode): GuessProbe[] {
  const shape = shapeOf(answerContent(episode.reference));
  const list = printedList(episode.instance.prompt, shape);
  const tokens = tokenGuesses(episode.instance.prompt, shape);
  const out: GuessProbe[] = list ? [{ strategy: 'printed list', response: withContent(episode.reference, joinItems(shape, list)) }] : [];
  if (tokens.copied) out.push({ strategy: 'input copied', response: withContent(episode.reference, joinItems(shape, tokens.copied)) });
  if (tokens.every) out.push({ strategy: 'every prompt token', response: withContent(episode.reference, joinItems(shape, tokens.every)) });
  return out;
}

/** Per level sample: where each instance sits, and the constant fitted on each half. */
const folds = new WeakMap<Episode[], { index: Map<Episode, number>; constants: Array<Episode | undefined> }>();

/** Responses that need no solving, for every instance of a level: the other half's constant, the printed list. */
export function guessProbes(episode: Episode, peers: Episode[]): GuessProbe[] {
  let fold = folds.get(peers);
  if (!fold) {
    fold = { index: new Map(peers.map((e, i) => [e, i])), constants: [0, 1].map((h) => constantOf(peers.filter((_, i) => i % 2 === h))) };
    folds.set(peers, fold);
  }
  const fitted = fold.constants[((fold.index.get(episode) ?? 0) + 1) % 2];
  return [...(fitted ? [{ strategy: 'constant' as const, response: fitted.reference }] : []), ...listProbe(episode)];
}

function choiceCases(episodes: Episode[]): ChoiceCase[] {
  return episodes.flatMap((e) => {
    const choices = parseChoices(e.instance.prompt);
    const truth = choices ? chosenOption(e.reference, choices) : -1;
    return choices && truth >= 0 ? [{ choices, truth }] : [];
  });
}

/** More instances at one level (their guesses are scored with the level's others, see scoreGuesses). */
async function extraSamples(ctx: StageContext, level: number, count: number): Promise<Episode[]> {
  if (count <= 0) return [];
  // The level's next draws from the recorded validation seed, after the ones the execution stage used.
  const used = new Set(ctx.episodes.filter((e) => e.level === level).map((e) => e.seed));
  const requests = levelSeeds(ctx.validationSeed, level, used.size + count).filter((seed) => !used.has(seed)).slice(0, count).map((seed) => ({ seed, level }));
  const run = await ctx.kind.runEpisodes(ctx.pool, ctx.source, requests, { parallel: true, limits: ctx.options.limits });
  return run.episodes.filter((e): e is Episode => e.ok);
}

/** Each instance's guesses (constants fitted on the other half of `episodes`, the printed list), scored in one batched run of episodes. */
async function scoreGuesses(ctx: StageContext, episodes: Episode[]): Promise<Map<Strategy, number[]>> {
  const planned = episodes.map((episode) => guessProbes(episode, episodes));
  const requests = episodes.map((e, i) => ({ seed: e.seed, level: e.level, responses: (planned[i] as GuessProbe[]).map((p) => p.response) }));
  const run = requests.some((r) => r.responses.length > 0) ? await ctx.kind.runEpisodes(ctx.pool, ctx.source, requests, { parallel: true, limits: ctx.options.limits }) : undefined;
  const scores = new Map<Strategy, Map<Episode, number>>();
  episodes.forEach((episode, i) => {
    const ran = run?.episodes[i];
    (planned[i] as GuessProbe[]).forEach((p, j) => {
      const score = ran?.ok ? scoreOf(ran.verdicts[j]) : 0;
      scores.set(p.strategy, (scores.get(p.strategy) ?? new Map<Episode, number>()).set(episode, score));
    });
  });
  return new Map([...scores].map(([s, won]) => [s, episodes.map((e) => won.get(e) ?? 0)]));
}

interface Tally {
  outcomes: number[];
  nominal: number;
  detail?: string;
}
interface Judged {
  level: number | null;
  wins: number;
  n: number;
  nominal: number;
  bound: number;
  detail?: string;
}

export interface GuessingVerdict {
  problems: Problem[];
  levels: Array<{ level: number; samples: number; strategies: Record<string, Omit<Judged, 'level'>> }>;
  /** Per level: mean score of the fitted constant on the first sample (the difficulty stage's guessing baseline). */
  constantByLevel: Map<number, number>;
}

/** Judges the strategies level by level; `scored` holds each instance's guess-probe scores from the hack run. */
export async function judgeGuessing(ctx: StageContext, byLevel: Map<number, Episode[]>, scored: Map<Episode, Map<Strategy, number>>): Promise<GuessingVerdict> {
  const o = ctx.options;
  // Nominal chance of a free answer: 1/K for a handful of answers seen (a few categories), else zero.
  const distinct = new Set(ctx.episodes.map(contentOf)).size;
  const nominalFree = distinct <= 10 ? 1 / distinct : 0;
  const multipleChoice = choiceCases(ctx.episodes).length >= 0.8 * ctx.episodes.length;
  // A fixed answer among a few classes may beat 1/K only by a little: a majority class is a free reward.
  const tolerance = (s: Strategy) => (multipleChoice && s !== 'printed list' ? o.choiceGuessTolerance : s === 'constant' && nominalFree > 0 ? o.classGuessTolerance : o.guessTolerance);
  const wins = (s: Strategy, scores: number[]) => (TOKEN_GUESSES.includes(s) ? scores.map((v) => (v >= 1 ? 1 : 0)) : scores);
  const judge = (t: Tally, level: number | null): Judged => {
    const wins = mean(t.outcomes);
    return { level, wins, n: t.outcomes.length, nominal: t.nominal, bound: lowerBound(wins, t.outcomes.length, o.guessZ), ...(t.detail ? { detail: t.detail } : {}) };
  };
  const fails = (s: Strategy, j: Judged) => j.n >= o.guessMinSamples && j.bound >= j.nominal + tolerance(s);
  const verdict: GuessingVerdict = { problems: [], levels: [], constantByLevel: new Map() };
  const failing = new Map<Strategy, Judged[]>();
  const pooled = new Map<Strategy, Tally>();
  for (const [level, episodes] of [...byLevel].sort((a, b) => a[0] - b[0])) {
    const cases = multipleChoice ? choiceCases(episodes) : [];
    const nominal = multipleChoice ? cases.reduce((a, c) => a + 1 / c.choices.labels.length, 0) / Math.max(1, cases.length) : nominalFree;
    const tallies = new Map<Strategy, Tally>();
    for (const s of ['constant', 'printed list', ...TOKEN_GUESSES] as const) {
      if (episodes.some((e) => scored.get(e)?.has(s))) tallies.set(s, { outcomes: wins(s, episodes.map((e) => scored.get(e)?.get(s) ?? 0)), nominal: s === 'constant' ? nominal : 0 });
    }
    verdict.constantByLevel.set(level, tallies.has('constant') ? mean((tallies.get('constant') as Tally).outcomes) : 0);
    // The first sample decides only the overwhelming (a guess that wins 50 points above chance); a strategy
    // that merely looks strong, and any multiple-choice level (informed rules need many), gets more instances
    // and is judged on them all: small samples overstate a learned guess too often to reject on.
    const overwhelming = (s: Strategy, t: Tally) => mean(t.outcomes) >= t.nominal + 0.5 && fails(s, judge(t, level));
    const undecided = [...tallies].some(([s, t]) => !overwhelming(s, t) && mean(t.outcomes) >= t.nominal + tolerance(s) / 2);
    let all = episodes;
    if (multipleChoice || undecided) {
      all = [...episodes, ...(await extraSamples(ctx, level, (multipleChoice ? o.choiceSamplesPerLevel : o.guessSamplesPerLevel) - episodes.length))];
      // Constants are fitted again on halves of the larger sample, and every guess is scored afresh.
      for (const [s, outcomes] of await scoreGuesses(ctx, all)) tallies.set(s, { outcomes: wins(s, outcomes), nominal: s === 'constant' ? nominal : 0 });
    }
    if (multipleChoice) {
      const guessing = informedGuessing(choiceCases(all));
      tallies.set('informed guess', { outcomes: guessing.outcomes, nominal: guessing.nominal, detail: `rules fitted on each half: ${[...new Set(guessing.rules)].join('; ')}` });
    }
    const report: GuessingVerdict['levels'][number] = { level, samples: all.length, strategies: {} };
    for (const [s, t] of tallies) {
      const j = judge(t, level);
      report.strategies[s] = { wins: round(j.wins), n: j.n, nominal: round(j.nominal), bound: round(j.bound), ...(j.detail ? { detail: j.detail } : {}) };
      if (fails(s, j)) failing.set(s, [...(failing.get(s) ?? []), j]);
      const p = pooled.get(s) ?? { outcomes: [], nominal: 0 };
      p.nominal = (p.nominal * p.outcomes.length + t.nominal * t.outcomes.length) / Math.max(1, p.outcomes.length + t.outcomes.length);
      p.outcomes.push(...t.outcomes);
      pooled.set(s, p);
    }
    verdict.levels.push(report);
  }
  // Over all levels as well: more samples find a smaller edge that every level shares (it never hides one).
  for (const [s, t] of pooled) {
    const j = judge(t, null);
    if (!failing.has(s) && fails(s, j)) failing.set(s, [j]);
  }
  for (const [s, list] of failing) verdict.problems.push(problemOf(s, list, tolerance(s)));
  return verdict;
}

function problemOf(s: Strategy, failing: Judged[], tolerance: number): Problem {
  const worst = failing.reduce((a, b) => (b.bound - b.nominal > a.bound - a.nominal ? b : a));
  const where = worst.level === null ? 'over all levels' : `at level ${worst.level}`;
  const others = failing.filter((j) => j !== worst && j.level !== null).map((j) => j.level);
  return {
    code: CODE[s],
    message: `${WHAT[s]} wins ${pct(worst.wins)} ${where} (${worst.n} instances; at least ${pct(worst.bound)} with confidence) while nominal chance is ${pct(worst.nominal)} (tolerance ${(100 * tolerance).toFixed(0)} points)${others.length ? `; also at levels ${others.join(', ')}` : ''}`,
    evidence: failing.slice(0, 10).map((j) => ({ strategy: s, level: j.level, wins: round(j.wins), n: j.n, nominal: round(j.nominal), bound: round(j.bound), ...(j.detail ? { detail: j.detail } : {}) })),
  };
}

const mean = (v: number[]) => (v.length === 0 ? 0 : v.reduce((a, b) => a + b, 0) / v.length);
const round = (v: number) => Number(v.toFixed(3));
const pct = (v: number) => `${(100 * v).toFixed(0)}%`;
