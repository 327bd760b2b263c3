// A stated order among one tool's entities must matter (redteam-trust12 W5): where the prompt ranks or marks the
// entities of a tool (validators/episodic/orders.ts), the adversary episodes are replayed with that tool's calls in
// another order across their entities (each with its own reads before it). Where every such log, in every episode,
// still earns the reference's score and ends in the reference's state, the order the rule states never mattered:
// a policy that ignored it is paid (zero tolerance, E_RULE_IGNORED). One order that costs the score clears the rule:
// an episode where the rule binds nothing (no urgent ticket) must not count against an honest world. Off by default
// (`orderProbes`): a reordered log that keeps the reference's decisions cannot tell a process order nobody enforces
// from a priority that decides who gets a scarce seat and is checked through the decisions alone.
import type { Rollout, RolloutRequest } from '../../sandbox/rollouts.js';
import { actionsOf, finished } from '../episodic/adversaries.js';
import { orderRulesOf, permutationsOf, type Permuted } from '../episodic/orders.js';
import { bookkeeping, differingPaths, records } from '../episodic/stated-rules.js';
import { referenceState } from './episodic-ablation.js';
import { replayOf, scoreOf, type EpisodicCheck } from './episodic.js';
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
      judge(outcomes) {
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
          },
        };
      },
    };
  },
};
