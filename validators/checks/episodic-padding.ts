// Reads are score-neutral (redteam-trust4 F1, F2): the empty plan (the finishing call alone), the judged cuts of
// the adversary library (a blanket, a prefix, a repeat: `paddedPerEpisode` an episode, in turn by family) and the
// states the reference reaches with decisions left undone (tool ablation composed with cuts: all the reads and no
// decision, a partly decided plan, k entities read, redteam-trust5 G1; which decisions, not how many — a suffix, one
// alone, a gap, redteam-trust6 H2: `composedPerEpisode`, in turn across episodes) are replayed with
// neutral calls inserted before the finish up to the turn limit (validators/episodic/padding.ts). A padded log
// that earns more than the log itself is paid for time, not decisions: a fallback that acts after enough turns or
// reads, a batch that sweeps what waits, a bounded history the violations scroll out of (zero tolerance).
import type { Rollout, RolloutRequest } from '../../sandbox/rollouts.js';
import { actionsOf, finished, type Action } from '../episodic/adversaries.js';
import { keptState, lastDeciding, neutralCalls, padded, reachedStates, type Reached } from '../episodic/padding.js';
import { descended } from '../episodic/subsets.js';
import { adversaryFamily, decisiveTools } from './episodic-ablation.js';
import { cutProbes, judgedCut } from './episodic-cuts.js';
import { replayOf, scoreOf, type EpisodicCheck } from './episodic.js';
import type { Finding } from './rules.js';

/** The families padded in turn: decisions made then time let pass first, a stall made of reads last. */
const ORDER = ['blanket', 'repeat-finish', 'prefix-finish', 'repeat-reads'] as const;

interface Padded {
  of: number;
  family: string;
  /** The unpadded log's score; null until replayed (a reached state: only where the padded log earns something). */
  unpadded: number | null;
  log: Action[];
  actions: Action[];
  /** The padded log's score, once replayed. */
  score: number;
  /** A reached state keeping a subset of a tool's calls: where the descent may go on from. */
  reached?: Reached;
}

export const episodicPadding: EpisodicCheck = {
  name: 'episodic-padding',
  codes: ['E_ACCEPTS_STALLING'],
  kinds: ['episodic'],
  plan(ctx) {
    const ablations = adversaryFamily(ctx, 'tool-ablation');
    if (ablations.length === 0) return null;
    const cuts = cutProbes(ctx);
    const o = ctx.options;
    const episodes = ctx
      .adversaryEpisodes()
      .filter((i) => finished(ctx.refs[i] as Rollout) && (ctx.refs[i] as Rollout).score >= o.zeroToleranceCeiling);
    // The finishing call alone (the surface check plans the same request: it runs once).
    const alone = episodes.map((of) =>
      ctx.shared(`surface-finish:${of}`, () =>
        replayOf(ctx.refs[of] as Rollout, [(ctx.refs[of] as Rollout).actions.at(-1)]),
      ),
    );
    const requests: RolloutRequest[] = [...ablations.map((p) => p.request), ...cuts.map((p) => p.request), ...alone];
    return {
      requests,
      async judge(outcomes, tools) {
        const decisive = decisiveTools(ctx.refs, ablations, outcomes.slice(0, ablations.length));
        const neutral = new Map(
          episodes.map((of) => [
            of,
            neutralCalls(ctx.meta, ctx.refs[of] as Rollout, (t) => decisive.has(`${of}|${t}`)),
          ]),
        );
        const logs: Padded[] = [];
        const add = (of: number, family: string, unpadded: number | null, log: Action[], reached?: Reached) => {
          const actions = padded(log, neutral.get(of) ?? [], ctx.meta.maxTurns);
          if (actions) logs.push({ of, family, unpadded, log, actions, score: 0, ...(reached ? { reached } : {}) });
        };
        episodes.forEach((of, k) =>
          add(of, 'the empty plan (a stall)', scoreOf(outcomes[ablations.length + cuts.length + k]), [
            actionsOf(ctx.refs[of] as Rollout).at(-1) as Action,
          ]),
        );
        // A cut that already earns the reference's score fails as it is (episodic-cuts): padding adds nothing.
        const candidates = cuts.flatMap((p, k) => {
          const score = scoreOf(outcomes[ablations.length + k]);
          const policy = p.request.policy;
          return neutral.has(p.of) &&
            judgedCut(ctx, decisive, p) &&
            score < (ctx.refs[p.of] as Rollout).score - 1e-6 &&
            policy.type === 'replay'
            ? [{ p, score, actions: policy.actions as Action[] }]
            : [];
        });
        const decidingOf = (of: number) =>
          [...new Set(actionsOf(ctx.refs[of] as Rollout).map((a) => a.tool))].filter((t) => decisive.has(`${of}|${t}`));
        // The periodic family shared out among the episodes whose last-called deciding tool is called as often.
        const family = episodes.map((of) => {
          const last = lastDeciding(actionsOf(ctx.refs[of] as Rollout), decidingOf(of));
          return last ? `${last.tool}|${last.m}` : '';
        });
        // At most `paddedPerEpisode` cuts an episode, taken in turn from each family (a blanket, a prefix, a repeat…).
        for (const [rank, of] of episodes.entries()) {
          const mine = candidates.filter((c) => c.p.of === of);
          const families = ORDER.map((f) => mine.filter((c) => c.p.family === f)).filter((f) => f.length > 0);
          const turns = Math.max(0, ...families.map((f) => f.length));
          const chosen = Array.from({ length: turns }, (_, i) => families.flatMap((f) => (f[i] ? [f[i]] : [])))
            .flat()
            .slice(0, o.paddedPerEpisode);
          for (const { p, score, actions } of chosen) add(of, p.family, score, actions);
          // The states its calls reach with decisions left undone; a whole tool ablated was replayed unpadded already.
          const r = ctx.refs[of] as Rollout;
          const deciding = decidingOf(of);
          // The subsets kept taken in turn across the episodes (two a level: each level sees a different part).
          const turn = rank * Math.max(1, o.composedPerEpisode - 1);
          // Then the periodic family (every k-th kept) and subsets drawn (p = 1/2), seeded by the validation and the
          // episode: the same verdict on a rerun.
          const draws = {
            count: o.composedDrawnPerEpisode,
            key: `${ctx.stage.validationSeed}|${r.seed}|${r.level}`,
            periodic: {
              count: o.composedPeriodicPerEpisode,
              turn: family.slice(0, rank).filter((f) => f === family[rank]).length,
              turns: family.filter((f) => f === family[rank]).length,
            },
          };
          for (const s of reachedStates(actionsOf(r), deciding, o.composedPerEpisode, turn, draws)) {
            const k = ablations.findIndex((p) => p.of === of && p.needs?.[0] === s.tool);
            const whole = s.how === `every ${s.tool} call removed` && k >= 0;
            add(of, `reached state: ${s.how}`, whole ? scoreOf(outcomes[k]) : null, s.actions, s);
          }
        }
        let open = 0;
        // A reached state is replayed unpadded only where its padded log earns enough to fail (scores lie in [0, 1]).
        const replay = async (batch: Padded[]) => {
          const results = await tools.run(batch.map((l) => replayOf(ctx.refs[l.of] as Rollout, l.actions)));
          batch.forEach((l, k) => (l.score = scoreOf(results[k])));
          const todo = batch.filter((l) => l.unpadded === null && l.score >= o.zeroToleranceCeiling);
          const unpadded = await tools.run(todo.map((l) => replayOf(ctx.refs[l.of] as Rollout, l.log)));
          todo.forEach((l, k) => (l.unpadded = scoreOf(unpadded[k])));
          open += todo.length;
        };
        await replay(logs);
        // The descent (delta debugging, halves drawn at random) from the best-paying kept subset: where one padded
        // still earns the reference's score and so does its log unpadded (no time paid yet), or else earns the most,
        // a random half of it is dropped, so a time path under a score that saturates or grows by parts is met too;
        // one step an episode a round, none where no kept subset earns anything.
        const descent = logs.length;
        for (let round = 0; round < o.paddingDescentRounds; round++) {
          const steps = episodes.flatMap((of) => {
            const ref = (ctx.refs[of] as Rollout).score - 1e-6;
            const mine = logs.filter((l) => l.of === of);
            if (mine.some((l) => l.score >= (l.unpadded ?? 0) + o.zeroToleranceCeiling)) return [];
            const paid = (l: Padded) => l.score >= ref && (l.unpadded ?? 0) >= ref;
            const size = (l: Padded) => l.reached?.kept?.length ?? 0;
            // The best-paying first: paid alike padded and unpadded, then the higher padded score, the fewer kept.
            const paying = mine
              .filter((l) => l.reached?.kept && l.score >= o.zeroToleranceCeiling)
              .sort((x, y) => Number(paid(y)) - Number(paid(x)) || y.score - x.score || size(x) - size(y));
            const key = `${ctx.stage.validationSeed}|${(ctx.refs[of] as Rollout).seed}|descent ${round}`;
            for (const { reached: s } of paying) {
              const seen = new Set(mine.flatMap((l) => (l.reached?.tool === s?.tool ? [String(l.reached?.kept)] : [])));
              const kept = s?.kept && descended(s.kept, key, seen);
              if (s && kept) return [{ of, state: keptState(actionsOf(ctx.refs[of] as Rollout), s.tool, kept) }];
            }
            return [];
          });
          if (steps.length === 0) break;
          const before = logs.length;
          for (const { of, state } of steps)
            add(of, `reached state (descent): ${state.how}`, null, state.actions, state);
          await replay(logs.slice(before));
        }
        const findings: Finding[] = logs.map((l) => {
          const r = ctx.refs[l.of] as Rollout;
          const score = l.score;
          // Not replayed unpadded: its padded score is below the tolerance, which no score of [0, 1] can reach.
          const base = l.unpadded ?? 0;
          return {
            rule: 'zero',
            code: 'E_ACCEPTS_STALLING',
            check: 'episodic-padding',
            judged: score,
            ceiling: base + o.zeroToleranceCeiling,
            what: 'padded log',
            form:
              `${l.family} padded to ${l.actions.length} calls with neutral calls (seed ${r.seed}, level ` +
              `${r.level}): ${base.toFixed(2)} unpadded`,
            reads: `scores ${score.toFixed(2)} against ${base.toFixed(2)} unpadded`,
            evidence: () => ({
              family: l.family,
              seed: r.seed,
              level: r.level,
              unpadded: base,
              padded: score,
              calls: l.actions.length,
              neutral: JSON.stringify(neutral.get(l.of)).slice(0, 300),
              actions: JSON.stringify(l.actions.slice(-4)).slice(0, 400),
            }),
          };
        });
        return {
          findings,
          metrics: {
            padded: logs.length,
            reachedStates: logs.filter((l) => l.family.startsWith('reached state')).length,
            unpaddedReplays: open,
            descent: logs.length - descent,
            paidMore: findings.filter((f) => f.rule === 'zero' && f.judged >= f.ceiling).length,
          },
        };
      },
    };
  },
};
