// Cheap policies searched, not sampled, per level: the best constant over the level's references, the
// variants of them the verifier accepted, their short forms in both cases and a few small constants, fitted
// on half the level's instances and scored on the other half (constant-search.ts; a verifier accepting
// several valid answers has a best constant that wins far more than the most common reference); and the
// prompt strategies (prompt-guesses.ts: the printed list, listed items one or all at once, every answer of
// the level at once). Each is judged per level and pooled against nominal chance (1/K among K classes,
// options or listed items, else none); a level where a policy only looks strong draws more instances
// before its verdict.
import { scoreOf, type Episode } from '../../sandbox/episodes.js';
import { answerContent } from '../../sandbox/answer.js';
import { normalizeAnswer, shapeOf } from '../answers.js';
import { mean } from '../context.js';
import type { Probe } from '../probe-types.js';
import { choiceCases } from '../choice-rules.js';
import { answerList, otherAnswers, promptGuesses } from '../prompt-guesses.js';
import type { JudgedOutcome } from '../hack-checks.js';
import { undecided, type Finding, type Trial } from './rules.js';
import type { ProbeResult, SingleTurnCheck, SingleTurnContext } from './single-turn.js';
import { best, contentOf, scoreConstants, searchConstants, type Level, type Run } from './constant-search.js';

/** The prompt strategies (prompt-guesses.ts) by form, and how the message names them. */
const WHAT: Record<string, string> = {
  constant:
    "one fixed answer (the best of the level's answers, their accepted variants, their short forms in either " +
    'case and small constants, fitted on half the instances)',
  'printed list': 'answering with the list the prompt prints (every option, or the input copied)',
  'input copied': "the answer's items copied in the order the prompt gives them",
  'every prompt token': "every token of the prompt of the answer's kind, listed",
  'the first listed item': 'the first item the prompt lists',
  'the last listed item': 'the last item the prompt lists',
  'every listed item at once': 'every item the prompt lists, at once',
  "every answer of the level's other instances at once": "every answer the level's other instances have, at once",
};
/**
 * Guesses read from the prompt's tokens whatever its layout: only full passes count (partial credit for a copy
 * is the task's own).
 */
const FULL_PASS_ONLY = new Set(['input copied', 'every prompt token']);

/**
 * Levels where a policy looks strong draw more instances: the two best
 * candidates are fitted on one half of them all and scored on the other, both ways (the candidates' own
 * instances left out), and the list guesses are scored on the new instances too.
 */
async function extend(
  ctx: SingleTurnContext,
  run: Run,
  l: Level,
  listScores: Map<Episode, Map<string, { score: number; chance: number }>>,
  multipleChoice: boolean,
  guesses: (e: Episode) => Probe[],
): Promise<void> {
  const o = ctx.stage.options;
  const more = await ctx.moreInstances(
    l.level,
    (multipleChoice ? o.choiceSamplesPerLevel : o.guessSamplesPerLevel) - l.episodes.length,
  );
  const top = l.ranked.slice(0, 2).map((c) => l.candidates[c] as string);
  const sources = new Set(top.map(normalizeAnswer));
  const all = [...l.episodes, ...more].filter(
    (e) => !sources.has(contentOf(e)) || !l.episodes.includes(e) || l.episodes.indexOf(e) % 2 === 1,
  );
  const [rows, lists] = await Promise.all([
    scoreConstants(
      run,
      all.map((episode) => ({ episode, candidates: top })),
    ),
    run(more.map((e) => ({ seed: e.seed, level: e.level, probes: guesses(e) }))),
  ]);
  if (top.length) {
    const halves = [0, 1].map((h) =>
      best(
        rows.filter((_, i) => i % 2 === h),
        top.length,
      ),
    );
    l.trials.set(
      'constant',
      all.map((e, i) => ({
        level: e.level,
        win: (rows[i] as number[])[halves[(i + 1) % 2] as number] ?? 0,
        chance: l.nominal,
      })),
    );
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
  for (const x of outcomes)
    scores.set(
      episode ?? x.episode,
      (scores.get(episode ?? x.episode) ?? new Map()).set(x.probe.form, {
        score: x.failure ? 0 : FULL_PASS_ONLY.has(x.probe.form) ? (x.score >= 1 ? 1 : 0) : x.score,
        chance: x.probe.chance ?? 0,
      }),
    );
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
    const repeats = new Set(
      [...ctx.byLevel].filter(([, list]) => new Set(list.map(contentOf)).size < list.length).map(([level]) => level),
    );
    const guesses = (e: Episode) =>
      promptGuesses(
        e,
        listed,
        scalar && repeats.has(e.level) ? otherAnswers(e, ctx.byLevel.get(e.level) ?? []) : undefined,
      );
    const requests = ctx.stage.episodes
      .map((e) => ({ seed: e.seed, level: e.level, probes: guesses(e) }))
      .filter((r) => r.probes.length > 0);
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
        const tolerance = (s: string) =>
          multipleChoice && s !== 'printed list'
            ? o.choiceGuessTolerance
            : s === 'constant' && nominalFree > 0
              ? o.classGuessTolerance
              : o.guessTolerance;
        const levels: Level[] = [...ctx.byLevel].map(([level, episodes]) => {
          const nominal = multipleChoice ? mean(episodes.map((e) => 1 / (optionsOf.get(e) ?? 1))) : nominalFree;
          const trials = new Map<string, Trial[]>();
          for (const s of Object.keys(WHAT))
            if (s !== 'constant' && episodes.some((e) => listScores.get(e)?.has(s)))
              trials.set(s, trialsOf(s, episodes, listScores));
          return { level, episodes, nominal, candidates: [], ranked: [], trials, first: 0 };
        });
        await searchConstants(ctx, tools.run, levels, acceptedVariants(tools.all()));
        // A policy that only looks strong is judged on more instances (a constant letter of multiple choice is also a
        // position rule of the readers, judged there on more instances without sending anything).
        const trigger = (s: string) => (multipleChoice ? o.guessTolerance : tolerance(s));
        // One lucky win among ten is no sign: a policy looks strong on at least two wins beyond chance.
        const beyond = (t: Trial[]) => t.reduce((a, x) => a + x.win - x.chance, 0);
        // The fitted constant also looks strong where it won that much on its fitting half: a small level's halves may
        // have fitted a rarer answer than the common one (a constant winning 45% of level 1 went unseen at seed 8020).
        const fitStrong = ({ fitWins: f, nominal }: Level) =>
          f !== undefined && f.won - f.of * nominal >= 2 && f.won / f.of - nominal >= trigger('constant');
        const strong = (l: Level) =>
          fitStrong(l) ||
          [...l.trials].some(
            ([s, t]) =>
              (undecided(t, trigger(s), o.guessZ) && beyond(t) >= 2) || mean(t.map((x) => x.win - x.chance)) >= 0.5,
          );
        await Promise.all(
          levels.filter(strong).map((l) => extend(ctx, tools.run, l, listScores, multipleChoice, guesses)),
        );
        const findings: Finding[] = [];
        for (const s of Object.keys(WHAT)) {
          const trials = levels.flatMap((l) => l.trials.get(s) ?? []);
          if (trials.length === 0) continue;
          const constants = new Map(levels.map((l) => [l.level, l.constant]));
          findings.push({
            rule: 'rate',
            code: s === 'constant' ? 'E_ACCEPTS_CONSTANT' : 'E_ACCEPTS_GUESSING',
            check: 'guessing',
            policy: WHAT[s] as string,
            trials,
            tolerance: { level: tolerance(s), pooled: tolerance(s) },
            z: o.guessZ,
            minTrials: o.guessMinSamples,
            evidence: (level) => ({
              strategy: s,
              ...(s === 'constant' && level !== null ? { constant: (constants.get(level) ?? '').slice(0, 80) } : {}),
            }),
          });
        }
        const constantByLevel = Object.fromEntries(levels.map((l) => [l.level, l.first]));
        const summary = levels.map((l) => ({
          level: l.level,
          samples: Math.max(0, ...[...l.trials.values()].map((t) => t.length)),
          candidates: l.candidates.length,
          ...(l.constant !== undefined ? { constant: l.constant.slice(0, 40) } : {}),
          wins: Object.fromEntries([...l.trials].map(([s, t]) => [s, Number(mean(t.map((x) => x.win)).toFixed(3))])),
        }));
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
      if (normalizeAnswer(content) !== contentOf(x.episode))
        out.set(x.episode, [...(out.get(x.episode) ?? []), content]);
    }
  }
  return out;
}
