// Calls off the reference's path: a wrong value of a computed numeric argument (zero, and values either side),
// and a tool the reference never calls, must not be answered with the reference's computed value (or its
// difference to the value sent), nor with "too high" / "too low" that a bisection turns into the value.
// Both are rates over the probed episodes, judged against a ceiling (chance: none).
import type { EpisodicMeta } from '../../contract/episodic.js';
import { runRollouts, type Rollout, type RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, numbersOf, offPathCall, type OffPath, type Target } from '../episodic/adversaries.js';
import { entityShown } from '../episodic/copies.js';
import { derivedFromShown, type ShownSample } from '../episodic/shown-derivation.js';
import { toldOf } from '../episodic/told.js';
import { adversaryFamily } from './episodic-ablation.js';
import { fixedProbes, type ScoredProbe } from './episodic-baselines.js';
import type { EpisodicCheck, EpisodicContext } from './episodic.js';
import type { Finding } from './rules.js';

/** An observation with its numbers masked: what stays is what a value's side can change ("too high", "too low"). */
export const shapeOf = (text: string) => text.replace(/-?\$?\d[\d,]*(?:\.\d+)?/g, '#');

/** Every scalar of the initial state, as text. */
function storedOf(initial: RolloutResult | undefined): Set<string> {
  const stored = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
    else stored.add(String(v).toLowerCase());
  };
  if (initial?.ok) walk(initial.state);
  return stored;
}
const argKey = (ref: Rollout, t: Target) => `${actionsOf(ref)[t.index]?.tool ?? ''}.${t.arg}`;

/**
 * Which targets a probe may not reveal: values the texts do not state (told.ts) and not small counts; a number the
 * initial state stores is the world's lookup (a price a refusal names: redteam-s20e honest-last-listed) unless the
 * references' values of that argument are derived from what their entities showed (shown-derivation.ts: a stored
 * answer, redteam-s21e T5, is judged as any computed value).
 */
function computedOf(ctx: EpisodicContext, probes: readonly ScoredProbe[], initial: Map<number, RolloutResult>) {
  const byKey = new Map<string, ShownSample[]>();
  const seen = new Set<string>();
  for (const s of probes) {
    const t = s.probe.offPath?.target;
    const ref = ctx.refs[s.probe.of] as Rollout;
    if (!t || seen.has(`${s.probe.of}|${t.index}|${t.arg}`)) continue;
    seen.add(`${s.probe.of}|${t.index}|${t.arg}`);
    const shown = entityShown(ref, ref.observations ?? [], t.index);
    const list = byKey.get(argKey(ref, t)) ?? [];
    list.push({ episode: s.probe.of, level: ref.level, value: t.value, shown, stated: toldOf(ref, ctx.meta).stated });
    byKey.set(argKey(ref, t), list);
  }
  const derived = new Set([...byKey].filter(([, samples]) => derivedFromShown(samples)).map(([key]) => key));
  const memo = new Map<number, { known: Set<string>; stored: Set<string> }>();
  return (i: number, t: Target): boolean => {
    const ref = ctx.refs[i] as Rollout;
    let given = memo.get(i);
    if (!given) memo.set(i, (given = { known: toldOf(ref, ctx.meta).known, stored: storedOf(initial.get(i)) }));
    const v = String(t.value).toLowerCase();
    return (
      !(Number.isInteger(t.value) && Math.abs(t.value) < 100) &&
      !given.known.has(v) &&
      (!given.stored.has(v) || derived.has(argKey(ref, t)))
    );
  };
}
const actionsText = (s: ScoredProbe) =>
  s.probe.request.policy.type === 'replay'
    ? JSON.stringify(s.probe.request.policy.actions.slice(0, 6)).slice(0, 400)
    : '';
type Comparator = { ref: Rollout; target: Target; low: string; high: string };

export const episodicOffPath: EpisodicCheck = {
  name: 'episodic-off-path',
  codes: ['E_ANSWER_LEAK'],
  kinds: ['episodic'],
  plan(ctx) {
    const offPath = adversaryFamily(ctx, 'off-path');
    if (offPath.length === 0) return null;
    const episodes = new Set(offPath.map((p) => p.of));
    const context = fixedProbes(ctx).filter(
      (p) => episodes.has(p.of) && (p.family === 'no-action' || p.family === 'shortcut'),
    );
    const probes = [...offPath, ...context];
    return {
      requests: probes.map((p) => p.request),
      async judge(outcomes) {
        const scored: ScoredProbe[] = probes.map((probe, i) => ({ probe, result: outcomes[i] as RolloutResult }));
        const initial = new Map(
          scored.filter((s) => s.probe.family === 'no-action').map((s) => [s.probe.of, s.result]),
        );
        const computed = computedOf(
          ctx,
          scored.filter((s) => s.probe.family === 'off-path'),
          initial,
        );
        const leaked: Array<{ episode: Rollout; hit: ScoredProbe | null }> = [];
        const bisect: Comparator[] = [];
        for (const i of episodes) {
          const ref = ctx.refs[i] as Rollout;
          // Only replies the agent can still act on count: a call that ends the episode leaks nothing usable.
          const mine = scored.filter(
            (s) =>
              s.probe.family === 'off-path' &&
              s.probe.of === i &&
              s.probe.offPath &&
              s.result.ok &&
              s.result.end !== 'done' &&
              computed(i, s.probe.offPath.target),
          );
          if (mine.length === 0) continue;
          const values = new Set(mine.map((s) => (s.probe.offPath as OffPath).target.value));
          const shows = (text: string, sent: number | null) =>
            numbersOf(text).some(
              (n) => values.has(n) || (sent !== null && (values.has(sent + n) || values.has(sent - n))),
            );
          const shortcuts = scored.filter(
            (s) =>
              s.probe.family === 'shortcut' &&
              s.probe.of === i &&
              s.result.ok &&
              (s.result.observations?.length ?? 0) > 1,
          );
          const hit =
            mine.find(
              (s) =>
                s.result.ok &&
                shows(s.result.observations?.[0] ?? '', s.probe.offPath?.side === 'zero' ? s.probe.offPath.sent : null),
            ) ?? shortcuts.find((s) => s.result.ok && shows(s.result.observations?.[0] ?? '', null));
          leaked.push({ episode: ref, hit: hit ?? null });
          // A comparator: every value below the reference's gets one reply, every value above another.
          for (const target of [...new Set(mine.map((s) => (s.probe.offPath as OffPath).target))]) {
            const side = (name: OffPath['side']) => [
              ...new Set(
                mine
                  .filter((s) => s.probe.offPath?.target === target && s.probe.offPath.side === name)
                  .map((s) => (s.result.ok ? shapeOf(s.result.observations?.[0] ?? '') : '\u0000')),
              ),
            ];
            const [low, high] = [side('low'), side('high')];
            if (low.length === 1 && high.length === 1 && low[0] !== high[0] && !low.includes('\u0000'))
              bisect.push({ ref, target, low: low[0] as string, high: high[0] as string });
          }
        }
        const found = await bisection(bisect, ctx);
        const rate = ctx.options.observationLeakMaxRate - 1e-9;
        const firstHit = leaked.find((x) => x.hit)?.hit;
        const findings: Finding[] = [
          {
            rule: 'rate',
            code: 'E_ANSWER_LEAK',
            check: 'episodic-off-path',
            policy:
              "a call off the reference's path (a wrong value, or a tool the reference never calls) answered " +
              "with the reference's computed value (or its difference to the value sent)",
            trials: leaked.map((x) => ({ level: x.episode.level, win: x.hit ? 1 : 0, chance: 0 })),
            tolerance: { pooled: rate },
            z: 0,
            minTrials: 1,
            evidence: () =>
              firstHit
                ? {
                    family: firstHit.probe.family,
                    seed: firstHit.probe.request.seed,
                    level: firstHit.probe.request.level,
                    actions: actionsText(firstHit),
                    observation: firstHit.result.ok ? (firstHit.result.observations?.[0] ?? '').slice(0, 200) : null,
                  }
                : {},
          },
          {
            rule: 'rate',
            code: 'E_ANSWER_LEAK',
            check: 'episodic-off-path',
            policy:
              "bisection on replies to a wrong value that say which side of the reference's value it lies " +
              '("too high" / "too low")',
            trials: leaked.map((x) => ({
              level: x.episode.level,
              win: found.some((f) => f.ref === x.episode) ? 1 : 0,
              chance: 0,
            })),
            tolerance: { pooled: rate },
            z: 0,
            minTrials: 1,
            evidence: () =>
              found[0]
                ? {
                    seed: found[0].ref.seed,
                    level: found[0].ref.level,
                    value: found[0].target.value,
                    calls: found[0].calls,
                    low: found[0].low.slice(0, 80),
                    high: found[0].high.slice(0, 80),
                  }
                : {},
          },
        ];
        return {
          findings,
          metrics: {
            offPathLeak: leaked.length ? leaked.filter((x) => x.hit).length / leaked.length : 0,
            comparator: leaked.length ? found.length / leaked.length : 0,
          },
        };
      },
    };
  },
};

/** Bisection on each comparator target, one sandbox job per round (all targets at once): the targets it finds. */
async function bisection(list: Comparator[], ctx: EpisodicContext): Promise<Array<Comparator & { calls: number }>> {
  const meta: EpisodicMeta = ctx.meta;
  const scale = (t: Target) => (t.integer ? 1 : 100);
  const open = list.map((c) => {
    const k = scale(c.target);
    const span = 2 ** Math.ceil(Math.log2(Math.abs(c.target.value) + 2) + 1);
    return {
      ...c,
      lo: Math.ceil((c.target.min ?? -span) * k),
      hi: Math.floor((c.target.max ?? span) * k),
      log: [] as unknown[],
      found: null as number | null,
      done: false,
    };
  });
  for (let round = 0; round < 48 && open.some((c) => !c.done); round++) {
    const live = open.filter((c) => !c.done);
    const mids = live.map((c) => Math.floor((c.lo + c.hi) / 2));
    // The policy retries within one episode, as an agent would: the log grows by one call a round.
    live.forEach((c, i) => c.log.push(offPathCall(c.ref, c.target, (mids[i] as number) / scale(c.target))));
    const limits = ctx.stage.options.limits;
    const run = await runRollouts(
      ctx.stage.pool,
      ctx.stage.source,
      meta,
      live.map((c) => ({
        seed: c.ref.seed,
        level: c.ref.level,
        policy: { type: 'replay' as const, actions: c.log },
        observations: true,
      })),
      limits ? { limits } : {},
    );
    live.forEach((c, i) => {
      const r = run.rollouts[i];
      const m = mids[i] as number;
      const shape = r?.ok && r.end !== 'done' ? shapeOf(r.observations?.at(-1) ?? '') : null;
      if (shape === c.low) c.lo = m + 1;
      else if (shape === c.high) c.hi = m - 1;
      else (c.found = m), (c.done = true);
      if (c.lo > c.hi || c.log.length >= meta.maxTurns - 1) c.done = true;
    });
  }
  return open
    .filter((c) => c.found !== null && c.found / scale(c.target) === c.target.value)
    .map((c) => ({ ref: c.ref, target: c.target, low: c.low, high: c.high, calls: c.log.length }));
}
