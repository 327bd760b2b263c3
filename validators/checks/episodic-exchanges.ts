// Decisions exchanged between entities (validators/episodic/exchanges.ts), on the first adversary episode of each
// level, for each tool that decides the score: a log that reaches another final state than the reference's and still
// earns its score, where one call re-valued alone earns less (the decision matters) and the entities are neither
// described alike nor offered the same options handed out by turn, pays the tally of the decisions rather than each
// entity's own (zero tolerance, E_ACCEPTS_TRANSFER; docs/validator.md, "Exchanged decisions").
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf } from '../episodic/adversaries.js';
import { exchangeLogs, pooledPairs, surveyOf, type Exchange, type Pooled } from '../episodic/exchanges.js';
import { handedByTurn, swapPlaces } from '../episodic/pool-effect.js';
import type { JudgeTools } from './contract.js';
import { onFirstEpisodes } from './episodic-ablation.js';
import { replayOf, scoreOf, type EpisodicCheck } from './episodic.js';
import type { Finding } from './rules.js';

type Planned = { of: number; x: Exchange };
/** Decisive tools whose decisions are exchanged per episode. */
const TOOLS = 2;

export const episodicExchanges: EpisodicCheck = {
  name: 'episodic-exchanges',
  codes: ['E_ACCEPTS_TRANSFER'],
  kinds: ['episodic'],
  plan(ctx) {
    return onFirstEpisodes(ctx, async ({ episodes, decisive, reference }, tools) => {
      const planned: Planned[] = episodes.flatMap((of) => {
        const r = ctx.refs[of] as Rollout;
        const used = [
          ...new Set(
            actionsOf(r)
              .slice(0, -1)
              .map((a) => a.tool),
          ),
        ];
        return used
          .filter((t) => decisive.has(`${of}|${t}`))
          .slice(0, TOOLS)
          .flatMap((tool) => exchangeLogs(ctx.meta, r, tool).map((x) => ({ of, x })));
      });
      const results = await tools.run(
        planned.map((p) => replayOf(ctx.refs[p.of] as Rollout, p.x.actions, { keepState: true })),
      );
      const paid = (of: number, r: RolloutResult | undefined) => scoreOf(r) >= (ctx.refs[of] as Rollout).score - 1e-6;
      const differs = (of: number, r: RolloutResult | undefined) =>
        r?.ok === true && reference.get(of)?.ok === true && r.stateText !== (reference.get(of) as Rollout).stateText;
      // Only what pays is questioned further: one call re-valued alone, and what the episode says of the entities.
      const suspects = planned.flatMap((p, k) => (differs(p.of, results[k]) && paid(p.of, results[k]) ? [k] : []));
      const seen = [...new Set(suspects.map((k) => (planned[k] as Planned).of))];
      const controls = suspects.flatMap((k) => (planned[k] as Planned).x.controls.map((actions) => ({ k, actions })));
      const surveys = seen.flatMap((of) => {
        const actions = surveyOf(ctx.meta, ctx.refs[of] as Rollout);
        return actions.length > 0 ? [{ of, actions }] : [];
      });
      const followUps = await tools.run([
        ...controls.map((c) => replayOf(ctx.refs[(planned[c.k] as Planned).of] as Rollout, c.actions)),
        ...seen.map((of) =>
          replayOf(ctx.refs[of] as Rollout, (ctx.refs[of] as Rollout).actions, { observations: true }),
        ),
        ...surveys.map((v) => replayOf(ctx.refs[v.of] as Rollout, v.actions, { observations: true })),
      ]);
      // The decision matters where some call re-valued alone earns less than the reference.
      const matters = new Set(
        controls.flatMap((c, j) => (paid((planned[c.k] as Planned).of, followUps[j]) ? [] : [c.k])),
      );
      const observed = new Map(
        seen.map((of, j) => {
          const o = followUps[controls.length + j];
          return [of, o?.ok === true ? (o.observations ?? []) : []];
        }),
      );
      const surveyed = new Map(
        surveys.map((v, j) => {
          const o = followUps[controls.length + seen.length + j];
          const replies = o?.ok === true ? (o.observations ?? []) : [];
          return [v.of, v.actions.flatMap((a, i) => (replies[i] === undefined ? [] : [{ ...a, reply: replies[i] }]))];
        }),
      );
      // Entities described alike trade freely; entities offered the same options, where the reference hands them out by
      // turn (pool-effect.ts).
      const pairs = new Map(
        suspects.flatMap((k) => {
          const p = planned[k] as Planned;
          const ref = ctx.refs[p.of] as Rollout;
          return matters.has(k)
            ? [[k, pooledPairs(ref, observed.get(p.of) ?? [], p.x, surveyed.get(p.of))] as const]
            : [];
        }),
      );
      const pooled = [...pairs].flatMap(([k, ps]) =>
        ps !== null && ps.length > 0 ? [{ ...(planned[k] as Planned), k, ps }] : [],
      );
      const byTurn = await handedOutByTurn(ctx.refs, tools, pooled);
      const findings: Finding[] = [];
      let skipped = 0;
      planned.forEach((p, k) => {
        const ref = ctx.refs[p.of] as Rollout;
        const r = results[k];
        if (!differs(p.of, r)) return;
        const suspect = suspects.includes(k);
        // Every duplicate decision pays too: the argument does not decide alone. Entities alike or pooled: free.
        const ps = pairs.get(k);
        if (suspect && (!matters.has(k) || (ps !== undefined && ps !== null && (ps.length === 0 || byTurn.has(k)))))
          return void skipped++;
        findings.push(findingOf(ref, p.x, r, suspect));
      });
      return { findings, metrics: { exchanges: planned.length, followUps: followUps.length, skipped } };
    });
  },
};

/**
 * The exchanges (`k`) whose pooled pairs the reference hands out by turn: per episode its reset state (a replay of no
 * action), then per pair the reference played from that state with the two entities' places swapped (pool-effect.ts).
 */
async function handedOutByTurn(
  refs: readonly Rollout[],
  tools: JudgeTools<RolloutRequest, RolloutResult>,
  pooled: ReadonlyArray<Planned & { k: number; ps: Pooled[] }>,
): Promise<Set<number>> {
  if (pooled.length === 0) return new Set();
  const episodes = [...new Set(pooled.map((p) => p.of))];
  const starts = await tools.run(episodes.map((of) => replayOf(refs[of] as Rollout, [], { keepState: true })));
  const start = new Map(episodes.map((of, j) => [of, starts[j]]));
  const trials = pooled.flatMap((p) =>
    p.ps.map(([a, b]) => {
      const s = start.get(p.of);
      return { p, a, b, state: s?.ok === true && s.state !== undefined ? swapPlaces(s.state, a.ids, b.ids) : null };
    }),
  );
  const played = trials.filter((t) => t.state !== null);
  const runs = await tools.run(
    played.map((t) => {
      const r = refs[t.p.of] as Rollout;
      const from = { state: JSON.stringify(t.state), turn: 0, errors: 0 };
      return { seed: r.seed, level: r.level, policy: { type: 'act' as const }, from };
    }),
  );
  const follows = (t: (typeof trials)[number]) => {
    const r = runs[played.indexOf(t)];
    return r?.ok === true && handedByTurn(actionsOf(r), t.p.x.tool, t.p.x.arg, t.a, t.b);
  };
  return new Set(pooled.flatMap((p) => (trials.filter((t) => t.p === p).every(follows) ? [p.k] : [])));
}

/** The finding of one exchange log judged: a hit where it earns the reference's score. */
function findingOf(ref: Rollout, x: Exchange, r: RolloutResult | undefined, hit: boolean): Finding {
  const acts = actionsOf(ref);
  const values = x.moves.map(([, from]) => JSON.stringify(acts[from]?.args[x.arg]));
  return {
    rule: 'zero',
    code: 'E_ACCEPTS_TRANSFER',
    check: 'episodic-exchanges',
    judged: hit ? 1 : 0,
    ceiling: 1,
    what: 'exchange log',
    form: `${x.tool}.${x.arg} ${x.kind} of ${x.moves.length} calls (seed ${ref.seed}, level ${ref.level})`,
    reads: `scores ${scoreOf(r)} (the reference ${ref.score}), another final state`,
    evidence: () => ({
      tool: x.tool,
      arg: x.arg,
      exchange: x.kind,
      calls: x.moves.map(([to]) => to + 1),
      values: values.join(' ').slice(0, 120),
      seed: ref.seed,
      level: ref.level,
      score: scoreOf(r),
    }),
  };
}
