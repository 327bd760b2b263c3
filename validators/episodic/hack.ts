// Stage 5 for episodic candidates, hack resistance: every probe of probes.ts runs in one sandbox job, and
// each family is judged: zero tolerance for no action, invalid actions and the reference minus its last
// action; another episode's actions, a repeated action, the finishing call alone and the random policy
// against chance; the prompt and observations must not hand the agent the reference's values; the adversary
// library (adversaries.ts) is judged against each probe's own reference by adversary-judge.ts.
import type { ProblemCode } from '../../contract/codes.js';
import type { EpisodicProbeFamily } from '../../kinds/contract.js';
import type { EpisodeFailure } from '../../sandbox/episodes.js';
import { runRollouts, type Rollout, type RolloutResult } from '../../sandbox/rollouts.js';
import { mean, type Stage } from '../context.js';
import { lowerBound } from '../stats.js';
import type { Problem } from '../report.js';
import { judgeAdversaries } from './adversary-judge.js';
import { buildProbes, tokensOf, type Probe } from './probes.js';
import { failureProblems, metaOf } from './stages.js';
import { judgeTyped } from './typed.js';

const ZERO: Partial<Record<EpisodicProbeFamily, ProblemCode>> = { 'no-action': 'E_ACCEPTS_NO_ACTION', 'invalid-actions': 'E_ACCEPTS_INVALID_ACTIONS', incomplete: 'E_ACCEPTS_INCOMPLETE' };
const RATE: Partial<Record<EpisodicProbeFamily, ProblemCode>> = { 'other-episode': 'E_ACCEPTS_OTHER_EPISODE', 'repeated-action': 'E_ACCEPTS_REPEATED_ACTION', shortcut: 'E_ACCEPTS_SHORTCUT', 'finish-alone': 'E_ACCEPTS_REPEATED_ACTION', 'random-policy': 'E_ACCEPTS_RANDOM_POLICY' };

interface Scored {
  probe: Probe;
  result: RolloutResult;
}

export const episodicHack: Stage = async (ctx) => {
  const meta = metaOf(ctx);
  const refs = ctx.rollouts ?? [];
  const o = ctx.options.episodic;
  const probes = buildProbes(meta, refs, { ...o, probedPerLevel: ctx.options.probedPerLevel }, ctx.validationSeed);
  // Rollout jobs run in fresh realms (sandbox/rollouts.ts): the probes fill whole realm lifetimes.
  const run = await runRollouts(ctx.pool, ctx.source, meta, probes.map((p) => p.request), { limits: ctx.options.limits });
  const scored: Scored[] = probes.map((probe, i) => ({ probe, result: run.rollouts[i] as RolloutResult }));
  const problems: Problem[] = failureProblems(scored.map((s) => s.result).filter((r): r is EpisodeFailure => !r.ok), probes.length);
  const score = (s: Scored) => (s.result.ok ? s.result.score : 0);
  const family = (f: EpisodicProbeFamily) => scored.filter((s) => s.probe.family === f && s.probe.of >= -1);
  const worst: Record<string, { mean: number; pass: number; max: number }> = {};

  for (const [f, code] of Object.entries(ZERO) as Array<[EpisodicProbeFamily, ProblemCode]>) {
    const list = family(f);
    const top = list.reduce<Scored | null>((best, s) => (best === null || score(s) > score(best) ? s : best), null);
    worst[f] = { mean: mean(list.map(score)), pass: share(list, score), max: top ? score(top) : 0 };
    if (top && score(top) >= o.zeroToleranceCeiling) problems.push({ code, message: `the ${f} probe scores ${score(top)} (zero tolerance: below ${o.zeroToleranceCeiling})`, evidence: evidenceOf(top) });
  }
  // The repeat and shortcut families' score per reference episode is their best attempt.
  const best: Partial<Record<EpisodicProbeFamily, Scored[]>> = { 'repeated-action': bestPerEpisode(family('repeated-action'), score), shortcut: bestPerEpisode(family('shortcut'), score) };
  const ceilings: Record<string, number> = { 'finish-alone': o.finishAlonePassCeiling, 'random-policy': o.randomPassCeiling };
  for (const [f, code] of Object.entries(RATE) as Array<[EpisodicProbeFamily, ProblemCode]>) {
    const list = best[f] ?? family(f);
    if (list.length === 0) continue;
    const levels = [...new Set(list.map((s) => s.probe.request.level))].map((level) => list.filter((s) => s.probe.request.level === level).map(score));
    const stats = { mean: Math.max(...levels.map(mean)), pass: share(list, score), max: Math.max(...list.map(score)) };
    const judged = Math.max(...levels.map((scores) => lowerBound(mean(scores), scores.length, o.rateMeanZ)));
    worst[f] = stats;
    const passCeiling = ceilings[f] ?? o.ratePassCeiling;
    const meanCeiling = f === 'finish-alone' || f === 'random-policy' ? Math.max(o.rateMeanCeiling, passCeiling) : o.rateMeanCeiling;
    if (stats.pass > passCeiling || judged > meanCeiling) {
      const best = list.reduce((a, b) => (score(b) > score(a) ? b : a));
      problems.push({ code, message: `the ${f} probe: worst level mean score ${stats.mean.toFixed(3)} (lower bound ${judged.toFixed(3)}, limit ${meanCeiling}), full passes ${(100 * stats.pass).toFixed(1)}% (limit ${(100 * passCeiling).toFixed(1)}%) of ${list.length}`, evidence: evidenceOf(best) });
    }
  }
  ctx.randomByLevel = new Map([...new Set(family('random-policy').map((s) => s.probe.request.level))].map((level) => [level, mean(family('random-policy').filter((s) => s.probe.request.level === level).map(score))]));

  // A leak: the reference's values readable from the prompt (solves its own episode, not another's)…
  const own = scored.filter((s) => s.probe.family === 'prompt-replay' && s.probe.of >= 0);
  const chance = scored.filter((s) => s.probe.family === 'prompt-replay' && s.probe.of < 0);
  const promptLeak = share(own, score, 0.5) - share(chance, score, 0.5);
  if (own.length > 0 && promptLeak >= o.promptLeakMaxRate) {
    problems.push({ code: 'E_ANSWER_LEAK', message: `replaying only the reference actions whose values the prompt spells out solves ${(100 * promptLeak).toFixed(0)}% more episodes than on another instance: the prompt gives the plan away`, evidence: evidenceOf(own.find((s) => score(s) >= 0.5) ?? (own[0] as Scored)) });
  }
  // …or shown by an observation before the reference sends it (an echo of the agent's own arguments aside).
  const noAction = new Map(family('no-action').map((s) => [s.probe.of, s.result]));
  const perturbed = new Map(family('perturbed').map((s) => [s.probe.of, s.result]));
  const observationLeak = share(refs, (r, i) => {
    const probe = perturbed.get(i);
    // A refused wrong value must not be answered with the right one: the perturbed replay's observations count too.
    return observationLeaks(r, r.observations, noAction.get(i)) || (probe?.ok === true && observationLeaks(r, probe.observations, noAction.get(i), probe.actions)) ? 1 : 0;
  });
  if (refs.length > 0 && observationLeak >= o.observationLeakMaxRate) {
    problems.push({ code: 'E_ANSWER_LEAK', message: `in ${(100 * observationLeak).toFixed(0)}% of episodes an observation shows a computed value (not in the initial state or the prompt) before the reference submits it: a tool leaks the answer` });
  }
  // The adversary library (adaptive policies judged against their own reference): adversary-judge.ts.
  const adversaries = await judgeAdversaries(scored, refs, { pool: ctx.pool, source: ctx.source, meta, ...(ctx.options.limits ? { limits: ctx.options.limits } : {}), zeroTolerance: o.zeroToleranceCeiling, leakRate: o.observationLeakMaxRate });
  problems.push(...adversaries.problems);
  const typed = judgeTyped(family('typed-reference').map((s) => ({ ref: refs[s.probe.of] as Rollout, score: score(s), actions: s.probe.request.policy.type === 'replay' ? s.probe.request.policy.actions : [] })));
  problems.push(...typed.problems);
  const worstProbe = Object.entries(worst).reduce<[string, { mean: number }] | null>((a, b) => (a === null || b[1].mean > a[1].mean ? b : a), null);
  return { ok: problems.length === 0, metrics: { probes: probes.length, families: worst, worstProbe: worstProbe?.[0] ?? null, promptLeak, observationLeak, adversaries: { ...adversaries.metrics, ...typed.metrics }, wallMs: Math.round(run.wallMs) }, problems };
};

function share<T>(list: T[], score: (t: T, i: number) => number, at = 1): number {
  return list.length === 0 ? 0 : list.filter((t, i) => score(t, i) >= at).length / list.length;
}

function bestPerEpisode(list: Scored[], score: (s: Scored) => number): Scored[] {
  const best = new Map<number, Scored>();
  for (const s of list) {
    const seen = best.get(s.probe.of);
    if (!seen || score(s) > score(seen)) best.set(s.probe.of, s);
  }
  return [...best.values()];
}

function evidenceOf(s: Scored): unknown {
  const r = s.result;
  const actions = s.probe.request.policy.type === 'replay' ? s.probe.request.policy.actions : r.ok ? r.actions : [];
  return { family: s.probe.family, seed: s.probe.request.seed, level: s.probe.request.level, score: r.ok ? r.score : null, end: r.ok ? r.end : null, actions: JSON.stringify(actions.slice(0, 5)).slice(0, 400) };
}

/** Whether an observation (of `r` itself, or of a probe with `sent` actions) shows a number the reference sends that neither the prompt nor the initial state holds. */
function observationLeaks(r: Rollout, observations: string[] | undefined, initial: RolloutResult | undefined, sent: unknown[] = r.actions): boolean {
  if (!initial?.ok || initial.state === undefined || !observations) return false;
  const known = new Set<string>(tokensOf(r.prompt ?? ''));
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
    else known.add(String(v).toLowerCase());
  };
  walk(initial.state);
  const argsOf = (a: unknown): unknown[] => Object.values(((a as { args?: Record<string, unknown> } | null)?.args ?? {}) as Record<string, unknown>);
  return r.actions.some((action, idx) =>
    argsOf(action).some((v) => {
      if (typeof v !== 'number' || (Number.isInteger(v) && Math.abs(v) < 100) || known.has(String(v))) return false;
      const before = sent === r.actions ? observations.slice(0, idx) : observations;
      return before.some((text, j) => !argsOf(sent[j]).includes(v) && tokensOf(text).some((w) => Number(w) === v));
    }),
  );
}
