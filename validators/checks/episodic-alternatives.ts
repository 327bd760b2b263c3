// Decisions outside the reference's vocabulary (validators/episodic/alternatives.ts), on the first adversary episode
// of each level: a decisive call sent through another decisive tool that takes its arguments (X2), and a call's claim
// about its entity changed with its other values refilled from what the episode shows of the entity (X3). A log that
// earns the reference's score and ends in another state beyond bookkeeping, where the call taken out at its turn (the
// swap) or the claim changed alone (the claim) earns less, pays the effect and not the decision: the score checks the
// amount, or the agent's story, never which tool or what the world says (zero tolerance, E_ARGUMENT_UNCHECKED).
import type { Rollout, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from '../episodic/adversaries.js';
import {
  claimChanges,
  claimEntityArg,
  refilledCall,
  replaced,
  shownOf,
  swappedCalls,
  type ClaimChange,
} from '../episodic/alternatives.js';
import { decidesByEffect, neutralizedAt, nobodyFor } from '../episodic/gates.js';
import { bookkeeping, differingPaths } from '../episodic/stated-rules.js';
import { readsOf } from '../episodic/withheld.js';
import { onFirstEpisodes } from './episodic-ablation.js';
import { entityArgIn } from './episodic-effects.js';
import { replayOf, scoreOf, type EpisodicCheck, type EpisodicContext } from './episodic.js';
import type { Finding } from './rules.js';

/** The menu's no-argument tools but `skip` (the finish): the listings whose lines say something of each entity. */
const listingsOf = (meta: EpisodicContext['meta'], skip: ReadonlySet<string>): Action[] =>
  meta.tools
    .filter((t) => !skip.has(t.name) && Object.keys(t.parameters.properties ?? {}).length === 0)
    .slice(0, 2)
    .map((t) => ({ tool: t.name, args: {} }));

/** One log judged: the plan otherwise, and the control that must earn less for the log to be a finding. */
interface Trial {
  of: number;
  how: string;
  call: Action;
  actions: Action[];
  control: Action[];
  /** A swap's: the swapped call neutralized at its turn (gates.ts), the control where it takes the call out. */
  neutral?: { index: number; actions: Action[] };
}

export const episodicAlternatives: EpisodicCheck = {
  name: 'episodic-alternatives',
  codes: ['E_ARGUMENT_UNCHECKED'],
  kinds: ['episodic'],
  plan(ctx) {
    return onFirstEpisodes(ctx, async ({ episodes, decisive, reference }, tools) => {
      const replayed = [...reference.values()].filter((r): r is Rollout => r?.ok === true);
      const book = bookkeeping(replayed, ctx.options.bookkeepingShare);
      const plans = episodes.map((of) => {
        const acts = actionsOf(ctx.refs[of] as Rollout);
        const body = acts.slice(0, -1);
        const used = [...new Set(body.map((a) => a.tool))].filter((t) => decisive.has(`${of}|${t}`));
        const skip = new Set([(acts.at(-1) as Action).tool, ...used]);
        const claims = used.flatMap((tool) => {
          const arg = claimEntityArg(ctx.meta, body, tool, skip);
          return arg === null ? [] : claimChanges(ctx.meta, body, tool, arg, ctx.refs[of]?.prompt ?? '');
        });
        return { of, acts, body, used, skip, claims };
      });
      // A swap's control: the call taken out at its turn (the later turns draw what they drew), else removed.
      const swaps: Trial[] = plans.flatMap((p) =>
        swappedCalls(ctx.meta, p.body, p.used).map((s) => {
          const tool = (p.acts[s.index] as Action).tool;
          const arg = entityArgIn(ctx, p.of, tool);
          const actions = arg === null ? null : neutralizedAt(p.acts, s.index, arg, nobodyFor(ctx.meta, tool, arg));
          return {
            of: p.of,
            how: s.how,
            call: s.call,
            actions: replaced(p.acts, s.index, s.call),
            control: p.acts.filter((_, i) => i !== s.index),
            ...(actions ? { neutral: { index: s.index, actions } } : {}),
          };
        }),
      );
      // The reads of each claim's entities and the listings after the plan, one replay an episode: what refills
      // the changed calls.
      const reading = plans.filter((p) => p.claims.length > 0);
      const readsFor = (p: (typeof plans)[number]) => {
        const entities = [...new Set(p.claims.flatMap((c) => [c.templateEntity, c.entity]))];
        const arg = (e: string) =>
          (p.claims.find((c) => c.entity === e || c.templateEntity === e) as ClaimChange).entityArg;
        return entities.map((e) => ({ e, reads: readsOf(ctx.meta, arg(e), e, p.skip) }));
      };
      const listings = (p: (typeof plans)[number]) => listingsOf(ctx.meta, p.skip);
      const readRuns = await tools.run(
        reading.map((p) =>
          replayOf(ctx.refs[p.of] as Rollout, [...p.body, ...readsFor(p).flatMap((r) => r.reads), ...listings(p)], {
            observations: true,
          }),
        ),
      );
      const claims: Trial[] = reading.flatMap((p, j) => {
        const run = readRuns[j];
        const plan = readsFor(p);
        const seen = run?.ok ? (run.observations ?? []) : [];
        const after = p.body.length + plan.reduce((n, r) => n + r.reads.length, 0);
        const shared = [ctx.refs[p.of]?.prompt ?? '', ...listings(p).map((_, k) => seen[after + k] ?? '')];
        const replies = (e: string): string[] => {
          const at = plan.findIndex((r) => r.e === e);
          const from = p.body.length + plan.slice(0, at).reduce((n, r) => n + r.reads.length, 0);
          return shownOf(
            (plan[at]?.reads ?? []).map((_, k) => seen[from + k] ?? ''),
            shared,
            e,
          );
        };
        return p.claims.flatMap((c) => {
          const call = refilledCall(ctx.meta, c, replies(c.templateEntity), replies(c.entity));
          // Nothing refilled: the claim changed alone, the control itself.
          if (JSON.stringify(call.args) === JSON.stringify(c.alone.args)) return [];
          const how = `${c.tool}.${c.arg} claimed ${JSON.stringify(c.value)} on ${c.entity}`;
          return [
            {
              of: p.of,
              how,
              call,
              actions: replaced(p.acts, c.index, call),
              control: replaced(p.acts, c.index, c.alone),
            },
          ];
        });
      });
      const trials = [...swaps, ...claims];
      const neutral = trials.flatMap((t) => (t.neutral ? [t] : []));
      const results = await tools.run([
        ...trials.map((t) => replayOf(ctx.refs[t.of] as Rollout, t.actions, { keepState: true })),
        ...trials.map((t) => replayOf(ctx.refs[t.of] as Rollout, t.control)),
        ...neutral.map((t) => replayOf(ctx.refs[t.of] as Rollout, t.neutral?.actions ?? [], { changes: true })),
      ]);
      const paid = (of: number, r: RolloutResult | undefined) => scoreOf(r) >= (ctx.refs[of] as Rollout).score - 1e-6;
      // The call matters where its control earns less: by its effect where the neutralized call was taken out.
      const matters = (t: Trial, control: RolloutResult | undefined) => {
        const n = neutral.indexOf(t);
        const ref = (ctx.refs[t.of] as Rollout).score;
        const effect =
          n < 0 ? undefined : decidesByEffect([t.neutral?.index ?? -1], ref, results[2 * trials.length + n]);
        return effect ?? !paid(t.of, control);
      };
      const elsewhere = (of: number, r: RolloutResult | undefined) => {
        const theirs = reference.get(of);
        return (
          r?.ok === true && theirs?.ok === true && differingPaths(r.state, theirs.state).some((path) => !book.has(path))
        );
      };
      const findings: Finding[] = trials.map((t, k) => {
        const ref = ctx.refs[t.of] as Rollout;
        const r = results[k];
        const control = results[trials.length + k];
        const hit = paid(t.of, r) && elsewhere(t.of, r) && matters(t, control);
        return {
          rule: 'zero',
          code: 'E_ARGUMENT_UNCHECKED',
          check: 'episodic-alternatives',
          judged: hit ? 1 : 0,
          ceiling: 1,
          what: 'alternative decision',
          form: `${t.how} (seed ${ref.seed}, level ${ref.level}): ${JSON.stringify(t.call).slice(0, 120)}`,
          reads: `scores ${scoreOf(r)} (the reference ${ref.score}), its control ${scoreOf(control)}`,
          evidence: () => ({
            how: t.how,
            call: JSON.stringify(t.call).slice(0, 200),
            seed: ref.seed,
            level: ref.level,
            score: scoreOf(r),
            control: scoreOf(control),
          }),
        };
      });
      return {
        findings,
        metrics: {
          swaps: swaps.length,
          claims: claims.length,
          rollouts: readRuns.length + 2 * trials.length + neutral.length,
        },
      };
    });
  },
};
