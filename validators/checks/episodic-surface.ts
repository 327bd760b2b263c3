// The unused call surface searched as a whole: each cheap policy of validators/episodic/surface.ts (an unused
// tool, or an unused optional argument, applied to every entity, then the finish) is played on the adversary
// episodes beside the finishing call alone; so is each unused tool or argument composed with the reference's plan on
// the entities it leaves (surface-compose.ts), beside that plan alone. A policy wins an episode where it earns the
// reference's score and more than its control, and a policy that wins above chance (the rate rule) is a shortcut.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { composedLogs } from '../episodic/surface-compose.js';
import { moving, repeatedRuns, stretched, touchUntilFixed } from '../episodic/fixed-point.js';
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

/** The sends of each unused call in the composed logs that repeat it, before any is sent more. */
const TWICE = 2;

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
        ...alone.map((log) => ({ of, log, sends: 1, head: 0, control: finishAlone(ctx, of) })),
        ...[
          ...composedLogs(ctx.meta, r, used, o.surfaceEntities, o.surfaceComposedPerEpisode).map((log) => ({
            ...log,
            sends: 1,
          })),
          ...composedLogs(ctx.meta, r, used, o.surfaceEntities, o.surfaceComposedTwicePerEpisode, TWICE).map((log) => ({
            ...log,
            sends: TWICE,
          })),
        ]
          .filter((log) => !played.has(JSON.stringify(log.actions)))
          .map((log) => ({
            of,
            log,
            sends: log.sends,
            head: log.actions.length - log.control.length,
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
    const requests = [
      ...controls,
      ...logs.map(({ of, log, sends }) =>
        replayOf(ctx.refs[of] as Rollout, log.actions, sends > 1 ? { observations: true, hashes: true } : {}),
      ),
    ];
    // A composed log sending each unused call twice whose reply or state still moves at a call's last send is played
    // again with the sends doubled, up to `touchBound` (fixed-point.ts: a flag, a confirmation, then the act).
    type Played = (typeof logs)[number];
    const resent = (l: Played, times: number): SurfaceLog => ({
      policy: `${l.log.policy} (each unused call sent ${times} times: its reply or state moved)`,
      actions: [...stretched(l.log.actions.slice(0, l.head), times), ...l.log.actions.slice(l.head)],
    });
    const moves = (l: Played, times: number, r: RolloutResult | undefined) =>
      repeatedRuns(stretched(l.log.actions.slice(0, l.head), times)).some((run) => moving(r, run));
    return {
      requests,
      async judge(outcomes, tools) {
        const control = new Map(controls.map((c, k) => [c, scoreOf(outcomes[k])]));
        const trial = (l: Played, log: SurfaceLog, r: RolloutResult | undefined) => ({
          of: l.of,
          log,
          score: scoreOf(r),
          control: control.get(l.control) ?? 0,
        });
        const more = await touchUntilFixed(
          logs.filter((l, k) => l.sends > 1 && moves(l, l.sends, outcomes[controls.length + k])),
          {
            from: TWICE,
            bound: o.touchBound,
            play: (l, times) => {
              const log = resent(l, times);
              return log.actions.length > ctx.meta.maxTurns
                ? null
                : replayOf(ctx.refs[l.of] as Rollout, log.actions, { observations: true, hashes: true });
            },
            moves,
            run: tools.run,
          },
        );
        const trials = [
          ...logs.map((l, k) => trial(l, l.log, outcomes[controls.length + k])),
          ...more.map(({ probe, times, outcome }) => trial(probe, resent(probe, times), outcome)),
        ];
        const { findings, policies, bestWinRate } = judgeSurface(ctx, trials, 'episodic-surface');
        return { findings, metrics: { policies, rollouts: requests.length + more.length, bestWinRate } };
      },
    };
  },
};
