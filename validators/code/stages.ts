// The stages a code candidate (contract v3) runs in place of the single-turn ones: determinism reruns
// generate, solve and the scoring of programs in fresh isolates and another order; diversity reads the
// hidden tests' outputs where a v1 module has its answer; the hack stage runs the registry's code checks;
// difficulty reads the hidden tests' sizes (difficulty.ts).
import { LOAD_SENSITIVE } from '../../contract/codes.js';
import { scoreOf, type Episode, type EpisodeResult } from '../../sandbox/episodes.js';
import type { CodeInstance } from '../../kinds/code.js';
import { checksFor, type AnyCheck } from '../checks/contract.js';
import { CHECKS } from '../checks/registry.js';
import { judgeFindings, type Finding } from '../checks/rules.js';
import type { Stage, StageContext } from '../context.js';
import type { Problem, StageName } from '../report.js';
import { timedOutRuns } from '../stages/determinism.js';
import { diversityStage } from '../stages/diversity.js';
import type { CodeCheck, CodeCheckContext } from './check.js';
import { codeDifficulty } from './difficulty.js';
import { runCodeRequests, type CodeRequest } from './run.js';

/** Spreads `count` picks evenly over the episodes (ordered by level). */
export function spread(episodes: Episode[], count: number): Episode[] {
  if (episodes.length <= count) return episodes;
  const step = episodes.length / count;
  return Array.from({ length: count }, (_, i) => episodes[Math.floor(i * step)] as Episode);
}

const signature = (e: EpisodeResult | undefined) =>
  e?.ok
    ? JSON.stringify([e.instance, e.reference, e.referenceVerdict, e.verdicts.map(scoreOf)])
    : `failed:${e?.code}:${e?.fn}`;

/** Task, reference program and the reference's score: what the execution stage sampled too. */
const core = (e: EpisodeResult | undefined) =>
  e?.ok ? JSON.stringify([e.instance, e.reference, scoreOf(e.referenceVerdict)]) : `failed:${e?.code}`;

const codeDeterminism: Stage = async (ctx) => {
  const picked = spread(ctx.episodes, ctx.options.determinismSamples);
  const n = picked.length;
  // Each instance scores the next one's reference too: the programs' scores must repeat as well.
  const requests = picked.map((e, i) => ({
    seed: e.seed,
    level: e.level,
    responses: [(picked[(i + 1) % n] as Episode).reference],
  }));
  const run = (list: typeof requests) =>
    ctx.kind.runEpisodes(ctx.pool, ctx.source, list, { fresh: true, limits: ctx.options.limits });
  const [first, reversed] = await Promise.all([run(requests), run([...requests].reverse())]);
  const back = [...reversed.episodes].reverse();
  const a = first.episodes.map(signature);
  const b = back.map(signature);
  const differs = picked.map((e, i) => a[i] !== b[i] || core(e) !== core(first.episodes[i]));
  // A run the clock stopped (the reference program's E_TIMEOUT: kinds/code.ts; the candidate's time budget; a program
  // scored in it that ran out of time) is a timeout, not nondeterminism.
  // Scores are compared only between runs where neither side's programs were stopped by the clock.
  const clocked = (e: EpisodeResult | undefined) =>
    e !== undefined &&
    (e.ok ? [e.referenceVerdict, ...e.verdicts].some((v) => v.ok && v.clocked) : LOAD_SENSITIVE.has(e.code));
  const timedOut = picked.filter((_, i) => differs[i] && (clocked(first.episodes[i]) || clocked(back[i])));
  const differing = picked.filter((e, i) => differs[i] && !timedOut.includes(e));
  const problems: Problem[] = timedOutRuns(timedOut, n);
  if (differing.length > 0)
    problems.push({
      code: 'E_NONDETERMINISTIC',
      message:
        `${differing.length} of ${n} (seed, level) pairs gave different tasks, reference programs or scores in ` +
        `fresh runs, in another order, or against the execution stage (first: seed ${differing[0]?.seed}, ` +
        `level ${differing[0]?.level})`,
      evidence: differing.slice(0, 3).map((e) => ({ seed: e.seed, level: e.level })),
    });
  return { ok: problems.length === 0, metrics: { checked: n, nondeterministic: differing.length }, problems };
};

/**
 * Diversity as for v1, with the hidden tests' outputs standing for the answer (a reference program is the same text
 * everywhere).
 */
const codeDiversity: Stage = (ctx) =>
  diversityStage({
    ...ctx,
    episodes: ctx.episodes.map((e) => ({
      ...e,
      reference: JSON.stringify((e.instance as CodeInstance).tests.map((t) => t.output)),
    })),
  });

/**
 * The registry's checks for the code kind: their requests in one merged run, their findings judged by the two rules.
 */
const codeHack: Stage = async (ctx) => {
  const memos = new Map<string, unknown>();
  const cctx: CodeCheckContext = {
    stage: ctx,
    memo: <T>(key: string, make: () => T) => (memos.has(key) ? memos.get(key) : memos.set(key, make()).get(key)) as T,
  };
  const plans = checksFor<CodeCheck>(CHECKS as AnyCheck[], ctx.kind.name).flatMap((check) => {
    const plan = check.plan(cctx);
    return plan ? [{ check, plan }] : [];
  });
  const requests: CodeRequest[] = plans.flatMap((p) => p.plan.requests);
  const outcomes = await runCodeRequests(ctx, requests);
  const findings: Finding[] = [];
  const metrics: Record<string, unknown> = { requests: requests.length };
  let at = 0;
  for (const { check, plan } of plans) {
    const mine = outcomes.slice(at, (at += plan.requests.length));
    const verdict = await plan.judge(mine, { run: (more) => runCodeRequests(ctx, more), all: () => outcomes });
    findings.push(...verdict.findings);
    if (verdict.metrics) metrics[check.name] = verdict.metrics;
  }
  const problems = judgeFindings(findings);
  return { ok: problems.length === 0, metrics, problems };
};

export const CODE_STAGES: Partial<Record<StageName, Stage>> = {
  determinism: codeDeterminism,
  diversity: codeDiversity,
  hack: codeHack,
  difficulty: codeDifficulty,
};

export type { StageContext };
