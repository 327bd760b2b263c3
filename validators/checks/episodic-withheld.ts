// Withheld decisions must matter (redteam-trust12 W3): on the first adversary episode of each level, for each tool
// that decides by effect (a gate with the call it lets through) and a few entities of any shape the episode shows that
// the reference never sends it for (withheld-trials.ts), the reference's plan plus that call (filled from its reads:
// validators/episodic/withheld.ts) before the finish (a route's where the world accepts it: withheld-routes.ts;
// redteam-trust14 Y8, redteam-trust15 Z6, Z7), also on the cheap plans (validators/episodic/cheap-plan.ts). A call
// the world accepts (validators/episodic/accepted.ts) and that still earns the reference's score pays a policy that
// ignored the decision to leave the entity alone: a stated prohibition nobody enforces (zero tolerance). A call step
// refuses, or one that changes nothing, is the environment enforcing it.
import type { Rollout, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from '../episodic/adversaries.js';
import { cheapPlans } from '../episodic/cheap-plan.js';
import { listingsOf, LOOKS_BUDGET, looksOf, openingOf } from '../episodic/looks.js';
import { refilled, replyBefore, restatedArgs, type Restated } from '../episodic/restated.js';
import { bookkeeping } from '../episodic/stated-rules.js';
import { checkedCalls, readEntities, textsShown } from '../episodic/fillings.js';
import { recordsOf } from '../episodic/state-records.js';
import { searchLogs } from '../episodic/arg-search.js';
import { replacesAllowed, settlementsOf, type Settlements } from '../episodic/settlements.js';
import { textsOf } from '../episodic/tool-texts.js';
import {
  afterLead,
  judgedAt,
  knownLog,
  withCallsAt,
  plansAt,
  sameLog,
  readsOf,
  reliesOnItself,
  withoutFirstCall,
  type WithheldLog,
} from '../episodic/withheld.js';
import { adversaryFamily, decisiveTools, firstEpisodeOfEachLevel, referenceState } from './episodic-ablation.js';
import { replayOf, scoreOf, undoneLater, type EpisodicCheck } from './episodic.js';
import { acceptedHidden, addedCallFinding } from './withheld-accepted.js';
import { placeRouteCalls } from './withheld-routes.js';
import { withheldTrials, type Trial } from './withheld-trials.js';

export const episodicWithheld: EpisodicCheck = {
  name: 'episodic-withheld',
  codes: ['E_RULE_IGNORED'],
  kinds: ['episodic'],
  plan(ctx) {
    const ablations = adversaryFamily(ctx, 'tool-ablation');
    const episodes = firstEpisodeOfEachLevel(ctx, ablations);
    if (episodes.length === 0) return null;
    const acts = new Map(episodes.map((i) => [i, actionsOf(ctx.refs[i] as Rollout)]));
    // The looks (looks.ts: rt17 R6), the reference's plan, the looks again (a waiting list may change), with replies.
    const looks = episodes.map((i) => {
      const all = acts.get(i) as Action[];
      const r = ctx.refs[i] as Rollout;
      const shown = { texts: [r.prompt ?? '', ...(r.observations ?? [])], called: new Set(all.map((a) => a.tool)) };
      const listings = looksOf(ctx.meta.tools, (all.at(-1) as Action).tool, LOOKS_BUDGET, shown);
      return replayOf(r, [...listings, ...all.slice(0, -1), ...listings], { observations: true, keepState: true });
    });
    const states = episodes.map((i) => referenceState(ctx, i));
    const toolNames = ctx.meta.tools.map((t) => t.name);
    return {
      requests: [...ablations.map((p) => p.request), ...states, ...looks],
      async judge(outcomes, tools) {
        const decisive = decisiveTools(ctx.refs, ablations, outcomes);
        // What each episode shows before its plan's first call: the prompt, the replies of the looks played first.
        const openings = episodes.map((i, k) => {
          const r = ctx.refs[i] as Rollout;
          const look = outcomes[ablations.length + states.length + k];
          return openingOf(r.prompt ?? '', looks[k], (acts.get(i) as Action[]).length - 1, look);
        });
        // The tools whose ablation keeps the score: the plan's free choices (reads a cheap policy skips).
        const free = new Set(
          ablations.flatMap((p, k) =>
            scoreOf(outcomes[k]) >= (ctx.refs[p.of] as Rollout).score - 1e-9 ? [`${p.of}|${p.needs?.[0]}`] : [],
          ),
        );
        const replayed = states
          .map((_, k) => outcomes[ablations.length + k])
          .filter((r): r is Rollout => r?.ok === true);
        const book = bookkeeping(replayed, ctx.options.bookkeepingShare);
        const bodies = ctx.refs.map((r) => actionsOf(r).slice(0, -1));
        const shown = episodes.map((i, k) =>
          textsShown(ctx.refs[i] as Rollout, outcomes[ablations.length + states.length + k]),
        );
        const skip = (i: number) =>
          new Set([
            (acts.get(i) as Action[]).at(-1)?.tool ?? '',
            ...[...decisive].flatMap((d) => d.split('|').slice(1)),
          ]);
        // A step the texts lift for some entities (in the plan or not) is one the reference may leave out, unless a
        // text forbids it (R7, redteam-s17 F5); two settlements a text allows side by side: the other goes beside (F6).
        const settled = episodes.map((i) => settlementsOf(textsOf(ctx.meta, ctx.refs[i] as Rollout), toolNames));
        const exempts = settled.map((s) => s.exempt);
        // The trials, chosen by effect: decisive tools by their calls neutralized (a gate probed with the call it
        // lets through: redteam-trust14 Y2), entities of every shape the world answers as one (Y4).
        const chosen = await withheldTrials(
          ctx,
          episodes.map((i, k) => {
            const r = ctx.refs[i] as Rollout;
            const all = acts.get(i) as Action[];
            const body = all.slice(0, -1);
            const reference = outcomes[ablations.length + k];
            const decisiveHere = (t: string) => decisive.has(`${i}|${t}`) && !exempts[k]?.has(t);
            return {
              ref: r,
              body,
              finish: all.at(-1) as Action,
              shown: shown[k] as string[],
              reference,
              before: outcomes[ablations.length + states.length + k],
              decisive: decisiveHere,
              skip: skip(i),
              opening: openings[k] as string[],
            };
          }),
          bodies,
          tools.run,
          book,
        );
        const trials = chosen.trials.map((ts, k) => ts.filter((t) => !exempts[k]?.has(t.tool)));
        // A read never makes a decision tried here (a hold in no plan: redteam-trust17 R7).
        const readSkip = (i: number, k: number) => new Set([...skip(i), ...(trials[k] ?? []).map((t) => t.tool)]);
        // The reads of each template's entity and of each entity tried, after the plan: what fills the added calls.
        const readPlans = episodes.map((i, k) =>
          (trials[k] as Trial[]).flatMap((t) =>
            readEntities(acts.get(i) as Action[], t, t.entities).map((e) => ({
              key: `${t.tool}|${e}`,
              reads: readsOf(ctx.meta, t.arg, e, readSkip(i, k)),
            })),
          ),
        );
        const readLogs = episodes.map((i, k) => [
          ...(acts.get(i) as Action[]).slice(0, -1),
          ...(readPlans[k] ?? []).flatMap((p) => p.reads),
        ]);
        // Only the episodes with a read to make: the others send nothing.
        const reading = episodes.flatMap((i, k) => ((readPlans[k] ?? []).some((p) => p.reads.length > 0) ? [k] : []));
        // Each trial's plan without the tool's first call: a tool whose later calls then fail is a route. Where the
        // calls quote a value each reply restates (a ticket: redteam-trust14 Y3), the plan is cut after the next call,
        // filled from the reply before it (a replay of the log up to it), so a spent ticket makes no route.
        const routeProbes = episodes.flatMap((i, k) =>
          (trials[k] as Trial[]).flatMap((t) => {
            const ref = ctx.refs[i] as Rollout;
            const body = (acts.get(i) as Action[]).slice(0, -1);
            const log = withoutFirstCall(body, t.tool);
            if (!log) return [];
            const restated = restatedArgs(body, ref.observations ?? [], t.tool, t.arg);
            const next = restated.length > 0 ? log.findIndex((a) => a.tool === t.tool) : -1;
            // A call first in the plan follows no reply: the listings before it show the current value.
            const lead = next === 0 ? listingsOf(ctx.meta.tools, (acts.get(i) as Action[]).at(-1)?.tool ?? '') : [];
            const cut = next < 0 ? log : [...lead, ...log.slice(0, next + 1)];
            return [{ k, tool: t.tool, ref, restated, at: next < 0 ? -1 : next + lead.length, log: cut, body, lead }];
          }),
        );
        const prefixed = routeProbes.filter((p) => p.at > 0);
        const runs = await tools.run([
          ...reading.map((k) =>
            replayOf(ctx.refs[episodes[k] as number] as Rollout, readLogs[k] as Action[], { observations: true }),
          ),
          ...prefixed.map((p) => replayOf(p.ref, p.log.slice(0, p.at), { observations: true })),
        ]);
        const readRuns = runs.slice(0, reading.length);
        for (const p of routeProbes.filter((q) => q.at >= 0)) {
          const prefix = runs[reading.length + prefixed.indexOf(p)];
          const latest = replyBefore(p.ref, prefix, p.at);
          if (latest !== undefined) p.log[p.at] = refilled(p.log[p.at] as Action, p.restated, latest);
        }
        const withouts = await tools.run(routeProbes.map((p) => replayOf(p.ref, p.log, { changes: true })));
        const routes = new Set(
          routeProbes.flatMap((p, j) => {
            const reference = outcomes[ablations.length + p.k];
            const without = withouts[j];
            // A cut plan is judged up to its next call (its index in the plan: one past, the first call removed).
            const body = p.at < 0 ? p.body : p.body.slice(0, p.at - p.lead.length + 2);
            const ok = reference?.ok && without?.ok;
            return ok && reliesOnItself(body, p.tool, reference, afterLead(without, p.lead.length)) ? [p.tool] : [];
          }),
        );
        const readOutcomes = new Map(reading.map((k, j) => [k, readRuns[j]]));
        const replies = (k: number, key: string): string[] => {
          const plan = readPlans[k] ?? [];
          const at = plan.findIndex((p) => p.key === key);
          if (at < 0) return [];
          const from =
            (acts.get(episodes[k] as number) as Action[]).length -
            1 +
            plan.slice(0, at).reduce((n, p) => n + p.reads.length, 0);
          const out = readOutcomes.get(k);
          return out?.ok
            ? (plan[at]?.reads ?? []).map((_, j) => out.observations?.[from + j] ?? '')
            : (plan[at]?.reads ?? []).map(() => '');
        };
        // The added call on an entity, filled from what shows it (its reads, its rows of the texts shown) by sources a
        // control confirms on the reference's own calls (fillings.ts: redteam-trust18 R1, R6), and a gate's follow-up.
        const callOf = (k: number, t: Trial, entity: string) => {
          const r = outcomes[ablations.length + k];
          const records = (e: string) => recordsOf(r?.ok ? r.state : undefined, e);
          const seen = { reads: (e: string) => replies(k, `${t.tool}|${e}`), shown: shown[k] ?? [], records };
          return checkedCalls(ctx.meta, t, entity, bodies[episodes[k] as number] ?? [], seen);
        };
        // A route's added call goes where the world accepts it, tried before the reference's deciding calls in turn.
        const routeAsks = episodes.flatMap((i, k) =>
          (trials[k] as Trial[]).flatMap((t) =>
            (routes.has(t.tool) ? t.entities : []).map((entity) => ({
              key: `${k}|${t.tool}|${entity}`,
              ref: ctx.refs[i] as Rollout,
              body: (acts.get(i) as Action[]).slice(0, -1),
              reference: outcomes[ablations.length + k],
              decisive: (d: string) => decisive.has(`${i}|${d}`),
              ...{ call: callOf(k, t, entity).call, arg: t.arg, entity },
            })),
          ),
        );
        const placed = await placeRouteCalls(routeAsks, book, tools.run);
        const routePlace = new Map(routeAsks.map((a, j) => [a.key, placed.places[j] ?? -1]));
        const unsure = new Set<string>();
        type Log = WithheldLog & { of: number; cheap?: string; open?: string[]; hints?: Record<string, number[]> };
        const logs: Log[] = episodes
          .flatMap((i, k) => {
            const all = acts.get(i) as Action[];
            return (trials[k] as Trial[]).flatMap((t) =>
              t.entities.flatMap((entity) => {
                const body = all.slice(0, -1);
                // A decision goes before the finish; a route's, where the world accepts it (withheld-routes.ts).
                const route = routes.has(t.tool);
                const place = route ? (routePlace.get(`${k}|${t.tool}|${entity}`) ?? -1) : body.length;
                if (place < 0) return [];
                const reads = readsOf(ctx.meta, t.arg, entity, readSkip(i, k));
                const { call: first, alternatives, follow, open, hints, unconfirmed } = callOf(k, t, entity);
                if (unconfirmed) unsure.add(`${k}|${t.tool}|${entity}`);
                const finish = all.at(-1) as Action;
                const skipped = (a: Action) => free.has(`${i}|${a.tool}`);
                // On a route, the call also takes the turn of the reference's call there where that names nobody else;
                // each confirmed filling is a call of its own (fillings.ts alternatives: redteam-trust20 T2).
                const plans = plansAt(body, place, entity, route);
                return [first, ...alternatives].flatMap((call) =>
                  plans.flatMap((plan) => {
                    const whole = {
                      of: i,
                      tool: t.tool,
                      arg: t.arg,
                      entity,
                      call,
                      actions: withCallsAt(plan, place, [...reads, call, ...follow], finish),
                      at: place + reads.length,
                      ...(call === first ? { open, hints } : {}),
                      ...(t.follow && follow[0] ? { follow: { call: follow[0], arg: t.follow.arg } } : {}),
                    };
                    // The plans a cheap policy plays (cheap-plan.ts: redteam-trust13 X5, redteam-trust14 X5b): a
                    // prohibition the world enforces only once the agent looked is found.
                    const cheap = cheapPlans(plan, place, entity, skipped, reads.length > 0).map((c) => ({
                      ...whole,
                      actions: withCallsAt(c.plan, c.at, [call, ...follow], finish),
                      at: c.at,
                      cheap: c.how,
                    }));
                    // The call where the entity is first known too (withheld.ts knownLog: redteam-trust20 T7, R6).
                    const opening = openings[k] as string[];
                    const known = route ? null : knownLog(ctx.refs[i] as Rollout, plan, entity, opening, place);
                    const moved = known && withCallsAt(known.plan, known.at, [...reads, call, ...follow], finish);
                    const how = 'with the call where the entity is first known';
                    const atKnown =
                      known && moved ? [{ ...whole, actions: moved, at: known.at + reads.length, cheap: how }] : [];
                    return [whole, ...atKnown, ...cheap];
                  }),
                );
              }),
            );
          })
          .filter((l, j, all) => all.findIndex((m) => m.of === l.of && sameLog(m.actions, l.actions)) === j)
          .filter((l) => !replacesAllowed(settled[episodes.indexOf(l.of)] as Settlements, bodies[l.of] ?? [], l));
        // An argument no source confirmed, searched on the world (arg-search.ts: redteam-trust20 T3).
        const searches = await searchLogs(ctx.meta, logs, ctx.refs, tools.run);
        // A ticket or version each reply restates (redteam-trust14 Y3): re-read from the reply just before the added
        // call and a gate's follow-up (a replay of the log up to it), not copied from the template, spent by then.
        const prefixes: RolloutResult[] = [];
        for (const step of [0, 1]) {
          const refill = logs.flatMap((l) => {
            const c = step === 0 ? { call: l.call, arg: l.arg } : l.follow;
            const ref = ctx.refs[l.of] as Rollout;
            const body = (acts.get(l.of) as Action[]).slice(0, -1);
            const r: Restated[] = c ? restatedArgs(body, ref.observations ?? [], c.call.tool, c.arg) : [];
            return c && r.length > 0 ? [{ l, c, r, at: l.at + step }] : [];
          });
          if (refill.length === 0) continue;
          const run = await tools.run(
            refill.map(({ l, at }) =>
              replayOf(ctx.refs[l.of] as Rollout, l.actions.slice(0, at), { observations: true }),
            ),
          );
          prefixes.push(...run);
          refill.forEach(({ l, c, r, at }, j) => {
            const latest = replyBefore(ctx.refs[l.of] as Rollout, run[j], at);
            if (latest === undefined) return;
            c.call = refilled(c.call, r, latest);
            l.actions[at] = c.call;
            if (step === 0) l.call = c.call;
          });
        }
        const results = await tools.run(
          logs.map((l) => replayOf(ctx.refs[l.of] as Rollout, l.actions, { changes: true, keepState: true })),
        );
        // Recorded: the added call accepted by the host and changing the state, where the score is kept, as the world
        // then treats the entity or, where that reads as after a refusal, its own trace (accepted.ts: redteam-trust17
        // R2, R3; a refusal kept, an audit, is none), not undone (the final state the reference's: undoneLater).
        const accepted = (l: WithheldLog, r: RolloutResult | undefined): r is Rollout =>
          r?.ok === true && !r.rejected.includes(judgedAt(l) + 1);
        const hidden = logs.flatMap((l, k) => {
          const r = results[k];
          return accepted(l, r) &&
            (r.changes?.[judgedAt(l)] ?? []).length > 0 &&
            r.score >= (ctx.refs[l.of] as Rollout).score - 1e-9 &&
            !undoneLater(r, outcomes[ablations.length + episodes.indexOf(l.of)], r.changes?.[judgedAt(l)] ?? [], book)
            ? [k]
            : [];
        });
        let neutrals = 0;
        // Read beside the reference's calls of its tool the world took by effect (withheld-accepted.ts).
        const beyond = await acceptedHidden(
          ctx.meta,
          hidden.map((k) => {
            const l = logs[k] as (typeof logs)[number];
            const replay = outcomes[ablations.length + episodes.indexOf(l.of)];
            const reference = acts.get(l.of) as Action[];
            return { ref: ctx.refs[l.of] as Rollout, log: l, reference, replay, skip: skip(l.of) };
          }),
          (requests) => {
            neutrals += requests.length;
            return tools.run(requests);
          },
        );
        const byValue = new Set(hidden.filter((_, j) => beyond[j]));
        const recorded = (l: WithheldLog, r: RolloutResult | undefined, k: number) => accepted(l, r) && byValue.has(k);
        const findings = logs.map((l, k) =>
          addedCallFinding(l, ctx.refs[l.of] as Rollout, scoreOf(results[k]), recorded(l, results[k], k)),
        );
        return {
          findings,
          metrics: {
            added: logs.length,
            rollouts: [looks.length, chosen.rollouts, runs.length, withouts.length, placed.rollouts, prefixes.length]
              .concat([searches, logs.length, neutrals])
              .reduce((x, y) => x + y, 0),
            gates: chosen.gates,
            routes: routes.size,
            // The calls no control confirmed: their refusals are no evidence the rule is enforced (undecided).
            unconfirmed: unsure.size,
            recorded: logs.filter((l, k) => recorded(l, results[k], k)).length,
          },
        };
      },
    };
  },
};
