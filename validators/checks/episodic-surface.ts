// The unused call surface searched as a whole: each cheap policy of validators/episodic/surface.ts (an unused
// tool, or an unused optional argument, applied to every entity, then the finish) is played on the adversary
// episodes beside the finishing call alone; it wins an episode where it earns the reference's score and more
// than the finish alone, and a policy that wins above chance (the rate rule) is a shortcut. The words the text
// names for a used free-string argument (validators/episodic/suggested.ts) are judged the same way.
import type { Rollout } from '../../sandbox/rollouts.js';
import { suggestedLogs } from '../episodic/suggested.js';
import { surfaceLogs, usedSurface, type SurfaceLog } from '../episodic/surface.js';
import { replayOf, scoreOf, type EpisodicCheck } from './episodic.js';
import type { Finding } from './rules.js';

export const episodicSurface: EpisodicCheck = {
  name: 'episodic-surface',
  codes: ['E_ACCEPTS_SHORTCUT'],
  kinds: ['episodic'],
  plan(ctx) {
    const o = ctx.options;
    const used = usedSurface(ctx.refs);
    // The unused surface, and the values the text names for a used free-string argument that nobody sends.
    const logs = ctx
      .adversaryEpisodes()
      .flatMap((of) =>
        [
          ...surfaceLogs(ctx.meta, ctx.refs[of] as Rollout, used, o.surfaceEntities, o.surfaceLogsPerEpisode),
          ...suggestedLogs(ctx.meta, ctx.refs[of] as Rollout, used.values, o.suggestedWords),
        ].map((log) => ({ of, log })),
      );
    if (logs.length === 0) return null;
    const episodes = [...new Set(logs.map((l) => l.of))];
    const control = (of: number) =>
      ctx.shared(`surface-finish:${of}`, () => {
        const r = ctx.refs[of] as Rollout;
        return replayOf(r, [r.actions.at(-1)]);
      });
    const requests = [
      ...episodes.map(control),
      ...logs.map(({ of, log }) => replayOf(ctx.refs[of] as Rollout, log.actions)),
    ];
    return {
      requests,
      judge(outcomes) {
        const alone = new Map(episodes.map((of, k) => [of, scoreOf(outcomes[k])]));
        const byPolicy = new Map<string, Array<{ of: number; log: SurfaceLog; score: number; win: number }>>();
        logs.forEach(({ of, log }, k) => {
          const r = ctx.refs[of] as Rollout;
          const score = scoreOf(outcomes[episodes.length + k]);
          // A win: the reference's score, reached by the unused surface itself (the finish alone earns less).
          const win =
            r.score >= o.zeroToleranceCeiling && score >= r.score - 1e-6 && score > (alone.get(of) ?? 0) + 1e-6 ? 1 : 0;
          byPolicy.set(log.policy, [...(byPolicy.get(log.policy) ?? []), { of, log, score, win }]);
        });
        const findings: Finding[] = [...byPolicy].map(([policy, trials]) => {
          const best = trials.find((t) => t.win === 1) ?? (trials[0] as (typeof trials)[number]);
          const r = ctx.refs[best.of] as Rollout;
          return {
            rule: 'rate',
            code: 'E_ACCEPTS_SHORTCUT',
            check: 'episodic-surface',
            policy: `the unused call surface: ${policy.slice(0, 120)}, then the finishing call`,
            trials: trials.map((t) => ({ level: (ctx.refs[t.of] as Rollout).level, win: t.win, chance: 0 })),
            // Pooled over the adversary episodes (two a level are too few to judge a level alone).
            tolerance: { pooled: o.ratePassCeiling },
            z: o.rateMeanZ,
            minTrials: 1,
            evidence: () => ({
              family: 'unused-surface',
              seed: r.seed,
              level: r.level,
              reference: r.score,
              score: best.score,
              finishAlone: alone.get(best.of) ?? 0,
              actions: JSON.stringify(best.log.actions.slice(0, 6)).slice(0, 400),
            }),
          };
        });
        const wins = [...byPolicy.values()].map((t) => t.filter((x) => x.win).length / t.length);
        return {
          findings,
          metrics: { policies: byPolicy.size, rollouts: requests.length, bestWinRate: Math.max(0, ...wins) },
        };
      },
    };
  },
};
