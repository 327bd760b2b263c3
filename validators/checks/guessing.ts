// Cheap policies searched, not sampled, per level: the best constant over the level's references, the
// variants of them the verifier accepted, their short forms in both cases and a few small constants, fitted on half the level's instances
// and scored on the other half (a verifier accepting several valid answers has a best constant that wins
// far more than the most common reference); and the prompt strategies (prompt-guesses.ts: the printed list,
// listed items one or all at once, every answer of the level at once). Each is judged per level and pooled
// against nominal chance (1/K among K classes, options or listed items, else none); a level where a policy
// only looks strong draws more instances before its verdict.
import { scoreOf, type Episode } from '../../sandbox/episodes.js';
import { answerContent, withContent } from '../../sandbox/answer.js';
import { normalizeAnswer, shapeOf } from '../answers.js';
import { mean } from '../context.js';
import type { Probe } from '../probe-types.js';
import { choiceCases } from '../choice-rules.js';
import { answerList, otherAnswers, promptGuesses } from '../prompt-guesses.js';
import type { JudgedOutcome } from '../hack-checks.js';
import { undecided, type Finding, type Trial } from './rules.js';
import type { ProbeRequest, ProbeResult, SingleTurnCheck, SingleTurnContext } from './single-turn.js';
import { constantCandidates } from '../constants.js';

/** The prompt strategies (prompt-guesses.ts) by form, and how the message names them. */
const WHAT: Record<string, string> = {
  constant: "one fixed answer (the best of the level's answers, their accepted variants, their short forms in either case and small constants, fitted on half the instances)",
  'printed list': 'answering with the list the prompt prints (every option, or the input copied)',
  'input copied': "the answer's items copied in the order the prompt gives them",
  'every prompt token': "every token of the prompt of the answer's kind, listed",
  'the first listed item': 'the first item the prompt lists',
  'the last listed item': 'the last item the prompt lists',
  'every listed item at once': 'every item the prompt lists, at once',
  "every answer of the level's other instances at once": "every answer the level's other instances have, at once",
};
/** Guesses read from the prompt's tokens whatever its layout: only full passes count (partial credit for a copy is the task's own). */
const FULL_PASS_ONLY = new Set(['input copied', 'every prompt token']);

const contents = new WeakMap<Episode, string>();
/** An instance's answer as compared (once per instance: the search compares it with every candidate). */
function contentOf(e: Episode): string {
  let c = contents.get(e);
  if (c === undefined) contents.set(e, (c = normalizeAnswer(answerContent(e.reference))));
  return c;
}
const guess = (strategy: string, response: string): Probe => ({ family: 'guess', form: strategy, response, coincident: false });

type Run = (requests: readonly ProbeRequest[]) => Promise<ProbeResult[]>;

/** Fitting instances every candidate is scored on before the others are tried only with those that won there. */
const SCREEN = 3;

/**
 * Scores each candidate list (contents) on its episode, in one run for every level: one row per episode. A
 * candidate that is the episode's own answer wins what the reference wins, and is not sent.
 */
async function scoreConstants(run: Run, asks: Array<{ episode: Episode; candidates: string[] }>): Promise<number[][]> {
  const keys = new Map<string, string>();
  const own = (e: Episode, c: string) => (keys.get(c) ?? (keys.set(c, normalizeAnswer(c)).get(c) as string)) === contentOf(e);
  const wanted = asks.map(({ episode: e, candidates }) => candidates.filter((c) => !own(e, c)));
  const sent = asks.flatMap(({ episode: e }, i) => ((wanted[i] as string[]).length ? [{ seed: e.seed, level: e.level, probes: (wanted[i] as string[]).map((c) => guess('constant', withContent(e.reference, c))) }] : []));
  const results = sent.length ? await run(sent) : [];
  let k = 0;
  return asks.map(({ episode: e, candidates }, i) => {
    const scores = (wanted[i] as string[]).length ? (results[k++]?.outcomes ?? []).map((o) => (o.failure ? 0 : o.score)) : [];
    let j = 0;
    return candidates.map((c) => (own(e, c) ? scoreOf(e.referenceVerdict) : (scores[j++] ?? 0)));
  });
}

/** The candidate that wins most over `rows`, ties to the earlier (more common) one; -1 when there is none. */
function best(rows: number[][], count: number): number {
  let at = -1;
  let top = -1;
  for (let c = 0; c < count; c++) {
    const won = rows.reduce((a, row) => a + (row[c] ?? 0), 0);
    if (won > top) [at, top] = [c, won];
  }
  return at;
}

interface Level {
  level: number;
  episodes: Episode[];
  nominal: number;
  candidates: string[];
  /** Candidates ranked by their wins on the fitting half. */
  ranked: number[];
  trials: Map<string, Trial[]>;
  constant?: string;
  /** The fitted constant's mean score where it was judged (the difficulty curve's guessing baseline). */
  first: number;
}

/**
 * Per level, in one run each: candidates (from the even instances) scored on the even instances, the best
 * scored on the odd ones. The odd instances never supply a candidate, so what it wins there is an honest
 * estimate.
 */
async function searchConstants(ctx: SingleTurnContext, run: Run, levels: Level[], variants: Map<Episode, string[]>): Promise<void> {
  const max = ctx.stage.options.constantCandidates;
  for (const l of levels) {
    const fit = l.episodes.filter((_, i) => i % 2 === 0);
    l.candidates = constantCandidates(fit, fit.flatMap((e) => variants.get(e) ?? []), max);
  }
  // In two steps: every candidate on a few fitting instances, then only those that won something there (and the two
  // most common answers) on the rest: a level of distinct answers costs a few responses per candidate.
  const fitOf = (l: Level) => l.episodes.filter((_, i) => i % 2 === 0);
  const screen = await scoreConstants(run, levels.flatMap((l) => fitOf(l).slice(0, SCREEN).map((episode) => ({ episode, candidates: l.candidates }))));
  let k = 0;
  const wins = levels.map((l) => {
    const rows = fitOf(l).slice(0, SCREEN).map(() => screen[k++] as number[]);
    return l.candidates.map((_, c) => rows.reduce((a, r) => a + (r[c] ?? 0), 0));
  });
  const survivors = levels.map((l, i) => l.candidates.flatMap((c, j) => (j < 2 || (wins[i]?.[j] ?? 0) > 0 ? [c] : [])));
  const rest = await scoreConstants(run, levels.flatMap((l, i) => fitOf(l).slice(SCREEN).map((episode) => ({ episode, candidates: survivors[i] as string[] }))));
  k = 0;
  levels.forEach((l, i) => {
    const rows = fitOf(l).slice(SCREEN).map(() => rest[k++] as number[]);
    const total = l.candidates.map((c, j) => {
      const at = (survivors[i] as string[]).indexOf(c);
      return (wins[i]?.[j] ?? 0) + (at < 0 ? 0 : rows.reduce((a, r) => a + (r[at] ?? 0), 0));
    });
    l.ranked = l.candidates.map((_, c) => c).sort((a, b) => (total[b] as number) - (total[a] as number) || a - b);
    if (l.candidates.length) l.constant = l.candidates[l.ranked[0] as number];
  });
  const testAsks = levels.flatMap((l) => l.episodes.filter((_, i) => i % 2 === 1).map((episode) => ({ episode, candidates: l.constant !== undefined ? [l.constant] : [] })));
  const testRows = await scoreConstants(run, testAsks);
  k = 0;
  for (const l of levels) {
    const tested = l.episodes.filter((_, i) => i % 2 === 1).map((e) => ({ e, row: testRows[k++] as number[] }));
    if (l.constant === undefined) continue;
    l.trials.set('constant', tested.map(({ e, row }) => ({ level: e.level, win: row[0] ?? 0, chance: l.nominal })));
    l.first = mean(tested.map(({ row }) => row[0] ?? 0));
  }
}

/**
 * Levels where a policy looks strong draw more instances: the two best
 * candidates are fitted on one half of them all and scored on the other, both ways (the candidates' own
 * instances left out), and the list guesses are scored on the new instances too.
 */
async function extend(ctx: SingleTurnContext, run: Run, l: Level, listScores: Map<Episode, Map<string, { score: number; chance: number }>>, multipleChoice: boolean, guesses: (e: Episode) => Probe[]): Promise<void> {
  const o = ctx.stage.options;
  const more = await ctx.moreInstances(l.level, (multipleChoice ? o.choiceSamplesPerLevel : o.guessSamplesPerLevel) - l.episodes.length);
  const top = l.ranked.slice(0, 2).map((c) => l.candidates[c] as string);
  const sources = new Set(top.map(normalizeAnswer));
  const all = [...l.episodes, ...more].filter((e) => !sources.has(contentOf(e)) || !l.episodes.includes(e) || l.episodes.indexOf(e) % 2 === 1);
  const [rows, lists] = await Promise.all([scoreConstants(run, all.map((episode) => ({ episode, candidates: top }))), run(more.map((e) => ({ seed: e.seed, level: e.level, probes: guesses(e) })))]);
  if (top.length) {
    const halves = [0, 1].map((h) => best(rows.filter((_, i) => i % 2 === h), top.length));
    l.trials.set('constant', all.map((e, i) => ({ level: e.level, win: (rows[i] as number[])[halves[(i + 1) % 2] as number] ?? 0, chance: l.nominal })));
    l.constant = top[halves[0] as number];
    l.first = mean((l.trials.get('constant') as Trial[]).map((t) => t.win));
  }
  // A drawn instance comes back on an episode object of its own run: its outcomes are kept under the drawn one.
  more.forEach((e, i) => record(listScores, lists[i]?.outcomes ?? [], e));
  const everyone = [...l.episodes, ...more];
  for (const s of l.trials.keys()) if (s !== 'constant') l.trials.set(s, trialsOf(s, everyone, listScores));
}

type Scores = Map<Episode, Map<string, { score: number; chance: number }>>;

function record(scores: Scores, outcomes: readonly JudgedOutcome[], episode?: Episode): void {
  for (const x of outcomes) scores.set(episode ?? x.episode, (scores.get(episode ?? x.episode) ?? new Map()).set(x.probe.form, { score: x.failure ? 0 : FULL_PASS_ONLY.has(x.probe.form) ? (x.score >= 1 ? 1 : 0) : x.score, chance: x.probe.chance ?? 0 }));
}

/**
 * A prompt strategy's trials over every instance of `episodes`: a policy does not see the answer's shape, so an
 * instance where the strategy was not sent (a single answer where it writes a list) is one it does not win.
 */
function trialsOf(s: string, episodes: Episode[], scores: Scores): Trial[] {
  return episodes.map((e) => {
    const got = scores.get(e)?.get(s);
    return { level: e.level, win: got?.score ?? 0, chance: got?.chance ?? 0 };
  });
}

export const guessingCheck: SingleTurnCheck = {
  name: 'guessing',
  codes: ['E_ACCEPTS_CONSTANT', 'E_ACCEPTS_GUESSING'],
  kinds: ['single'],
  plan(ctx) {
    const listed = answerList(ctx.stage.episodes);
    // Every answer of the level at once wins only where answers repeat: levels of distinct answers skip it.
    const scalar = ctx.stage.episodes.every((e) => shapeOf(answerContent(e.reference)).kind !== 'list');
    const repeats = new Set([...ctx.byLevel].filter(([, list]) => new Set(list.map(contentOf)).size < list.length).map(([level]) => level));
    const guesses = (e: Episode) => promptGuesses(e, listed, scalar && repeats.has(e.level) ? otherAnswers(e, ctx.byLevel.get(e.level) ?? []) : undefined);
    const requests = ctx.stage.episodes.map((e) => ({ seed: e.seed, level: e.level, probes: guesses(e) })).filter((r) => r.probes.length > 0);
    return {
      requests,
      async judge(results, tools) {
        const o = ctx.stage.options;
        const listScores: Scores = new Map();
        for (const r of results) record(listScores, r.outcomes);
        // Nominal chance of a free answer: 1/K for a handful of answers seen (a few categories), else zero.
        const distinct = new Set(ctx.stage.episodes.map(contentOf)).size;
        const nominalFree = distinct <= 10 ? 1 / distinct : 0;
        // Multiple choice: options the reference names (numbered steps of a task are no options).
        const cases = choiceCases(ctx.stage.episodes);
        const multipleChoice = cases.filter(Boolean).length >= 0.8 * ctx.stage.episodes.length;
        const optionsOf = new Map(ctx.stage.episodes.map((e, i) => [e, cases[i]?.choices.labels.length ?? 1]));
        const tolerance = (s: string) => (multipleChoice && s !== 'printed list' ? o.choiceGuessTolerance : s === 'constant' && nominalFree > 0 ? o.classGuessTolerance : o.guessTolerance);
        const levels: Level[] = [...ctx.byLevel].map(([level, episodes]) => {
          const nominal = multipleChoice ? mean(episodes.map((e) => 1 / (optionsOf.get(e) ?? 1))) : nominalFree;
          const trials = new Map<string, Trial[]>();
          for (const s of Object.keys(WHAT)) if (s !== 'constant' && episodes.some((e) => listScores.get(e)?.has(s))) trials.set(s, trialsOf(s, episodes, listScores));
          return { level, episodes, nominal, candidates: [], ranked: [], trials, first: 0 };
        });
        await searchConstants(ctx, tools.run, levels, acceptedVariants(tools.all()));
        // A policy that only looks strong is judged on more instances (a constant letter of multiple choice is also a
        // position rule of the readers, judged there on more instances without sending anything).
        const trigger = (s: string) => (multipleChoice ? o.guessTolerance : tolerance(s));
        // One lucky win among ten is no sign: a policy looks strong on at least two wins beyond chance.
        const beyond = (t: Trial[]) => t.reduce((a, x) => a + x.win - x.chance, 0);
        const strong = (l: Level) => [...l.trials].some(([s, t]) => (undecided(t, trigger(s), o.guessZ) && beyond(t) >= 2) || mean(t.map((x) => x.win - x.chance)) >= 0.5);
        await Promise.all(levels.filter(strong).map((l) => extend(ctx, tools.run, l, listScores, multipleChoice, guesses)));
        const findings: Finding[] = [];
        for (const s of Object.keys(WHAT)) {
          const trials = levels.flatMap((l) => l.trials.get(s) ?? []);
          if (trials.length === 0) continue;
          const constants = new Map(levels.map((l) => [l.level, l.constant]));
          findings.push({ rule: 'rate', code: s === 'constant' ? 'E_ACCEPTS_CONSTANT' : 'E_ACCEPTS_GUESSING', check: 'guessing', policy: WHAT[s] as string, trials, tolerance: { level: tolerance(s), pooled: tolerance(s) }, z: o.guessZ, minTrials: o.guessMinSamples, evidence: (level) => ({ strategy: s, ...(s === 'constant' && level !== null ? { constant: (constants.get(level) ?? '').slice(0, 80) } : {}) }) });
        }
        const constantByLevel = Object.fromEntries(levels.map((l) => [l.level, l.first]));
        const summary = levels.map((l) => ({ level: l.level, samples: Math.max(0, ...[...l.trials.values()].map((t) => t.length)), candidates: l.candidates.length, ...(l.constant !== undefined ? { constant: l.constant.slice(0, 40) } : {}), wins: Object.fromEntries([...l.trials].map(([s, t]) => [s, Number(mean(t.map((x) => x.win)).toFixed(3))])) }));
        return { findings, metrics: { levels: summary, constantByLevel } };
      },
    };
  },
};

/** Per instance: contents the verifier accepted on it besides the reference (another order, another rendering). */
function acceptedVariants(all: readonly ProbeResult[]): Map<Episode, string[]> {
  const out = new Map<Episode, string[]>();
  for (const r of all) {
    for (const x of r.outcomes) {
      if (!x.probe.variant || x.failure || x.score < scoreOf(x.episode.referenceVerdict)) continue;
      const content = answerContent(x.probe.response);
      if (normalizeAnswer(content) !== contentOf(x.episode)) out.set(x.episode, [...(out.get(x.episode) ?? []), content]);
    }
  }
  return out;
}
