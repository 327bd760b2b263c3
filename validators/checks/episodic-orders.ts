// A stated order among one tool's entities must matter (redteam-trust12 W5): where the prompt ranks or marks the
// entities of a tool (validators/episodic/orders.ts), the adversary episodes are replayed with that tool's calls in
// another order across their entities (each with its own reads before it). Where every such log, in every episode,
// still earns the reference's score and ends in the reference's state, the order the rule states never mattered:
// a policy that ignored it is paid (zero tolerance, E_RULE_IGNORED), unless the entities contest something the world
// holds (validators/episodic/order-contests.ts: a seat one takes is not another's), where the order decides
// the decisions. One order that costs the score, or one contest, clears the rule: an episode where the rule binds
// nothing (no urgent ticket, no full course) must not count against an honest world.
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, finished } from '../episodic/adversaries.js';
import { contested, contestsOf, type Contest, type Played } from '../episodic/order-contests.js';
import { orderRulesOf, permutationsOf, type OrderRule, type Permuted } from '../episodic/orders.js';
import { bookkeeping, differingPaths, records } from '../episodic/stated-rules.js';
import { referenceState } from './episodic-ablation.js';
import { replayOf, scoreOf, type EpisodicCheck, type EpisodicContext } from './episodic.js';
import type { Finding } from './rules.js';

interface Probe extends Permuted {
  of: number;
}

export const episodicOrders: EpisodicCheck = {
  name: 'episodic-orders',
  codes: ['E_RULE_IGNORED'],
  kinds: ['episodic'],
  plan(ctx) {
    if (!ctx.options.orderProbes) return null;
    const probes: Probe[] = ctx.adversaryEpisodes().flatMap((of) => {
      const r = ctx.refs[of] as Rollout;
      if (!finished(r) || r.score < ctx.options.zeroToleranceCeiling) return [];
      const log = actionsOf(r);
      const observations = r.observations ?? [];
      const text = `${r.prompt ?? ''}\n${ctx.meta.description}`;
      return orderRulesOf(ctx.meta, text, log, observations).flatMap((rule) =>
        permutationsOf(ctx.meta, rule, log, observations, r.prompt ?? undefined).map((p) => ({ ...p, of })),
      );
    });
    if (probes.length === 0) return null;
    const episodes = [...new Set(probes.map((p) => p.of))];
    const requests: RolloutRequest[] = [
      ...probes.map((p) =>
        replayOf(ctx.refs[p.of] as Rollout, p.actions, {
          keepState: true,
          ...(p.binds ? { policy: { type: 'replay' as const, actions: p.actions, binds: p.binds } } : {}),
        }),
      ),
      ...episodes.map((i) => referenceState(ctx, i)),
    ];
    return {
      requests,
      async judge(outcomes, { run }) {
        const finalOf = new Map(episodes.map((i, k) => [i, outcomes[probes.length + k]]));
        const replayed = [...finalOf.values()].filter((r): r is Rollout => r?.ok === true);
        const book = bookkeeping(replayed, ctx.options.bookkeepingShare);
        // A log in another order is paid where it earns the reference's score and ends where the reference ends.
        const paid = (p: Probe, k: number) => {
          const [mine, theirs] = [outcomes[k], finalOf.get(p.of)];
          return (
            mine?.ok === true &&
            theirs?.ok === true &&
            records(theirs, p.rule.tool, book) &&
            scoreOf(mine) >= (ctx.refs[p.of] as Rollout).score - 1e-6 &&
            differingPaths(mine.state, theirs.state).every((x) => book.has(x))
          );
        };
        const ignored = new Map<string, boolean>();
        probes.forEach((p, k) => ignored.set(p.rule.tool, (ignored.get(p.rule.tool) ?? true) && paid(p, k)));
        // One sentence states one order: where the world enforces it through one tool it binds (an order that costs
        // the score, a contest), the others it binds are cleared with it (the transcripts read by class year).
        const enforced = new Set(
          probes
            .filter((p, k) => scoreOf(outcomes[k]) < (ctx.refs[p.of] as Rollout).score - 1e-6)
            .map((p) => said(p.rule)),
        );
        // Only a rule every order pays is asked whether its entities contest something (a second, bounded batch).
        const suspects = probes.filter((p) => ignored.get(p.rule.tool) && !enforced.has(said(p.rule)));
        const contests = contestsFor(ctx, suspects);
        const played = await run(
          contests.flatMap(({ contest, of }) =>
            [contest.base, ...contest.flipped, ...contest.exchanged.flatMap((e) => (e ? [e] : []))].map((p) =>
              replayOf(ctx.refs[of] as Rollout, p.actions, play(p)),
            ),
          ),
        );
        let next = 0;
        let found = 0;
        for (const { contest, of } of contests) {
          const ref = ctx.refs[of] as Rollout;
          const take = () => outcome(played[next++]);
          const base = take();
          const flipped = contest.flipped.map(take);
          const exchanged = contest.exchanged.map((e) => (e ? take() : null));
          if (base && contested(contest, base, flipped, exchanged, ref.score)) {
            enforced.add(said(contest.base.rule));
            found++;
          }
        }
        for (const p of probes) if (enforced.has(said(p.rule))) ignored.set(p.rule.tool, false);
        const findings: Finding[] = probes.map((p, k) => {
          const ref = ctx.refs[p.of] as Rollout;
          const score = ignored.get(p.rule.tool) ? scoreOf(outcomes[k]) : 0;
          return {
            rule: 'zero',
            code: 'E_RULE_IGNORED',
            check: 'episodic-orders',
            judged: score + 1e-6,
            ceiling: ref.score,
            what: 'reordered log',
            form: `${p.how} (seed ${ref.seed}, level ${ref.level}; the prompt: "${p.rule.sentence.slice(0, 160)}")`,
            evidence: () => ({
              step: p.rule.tool,
              order: p.how,
              rule: p.rule.sentence.slice(0, 300),
              seed: ref.seed,
              level: ref.level,
              score: scoreOf(outcomes[k]),
              reference: ref.score,
              actions: JSON.stringify(p.actions.slice(0, 8)).slice(0, 500),
            }),
          };
        });
        return {
          findings,
          metrics: {
            rules: [...ignored.keys()],
            permutations: probes.length,
            paid: probes.filter((p, k) => paid(p, k)).length,
            contests: contests.length,
            contested: found,
          },
        };
      },
    };
  },
};

/** A rule's sentence as said in any episode (its numbers masked: "Desk 123"). */
const said = (rule: OrderRule) => rule.sentence.replace(/\d+/g, '#');

const play = (p: Permuted): Partial<RolloutRequest> => ({
  keepState: true,
  ...(p.binds ? { policy: { type: 'replay' as const, actions: p.actions, binds: p.binds } } : {}),
});

/** A contest's replay as judged: its final state and score (null where it failed). */
const outcome = (r: RolloutResult | undefined): Played | null => (r?.ok ? { state: r.state, score: r.score } : null);

/**
 * The contests of the rules every order pays, `orderContests` entities a rule in all, taken in turn from its
 * episodes with the most calls of the tool first (where a scarce thing is likeliest to run out).
 */
function contestsFor(ctx: EpisodicContext, suspects: readonly Probe[]): Array<{ contest: Contest; of: number }> {
  const byTool = new Map<string, Array<{ rule: OrderRule; of: number }>>();
  for (const p of suspects) {
    const list = byTool.get(p.rule.tool) ?? [];
    if (!list.some((e) => e.of === p.of)) list.push({ rule: p.rule, of: p.of });
    byTool.set(p.rule.tool, list);
  }
  const budget = ctx.options.orderContests;
  return [...byTool.values()].flatMap((episodes) => {
    const lists = episodes
      .map(({ rule, of }) => {
        const r = ctx.refs[of] as Rollout;
        const log = actionsOf(r);
        const found = contestsOf(ctx.meta, rule, log, r.observations ?? [], r.prompt ?? undefined, budget);
        return { of, found, calls: log.filter((a) => a.tool === rule.tool).length };
      })
      .sort((a, b) => b.calls - a.calls);
    const out: Array<{ contest: Contest; of: number }> = [];
    for (let turn = 0; out.length < budget && lists.some((l) => l.found.length > turn); turn++) {
      for (const l of lists) {
        const contest = l.found[turn];
        if (contest && out.length < budget) out.push({ contest, of: l.of });
      }
    }
    return out;
  });
}
