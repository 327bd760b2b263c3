// Judges the adversary probes of adversaries.ts against their own reference episode: a plan cut short, one
// decision repeated or one decision applied to everything, then the finishing call, may not earn what the
// reference earns (once ablation shows the dropped tool decides the score); a wrong value's observation may not
// show the reference's computed value, nor sort values into "too high" / "too low" (confirmed by bisection);
// the reference shrunk (shrink.ts) must not be paid for a part that stays flat across levels.
import type { ProblemCode } from '../../contract/codes.js';
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { SandboxLimits } from '../../sandbox/protocol.js';
import type { SandboxPool } from '../../sandbox/pool.js';
import { runRollouts, type Rollout, type RolloutResult } from '../../sandbox/rollouts.js';
import type { Problem } from '../report.js';
import { numbersOf, offPathCall, type OffPath, type Target } from './adversaries.js';
import { tokensOf, type Probe } from './probes.js';
import { judgeShrink } from './shrink.js';
import { judgeValueAdversaries } from './adversaries-values-judge.js';

export interface Scored {
  probe: Probe;
  result: RolloutResult;
}
interface Judged {
  problems: Problem[];
  metrics: Record<string, number>;
}

const ZERO: Array<[Probe['family'], ProblemCode, string]> = [
  ['prefix-finish', 'E_ACCEPTS_INCOMPLETE', 'a prefix of the reference plan (decisions left out), then the finishing call'],
  ['repeat-finish', 'E_ACCEPTS_REPEATED_ACTION', 'one reference decision repeated, then the finishing call'],
  ['blanket', 'E_ACCEPTS_BLANKET', 'one decision applied to every entity the episode names, then the finishing call'],
];
const score = (s: Scored) => (s.result.ok ? s.result.score : 0);
const actionsText = (s: Scored) => (s.probe.request.policy.type === 'replay' ? JSON.stringify(s.probe.request.policy.actions.slice(0, 6)).slice(0, 400) : '');

/** An observation with its numbers masked: what stays is what a value's side can change ("too high", "too low"). */
export const shapeOf = (text: string) => text.replace(/-?\$?\d[\d,]*(?:\.\d+)?/g, '#');

/** Values the agent is given: the prompt's tokens and every scalar of the initial state. */
function knownOf(r: Rollout, initial: RolloutResult | undefined): Set<string> {
  const known = new Set<string>([...tokensOf(r.prompt ?? ''), ...numbersOf(r.prompt ?? '').map(String)]);
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(walk);
    else known.add(String(v).toLowerCase());
  };
  if (initial?.ok) walk(initial.state);
  return known;
}
const computed = (t: Target, known: Set<string>) => !(Number.isInteger(t.value) && Math.abs(t.value) < 100) && !known.has(String(t.value));

export async function judgeAdversaries(
  scored: Scored[],
  refs: Rollout[],
  env: { pool: SandboxPool; source: string; meta: EpisodicMeta; limits?: Partial<SandboxLimits>; zeroTolerance: number; leakRate: number },
): Promise<Judged> {
  const problems: Problem[] = [];
  const of = (family: Probe['family']) => scored.filter((s) => s.probe.family === family && s.probe.of >= 0);
  // A tool decides the score of an episode when the reference without its calls earns less.
  const decisive = new Set(of('tool-ablation').filter((s) => score(s) < (refs[s.probe.of] as Rollout).score - 1e-9).map((s) => `${s.probe.of}|${s.probe.needs?.[0]}`));
  const metrics: Record<string, number> = { decisiveTools: decisive.size };
  // The least paid part of the reference must grow with the level (shrink.ts): reads stay, decisions are dropped.
  const shrink = await judgeShrink(refs, [...new Set(of('tool-ablation').map((s) => s.probe.of))], decisive, env);
  problems.push(...shrink.problems);
  Object.assign(metrics, shrink.metrics);
  for (const [family, code, what] of ZERO) {
    const judged = of(family).filter((s) => (s.probe.needs ?? []).some((t) => decisive.has(`${s.probe.of}|${t}`)) && (refs[s.probe.of] as Rollout).score >= env.zeroTolerance);
    const hits = judged.filter((s) => score(s) >= (refs[s.probe.of] as Rollout).score - 1e-6);
    metrics[family] = judged.length === 0 ? 0 : hits.length / judged.length;
    const top = hits[0];
    if (top) {
      const ref = refs[top.probe.of] as Rollout;
      problems.push({ code, message: `${what} earns the reference's score ${ref.score} in ${hits.length} of ${judged.length} such probes (zero tolerance)`, evidence: { family, seed: ref.seed, level: ref.level, score: score(top), actions: actionsText(top) } });
    }
  }

  // Off-path observations: a wrong value's reply (or a tool the reference never calls) must not carry the computed value.
  const initial = new Map(scored.filter((s) => s.probe.family === 'no-action').map((s) => [s.probe.of, s.result]));
  const offPath = of('off-path');
  const episodes = [...new Set(offPath.map((s) => s.probe.of))];
  const leaked: Scored[] = [];
  const bisect: Array<{ ref: Rollout; target: Target; low: string; high: string }> = [];
  let withTargets = 0;
  for (const i of episodes) {
    const ref = refs[i] as Rollout;
    const known = knownOf(ref, initial.get(i));
    // Only replies the agent can still act on count: a call that ends the episode leaks nothing usable.
    const mine = offPath.filter((s) => s.probe.of === i && s.probe.offPath && s.result.ok && s.result.end !== 'done' && computed(s.probe.offPath.target, known));
    if (mine.length === 0) continue;
    withTargets++;
    const values = new Set(mine.map((s) => (s.probe.offPath as OffPath).target.value));
    const shows = (text: string, sent: number | null) => numbersOf(text).some((n) => values.has(n) || (sent !== null && (values.has(sent + n) || values.has(sent - n))));
    const shortcuts = scored.filter((s) => s.probe.family === 'shortcut' && s.probe.of === i && s.result.ok && (s.result.observations?.length ?? 0) > 1);
    const hit = mine.find((s) => s.result.ok && shows(s.result.observations?.[0] ?? '', s.probe.offPath?.side === 'zero' ? s.probe.offPath.sent : null)) ?? shortcuts.find((s) => s.result.ok && shows(s.result.observations?.[0] ?? '', null));
    if (hit) leaked.push(hit);
    // A comparator: every value below the reference's gets one reply, every value above another.
    for (const target of [...new Set(mine.map((s) => (s.probe.offPath as OffPath).target))]) {
      const side = (name: OffPath['side']) => [...new Set(mine.filter((s) => s.probe.offPath?.target === target && s.probe.offPath.side === name).map((s) => (s.result.ok ? shapeOf(s.result.observations?.[0] ?? '') : '\u0000')))];
      const [low, high] = [side('low'), side('high')];
      if (low.length === 1 && high.length === 1 && low[0] !== high[0] && !low.includes('\u0000')) bisect.push({ ref, target, low: low[0] as string, high: high[0] as string });
    }
  }
  metrics.offPathLeak = withTargets === 0 ? 0 : leaked.length / withTargets;
  if (withTargets > 0 && metrics.offPathLeak >= env.leakRate) {
    const top = leaked[0] as Scored;
    problems.push({ code: 'E_ANSWER_LEAK', message: `in ${(100 * metrics.offPathLeak).toFixed(0)}% of probed episodes a call off the reference's path (a wrong value, or a tool the reference never calls) is answered with the reference's computed value (or its difference to the value sent)`, evidence: { family: top.probe.family, seed: top.probe.request.seed, level: top.probe.request.level, actions: actionsText(top), observation: top.result.ok ? (top.result.observations?.[0] ?? '').slice(0, 200) : null } });
  }
  const found = await bisection(bisect, env);
  metrics.comparator = withTargets === 0 ? 0 : found.length / withTargets;
  if (withTargets > 0 && metrics.comparator >= env.leakRate) {
    const f = found[0] as (typeof found)[number];
    problems.push({ code: 'E_ANSWER_LEAK', message: `in ${(100 * metrics.comparator).toFixed(0)}% of probed episodes the reply to a wrong ${f.tool}.${f.arg} says which side of the reference's value it lies ("${f.low.slice(0, 80)}" / "${f.high.slice(0, 80)}"): bisection finds the value in ${f.calls} calls without one lookup`, evidence: { seed: f.seed, level: f.level, value: f.value } });
  }
  // The rt4 adversaries (cuts without the finish, transfers, categorical oracle, readers, truth writes).
  const rt4 = await judgeValueAdversaries(scored, refs, decisive, env);
  return { problems: [...problems, ...rt4.problems], metrics: { ...metrics, ...rt4.metrics } };
}

/** Bisection on each comparator target, one sandbox job per round (all targets at once): the targets it finds. */
async function bisection(list: Array<{ ref: Rollout; target: Target; low: string; high: string }>, env: { pool: SandboxPool; source: string; meta: EpisodicMeta; limits?: Partial<SandboxLimits> }) {
  const scale = (t: Target) => (t.integer ? 1 : 100);
  const open = list.map((c) => {
    const k = scale(c.target);
    const span = 2 ** Math.ceil(Math.log2(Math.abs(c.target.value) + 2) + 1);
    return { ...c, lo: Math.ceil((c.target.min ?? -span) * k), hi: Math.floor((c.target.max ?? span) * k), log: [] as unknown[], found: null as number | null, done: false };
  });
  for (let round = 0; round < 48 && open.some((c) => !c.done); round++) {
    const live = open.filter((c) => !c.done);
    const mids = live.map((c) => Math.floor((c.lo + c.hi) / 2));
    // The policy retries within one episode, as an agent would: the log grows by one call a round.
    live.forEach((c, i) => c.log.push(offPathCall(c.ref, c.target, (mids[i] as number) / scale(c.target))));
    const run = await runRollouts(env.pool, env.source, env.meta, live.map((c) => ({ seed: c.ref.seed, level: c.ref.level, policy: { type: 'replay' as const, actions: c.log }, observations: true })), env.limits ? { limits: env.limits } : {});
    live.forEach((c, i) => {
      const r = run.rollouts[i];
      const m = mids[i] as number;
      const shape = r?.ok && r.end !== 'done' ? shapeOf(r.observations?.at(-1) ?? '') : null;
      if (shape === c.low) c.lo = m + 1;
      else if (shape === c.high) c.hi = m - 1;
      else ((c.found = m), (c.done = true));
      if (c.lo > c.hi || c.log.length >= env.meta.maxTurns - 1) c.done = true;
    });
  }
  return open
    .filter((c) => c.found !== null && c.found / scale(c.target) === c.target.value)
    .map((c) => ({ tool: (c.ref.actions[c.target.index] as { tool: string }).tool, arg: c.target.arg, low: c.low, high: c.high, calls: c.log.length, seed: c.ref.seed, level: c.ref.level, value: c.target.value }));
}
