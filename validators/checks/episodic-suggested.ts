// The values any text the agent can see names for a free-string decision argument (validators/episodic/suggested.ts):
// a survey of each level's first adversary episode gathers the replies, the ranked words are screened by one blanket
// each on one episode (beside the unknown value's blanket: a word that earns more, or leaves another state, is kept),
// and the words kept are played as blankets on every adversary episode, judged as the unused surface.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { axesOf } from '../episodic/adversaries-values.js';
import {
  entityValues,
  freeArgs,
  PLACEHOLDER,
  suggestedLog,
  suggestedWords,
  surveyLog,
  treatedApart,
} from '../episodic/suggested.js';
import { usedSurface } from '../episodic/surface.js';
import { replayOf, scoreOf, type EpisodicCheck } from './episodic.js';
import { finishAlone, judgeSurface } from './episodic-surface.js';

export const episodicSuggested: EpisodicCheck = {
  name: 'episodic-suggested',
  codes: ['E_ACCEPTS_SHORTCUT'],
  kinds: ['episodic'],
  plan(ctx) {
    const o = ctx.options;
    const refs = ctx.refs as Rollout[];
    const used = usedSurface(refs);
    const args = freeArgs(ctx.meta, refs, used);
    const episodes = ctx.adversaryEpisodes();
    if (args.length === 0 || episodes.length === 0) return null;
    const levels = new Map<number, number>();
    for (const of of episodes)
      if (!levels.has((refs[of] as Rollout).level)) levels.set((refs[of] as Rollout).level, of);
    const surveyed = [...levels.values()];
    const axes = axesOf(ctx.meta, refs);
    const surveys = surveyed.map((of) =>
      replayOf(refs[of] as Rollout, surveyLog(ctx.meta, refs[of] as Rollout, args, axes, o.suggestedSurveyCalls), {
        observations: true,
      }),
    );
    const controls = episodes.map((of) => finishAlone(ctx, of));
    const exclude = ctx.meta.tools.flatMap((t) => [t.name, ...Object.keys(t.parameters.properties ?? {})]);
    const ids = entityValues(refs);
    return {
      requests: [...surveys, ...controls],
      async judge(outcomes, tools) {
        // The shared text, then per surveyed episode its prompt, the reference's replies and the survey's.
        const groups = [
          [ctx.meta.description, ...ctx.meta.tools.map((t) => t.description)],
          ...surveyed.map((of, k) => {
            const survey = outcomes[k];
            const r = refs[of] as Rollout;
            return [r.prompt ?? '', ...(r.observations ?? []), ...(survey?.ok ? (survey.observations ?? []) : [])];
          }),
        ];
        // Screen: per argument, on the highest level surveyed where it is a decision, the unknown value's blanket,
        // then each word's; a word is kept where its blanket earns more or leaves another state (the word aside).
        const screened: Array<{ arg: number; word: string; request: RolloutRequest }> = [];
        args.forEach((a, i) => {
          const words = suggestedWords(a.arg, a.description, groups, a.sent, o.suggestedScreen, exclude, ids).filter(
            (w) => a.maxLength === undefined || w.length <= a.maxLength,
          );
          const blanket = (of: number, word: string) =>
            suggestedLog(ctx.meta, refs[of] as Rollout, a, word, used.values);
          const of = [...surveyed].reverse().find((e) => blanket(e, PLACEHOLDER) !== null);
          if (of === undefined) return;
          for (const word of [PLACEHOLDER, ...words]) {
            const log = blanket(of, word);
            if (log)
              screened.push({ arg: i, word, request: replayOf(refs[of] as Rollout, log.actions, { keepState: true }) });
          }
        });
        const screenedOut = await tools.run(screened.map((s) => s.request));
        const unknown = new Map(
          screened.flatMap((s, k) => (s.word === PLACEHOLDER ? [[s.arg, screenedOut[k] as RolloutResult]] : [])),
        );
        const apart = new Map<string, { arg: number; word: string }>();
        screened.forEach((s, k) => {
          const [mine, base] = [screenedOut[k], unknown.get(s.arg)];
          if (s.word === PLACEHOLDER || !mine?.ok || !base?.ok) return;
          if (mine.score > base.score + 1e-6 || treatedApart(s.word, mine.stateText, base.stateText))
            apart.set(`${s.arg}:${s.word.toLowerCase()}`, { arg: s.arg, word: s.word });
        });
        const chosen = [...apart.values()].slice(0, o.suggestedWords);
        const logs = chosen.flatMap(({ arg, word }) =>
          episodes.flatMap((of, e) => {
            const log = suggestedLog(
              ctx.meta,
              refs[of] as Rollout,
              args[arg] as (typeof args)[number],
              word,
              used.values,
            );
            return log ? [{ of, log, e }] : [];
          }),
        );
        const played = await tools.run(logs.map(({ of, log }) => replayOf(refs[of] as Rollout, log.actions)));
        const trials = logs.map(({ of, log, e }, k) => ({
          of,
          log,
          score: scoreOf(played[k]),
          control: scoreOf(outcomes[surveys.length + e]),
        }));
        const { findings, bestWinRate } = judgeSurface(ctx, trials, 'episodic-suggested');
        return {
          findings,
          metrics: { screened: screened.length, apart: apart.size, played: logs.length, bestWinRate },
        };
      },
    };
  },
};
