// Leaks of the reference's values to the agent: replaying only the reference actions whose values the prompt
// spells out must not solve its own episode more often than another's (the prompt gives the plan away); copying
// a value a stated rule derives from what else an observation shows, before the reference sends it, must not earn
// the reference's score (played, copies.ts; shown-derivation.ts tells it from a lookup), and no refused wrong value
// may be answered with such a right one (an echo of the agent's own arguments aside). All judged against chance.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from '../episodic/adversaries.js';
import { copyPlan, copyRuleOf, entityContext, entityShown, peerCopyPlan, shownSamples } from '../episodic/copies.js';
import type { CopyRule, Heard } from '../episodic/copies.js';
import type { RolloutRequest } from '../../sandbox/rollouts.js';
import { tokensOf } from '../episodic/probes.js';
import { announcedCopy } from '../episodic/announced.js';
import { derivedFromShown, type ShownSample } from '../episodic/shown-derivation.js';
import { toldOf } from '../episodic/told.js';
import { fixedProbes, probeEvidence, type ScoredProbe } from './episodic-baselines.js';
import { scoreOf, type EpisodicCheck } from './episodic.js';
import type { Finding } from './rules.js';

/**
 * What the agent knows before it acts: what the texts state (told.ts; never the initial state, which no policy sees:
 * redteam-s21e T5), and the initial state's numbers for the world's bookkeeping of the agent's own
 * sends (`bookkept`: a balance left after its parts); null where the episode did not reset.
 */
function knownOf(r: Rollout, initial: RolloutResult | undefined, meta: EpisodicMeta | undefined) {
  if (!initial?.ok || initial.state === undefined) return null;
  const { known, stated } = toldOf(r, meta);
  const numbers = new Set<number>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
    else if (typeof v === 'number') numbers.add(v);
  };
  walk(initial.state);
  return { known, stated, numbers };
}

/**
 * The values of the reference's calls that an observation of a probe with `sent` actions (a wrong value refused) shows
 * first in the reply to the call that sent the wrong value in its place or later: the right value answered after a
 * wrong one, not stated in the texts. Each with the numbers the reference's replies before that call naming its
 * entity show (`entityShown`), as a sample of a derivation (`observationLeaks`). A value shown before that call (to
 * the probe or the reference) is the copy's to judge (`copyOf`: redteam-s20e S3, S5), not a revelation here.
 */
function revelations(
  r: Rollout,
  i: number,
  observations: string[] | undefined,
  initial: RolloutResult | undefined,
  sent: unknown[],
  meta?: EpisodicMeta,
): ShownSample[] {
  const held = knownOf(r, initial, meta);
  if (!held || !observations) return [];
  const argsOf = (a: unknown): unknown[] =>
    Object.values(((a as { args?: Record<string, unknown> } | null)?.args ?? {}) as Record<string, unknown>);
  const shows = (text: string, v: number) => tokensOf(text).some((w) => Number(w) === v);
  return r.actions.flatMap((action, k) =>
    argsOf(action).flatMap((v) => {
      if (typeof v !== 'number' || (Number.isInteger(v) && Math.abs(v) < 100) || held.known.has(String(v))) return [];
      const before = [...observations.slice(0, k), ...(r.observations ?? []).slice(0, k)];
      if (before.some((text) => shows(text, v))) return [];
      const revealed = observations.some((text, j) => j >= k && !argsOf(sent[j]).includes(v) && shows(text, v));
      if (!revealed) return [];
      const seen = r.observations ?? [];
      return [
        {
          episode: i,
          level: r.level,
          value: v,
          shown: entityShown(r, seen, k),
          stated: held.stated,
          ...entityContext(r, seen, k),
        },
      ];
    }),
  );
}

/**
 * For each reference, whether a refused wrong value is answered with the right one (`revelations`, the perturbed
 * replays' observations) where the right values are derived from what the references were shown of their entities
 * (shown-derivation.ts, over all references): a lookup the refusal names (an order's price a read would show) is the
 * world's figure, not the agent's work revealed.
 */
export function observationLeaks(
  refs: readonly Rollout[],
  probe: (i: number) => RolloutResult | undefined,
  initial: (i: number) => RolloutResult | undefined,
  meta?: EpisodicMeta,
): boolean[] {
  const found = refs.map((r, i) => {
    const p = probe(i);
    return p?.ok === true ? revelations(r, i, p.observations, initial(i), p.actions, meta) : [];
  });
  const derived = derivedFromShown(found.flat());
  return found.map((x) => derived && x.length > 0);
}

/** Whether a copy rule reads a derived value: the references' copies by it, judged by shown-derivation.ts. */
export type Derives = (rule: CopyRule) => boolean;

/**
 * The references' `Derives`: each episode's calls that send what `rule` reads, with the numbers of the reply read and
 * the numbers its texts state, as samples of one derivation across episodes; a figure the texts direct the agent to
 * copy as its tool shows it (announced.ts: redteam-s23e V7) is the task's own lookup, however it was made.
 */
export function derivesOf(
  refs: readonly Rollout[],
  initial: (i: number) => RolloutResult | undefined,
  meta: EpisodicMeta | undefined,
  heard: (i: number) => Heard[] = () => [],
): Derives {
  const memo = new Map<string, boolean>();
  return (rule) => {
    const key = JSON.stringify(rule);
    const hit = memo.get(key);
    if (hit !== undefined) return hit;
    const samples = refs.flatMap((r, i) => {
      const held = knownOf(r, initial(i), meta);
      return held && r.observations ? shownSamples(r, r.observations, rule, i, held.stated, heard(i)) : [];
    });
    const derived = derivedFromShown(samples) && !announcedCopy(refs, rule, meta);
    memo.set(key, derived);
    return derived;
  };
}

/**
 * The copy of the reference's shown values, to play, and its chance (null where its observations show none of the
 * values it sends but lookups): judged by play, whatever the value's size (redteam-s18e E8), the world's bookkeeping
 * aside (E6), against the same place's values in a peer's episode (another seed of the level) played on the
 * reference's: what a shown number wins by coinciding with the decision (a page count, a tally) is chance, not a leak.
 * Only a derived value is copied (`derives`): one no stated rule derives from what else is shown is a lookup, however
 * the texts word it or the world stores it (redteam-s20e S3, S5; redteam-s21e T3, T5, T7).
 */
export function copyOf(
  r: Rollout,
  initial: RolloutResult | undefined,
  derives: Derives,
  peer?: Rollout,
  meta?: EpisodicMeta,
): { rule: CopyRule; plan: Action[]; chance: Action[] | null } | null {
  const held = knownOf(r, initial, meta);
  if (!held || !r.observations) return null;
  const rule = copyRuleOf(r, r.observations, held.known, held.numbers, (x) => !derives(x));
  if (!rule) return null;
  const chance = peer?.observations ? peerCopyPlan(r, peer, peer.observations, rule) : null;
  return { rule, plan: copyPlan(r, r.observations, rule), chance };
}

/**
 * What a policy hears before it acts from the tools that take no argument and that a reference never calls (a
 * listing's header, a policy tool printing the day's rate: rt30e W5): one call of each at its episode's start, up to
 * `MAX_HEARD` tools; `heard(i)` their replies for reference `i`.
 */
const MAX_HEARD = 4;
function hearings(refs: readonly Rollout[], meta: EpisodicMeta | undefined) {
  const bare = (meta?.tools ?? [])
    .filter((t) => {
      const required = (t.parameters as { required?: unknown }).required;
      return !Array.isArray(required) || required.length === 0;
    })
    .map((t) => t.name);
  const asked = refs.flatMap((r, i) => {
    const used = new Set(r.actions.map((a) => (a as { tool?: unknown } | null)?.tool));
    return bare
      .filter((tool) => !used.has(tool))
      .slice(0, MAX_HEARD)
      .map((tool) => {
        const actions = [{ tool, args: {} }];
        const request: RolloutRequest = { seed: r.seed, level: r.level, policy: { type: 'replay', actions } };
        return { i, tool, request: { ...request, observations: true } };
      });
  });
  const replies = (results: readonly (RolloutResult | undefined)[]) => (i: number) =>
    asked.flatMap((x, k): Heard[] => {
      const reply = results[k]?.ok ? results[k].observations?.[0] : undefined;
      return x.i === i && typeof reply === 'string' ? [{ tool: x.tool, reply }] : [];
    });
  return { requests: asked.map((x) => x.request), replies };
}

/** For each reference, the next one of its level with another seed (its peer for chance), if any. */
function peersOf(refs: readonly Rollout[]): (Rollout | undefined)[] {
  return refs.map((r, i) => {
    const same = refs.flatMap((x, k) => (x.level === r.level && x.seed !== r.seed ? [{ x, k }] : []));
    return (same.find(({ k }) => k > i) ?? same[0])?.x;
  });
}

export const episodicLeaks: EpisodicCheck = {
  name: 'episodic-leaks',
  codes: ['E_ANSWER_LEAK'],
  kinds: ['episodic'],
  plan(ctx) {
    const probes = fixedProbes(ctx).filter(
      (p) => p.family === 'prompt-replay' || p.family === 'no-action' || p.family === 'perturbed',
    );
    const o = ctx.options;
    return {
      requests: probes.map((p) => p.request),
      async judge(outcomes, tools) {
        const scored: ScoredProbe[] = probes.map((probe, i) => ({ probe, result: outcomes[i] as RolloutResult }));
        const share = <T>(list: T[], win: (t: T) => boolean) =>
          list.length === 0 ? 0 : list.filter(win).length / list.length;
        const own = scored.filter((s) => s.probe.family === 'prompt-replay' && s.probe.of >= 0);
        const chance = share(
          scored.filter((s) => s.probe.family === 'prompt-replay' && s.probe.of < 0),
          (s) => scoreOf(s.result) >= 0.5,
        );
        const findings: Finding[] = [];
        const solved = own.find((s) => scoreOf(s.result) >= 0.5) ?? own[0];
        if (solved) {
          findings.push({
            rule: 'rate',
            code: 'E_ANSWER_LEAK',
            check: 'episodic-leaks',
            policy:
              'replaying only the reference actions whose values the prompt spells out (against the same ' +
              'replay on another instance)',
            trials: own.map((s) => ({ level: s.probe.request.level, win: scoreOf(s.result) >= 0.5 ? 1 : 0, chance })),
            tolerance: { pooled: o.promptLeakMaxRate - 1e-9 },
            z: 0,
            minTrials: 1,
            evidence: () => probeEvidence(solved),
          });
        }
        const noAction = new Map(
          scored.filter((s) => s.probe.family === 'no-action').map((s) => [s.probe.of, s.result]),
        );
        const perturbed = new Map(
          scored.filter((s) => s.probe.family === 'perturbed').map((s) => [s.probe.of, s.result]),
        );
        // A copy of a shown value, played on the reference's episode, must not earn the reference's score more often
        // than a peer's values of the same place played there; a refused wrong value must not be answered with the
        // right one (the perturbed replay's observations).
        const peers = peersOf(ctx.refs);
        const hearing = hearings(ctx.refs, ctx.meta);
        const heard = hearing.replies(hearing.requests.length > 0 ? await tools.run(hearing.requests) : []);
        const derives = derivesOf(ctx.refs, (i) => noAction.get(i), ctx.meta, heard);
        const copies = ctx.refs.map((r, i) => copyOf(r, noAction.get(i), derives, peers[i], ctx.meta));
        const asked = copies.flatMap((copy, i) => {
          const r = ctx.refs[i] as Rollout;
          const replay = (actions: Action[], chance: boolean) => ({
            seed: r.seed,
            level: r.level,
            policy: { type: 'replay' as const, actions },
            ...(chance ? { changes: true } : {}),
          });
          return (copy ? [copy.plan, copy.chance] : []).flatMap((actions, k) =>
            actions ? [{ i, chance: k === 1, actions, request: replay(actions, k === 1) }] : [],
          );
        });
        const played = await tools.run(asked.map((x) => x.request));
        const earned = (chance: boolean) =>
          new Set(
            asked
              .filter(
                (x, k) =>
                  x.chance === chance && scoreOf(played[k]) >= Math.max(1e-6, (ctx.refs[x.i] as Rollout).score - 1e-6),
              )
              .map((x) => x.i),
          );
        const copied = earned(false);
        const coincident = earned(true);
        const refused = observationLeaks(
          ctx.refs,
          (i) => perturbed.get(i),
          (i) => noAction.get(i),
          ctx.meta,
        );
        const leaks = ctx.refs.map((_, i) => copied.has(i) || (refused[i] as boolean));
        // A copy's chance trial the world refuses is a loss, not undecided: only a derived value is copied, a decision
        // the world may check at the call (redteam-s21e T8); an issued id is a lookup, never copied (redteam-s20e S5).
        const at = leaks.findIndex((x) => x);
        findings.push({
          rule: 'rate',
          code: 'E_ANSWER_LEAK',
          check: 'episodic-leaks',
          policy:
            'copying a value a stated rule derives from what else is shown (not stated in the texts) off an ' +
            'observation before the reference submits it',
          trials: ctx.refs.map((r, i) => ({
            level: r.level,
            win: leaks[i] ? 1 : 0,
            chance: coincident.has(i) && !refused[i] ? 1 : 0,
          })),
          tolerance: { pooled: o.observationLeakMaxRate - 1e-9 },
          z: 0,
          minTrials: 1,
          evidence: () =>
            at >= 0 ? { seed: (ctx.refs[at] as Rollout).seed, level: (ctx.refs[at] as Rollout).level } : {},
        });
        return {
          findings,
          metrics: {
            promptLeak: share(own, (s) => scoreOf(s.result) >= 0.5) - chance,
            observationLeak: share(leaks, (x) => x),
          },
        };
      },
    };
  },
};
