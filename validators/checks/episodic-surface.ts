// The unused call surface searched as a whole: each cheap policy of validators/episodic/surface.ts (an unused
// tool, or an unused optional argument, applied to every entity, then the finish) is played on the adversary
// episodes beside the finishing call alone; so is each unused tool or argument composed with the reference's plan on
// the entities it leaves (surface-compose.ts), beside that plan alone. A policy wins an episode where it earns the
// reference's score and more than its control, and a policy that wins above chance (the rate rule) is a shortcut.
import type { Rollout, RolloutRequest } from '../../sandbox/rollouts.js';
import { composedLogs } from '../episodic/surface-compose.js';
import { surfaceLogs, usedSurface, type SurfaceLog } from '../episodic/surface.js';
import { replayOf, scoreOf, type EpisodicCheck, type EpisodicContext } from './episodic.js';
import type { Finding } from './rules.js';

/** One play of a surface policy: its episode, its log, its score and its control's score. */
export interface SurfaceTrial {
  of: number;
  log: SurfaceLog;
  score: number;
  control: number;
}

/** The rate findings of surface policies, one per policy, pooled over the adversary episodes it was played on. */
export function judgeSurface(ctx: EpisodicContext, trials: readonly SurfaceTrial[], check: string) {
  const o = ctx.options;
  const byPolicy = new Map<string, Array<SurfaceTrial & { win: number }>>();
  for (const t of trials) {
    const r = ctx.refs[t.of] as Rollout;
    // A win: the reference's score, reached by the policy itself (its control earns less).
    const win = r.score >= o.zeroToleranceCeiling && t.score >= r.score - 1e-6 && t.score > t.control + 1e-6 ? 1 : 0;
    byPolicy.set(t.log.policy, [...(byPolicy.get(t.log.policy) ?? []), { ...t, win }]);
  }
  const findings: Finding[] = [...byPolicy].map(([policy, played]) => {
    const best = played.find((t) => t.win === 1) ?? (played[0] as (typeof played)[number]);
    const r = ctx.refs[best.of] as Rollout;
    return {
      rule: 'rate',
      code: 'E_ACCEPTS_SHORTCUT',
      check,
      policy: `the unused call surface: ${policy.slice(0, 160)}, then the finishing call`,
      trials: played.map((t) => ({ level: (ctx.refs[t.of] as Rollout).level, win: t.win, chance: 0 })),
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
        control: best.control,
        actions: JSON.stringify(best.log.actions.slice(0, 6)).slice(0, 400),
      }),
    };
  });
  const wins = [...byPolicy.values()].map((t) => t.filter((x) => x.win).length / t.length);
  return { findings, policies: byPolicy.size, bestWinRate: Math.max(0, ...wins) };
}

/** The finishing call alone on reference `of`'s episode (one request, shared by the checks that compare with it). */
export const finishAlone = (ctx: EpisodicContext, of: number): RolloutRequest =>
  ctx.shared(`surface-finish:${of}`, () => {
    const r = ctx.refs[of] as Rollout;
    return replayOf(r, [r.actions.at(-1)]);
  });

export const episodicSurface: EpisodicCheck = {
  name: 'episodic-surface',
  codes: ['E_ACCEPTS_SHORTCUT'],
  kinds: ['episodic'],
  plan(ctx) {
    const o = ctx.options;
    const used = usedSurface(ctx.refs);
    // The unused surface alone (its control: the finish alone), and composed with the plan (its control: the plan).
    // A composed log the surface already plays on that episode (the tool on every entity where every reference call
    // names one, so the plan left is the finish) is played once.
    const logs = ctx.adversaryEpisodes().flatMap((of) => {
      const r = ctx.refs[of] as Rollout;
      const alone = surfaceLogs(ctx.meta, r, used, o.surfaceEntities, o.surfaceLogsPerEpisode);
      const played = new Set(alone.map((log) => JSON.stringify(log.actions)));
      return [
        ...alone.map((log) => ({ of, log, control: finishAlone(ctx, of) })),
        ...[
          ...composedLogs(ctx.meta, r, used, o.surfaceEntities, o.surfaceComposedPerEpisode),
          ...composedLogs(ctx.meta, r, used, o.surfaceEntities, o.surfaceComposedTwicePerEpisode, 2),
        ]
          .filter((log) => !played.has(JSON.stringify(log.actions)))
          .map((log) => ({
            of,
            log,
            // The plan left is the finish alone where every reference call names an entity the tool took.
            control:
              log.control.length === 1
                ? finishAlone(ctx, of)
                : ctx.shared(`surface-restricted:${of}:${JSON.stringify(log.control)}`, () => replayOf(r, log.control)),
          })),
      ];
    });
    if (logs.length === 0) return null;
    const controls = [...new Set(logs.map((l) => l.control))];
    const requests = [...controls, ...logs.map(({ of, log }) => replayOf(ctx.refs[of] as Rollout, log.actions))];
    return {
      requests,
      judge(outcomes) {
        const control = new Map(controls.map((c, k) => [c, scoreOf(outcomes[k])]));
        const trials = logs.map(({ of, log, control: c }, k) => ({
          of,
          log,
          score: scoreOf(outcomes[controls.length + k]),
          control: control.get(c) ?? 0,
        }));
        const { findings, policies, bestWinRate } = judgeSurface(ctx, trials, 'episodic-surface');
        return { findings, metrics: { policies, rollouts: requests.length, bestWinRate } };
      },
    };
  },
};
