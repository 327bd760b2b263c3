// Stage 5 for single-turn candidates, hack resistance: a verifier must pay only for the task being solved.
// The stage runs the registry's single-turn checks (checks/registry.ts): every check's requests go to the
// sandbox in one batch (one episode per instance), each check judges its own outcomes (asking for more
// where it adapts), and the two shared rules (checks/rules.ts) turn the findings into problems.
import { scoreOf } from '../../sandbox/episodes.js';
import { mean, type Stage } from '../context.js';
import { checksFor } from '../checks/contract.js';
import { outcomesOf, evidenceOf } from '../checks/probe-findings.js';
import { CHECKS } from '../checks/registry.js';
import { judgeFindings } from '../checks/rules.js';
import {
  runProbes,
  singleTurnContext,
  type ProbeRequest,
  type ProbeResult,
  type SingleTurnCheck,
} from '../checks/single-turn.js';
import type { Problem } from '../report.js';

/**
 * Verify must return a score for any text: a probe it fails on is reported once, with the first few. Failures
 * that ran come first (a call left unrun after the batch's failure limit says nothing about the verifier).
 */
function crashProblems(all: readonly ProbeResult[]): Problem[] {
  const failed = outcomesOf(all).filter((x) => x.failure);
  const unrun = (x: (typeof failed)[number]) => /^not run/.test(x.failure?.message ?? '');
  const crashed = [...failed.filter((x) => !unrun(x)), ...failed.filter(unrun)];
  const first = crashed[0];
  if (!first?.failure) return [];
  return [
    {
      code: first.failure.code,
      message:
        `verify failed on ${crashed.length} adversarial responses (first: ${first.probe.family} probe "` +
        `${first.probe.form}" at level ${first.episode.level}): ${first.failure.message}. A verifier must ` +
        `return a score for any text`,
      evidence: crashed.slice(0, 3).map((x) => ({ ...evidenceOf(x), failure: x.failure })),
    },
  ];
}

export const hackStage: Stage = async (ctx) => {
  const run = (requests: readonly ProbeRequest[]) => runProbes(ctx, requests);
  const check = singleTurnContext(ctx, run);
  const checks = checksFor<SingleTurnCheck>(CHECKS, ctx.kind.name);
  const planMs: Record<string, number> = {};
  const plans = checks
    .map((c) => {
      const t0 = performance.now();
      const plan = c.plan(check);
      planMs[c.name] = Math.round(performance.now() - t0);
      return { check: c, plan };
    })
    .filter((p) => p.plan !== null);
  // One batch for every check: the requests of one instance become one episode.
  const requests = plans.flatMap((p) => p.plan?.requests ?? []);
  const results = await run(requests);
  let at = 0;
  const slices = plans.map((p) => results.slice(at, (at += p.plan?.requests.length ?? 0)));
  // Responses each check sent, its follow-ups included (what it costs the sandbox).
  const sent: Record<string, number> = Object.fromEntries(
    plans.map((p, i) => [p.check.name, (slices[i] as ProbeResult[]).reduce((a, r) => a + r.outcomes.length, 0)]),
  );
  const toolsOf = (name: string) => ({
    run: (more: readonly ProbeRequest[]) => {
      sent[name] = (sent[name] ?? 0) + more.reduce((a, r) => a + r.probes.length, 0);
      return run(more);
    },
    all: () => results,
  });
  // Judges run at once: one check's follow-up sandbox work overlaps another's host work (each judge's wall time is
  // kept).
  const judgeMs: Record<string, number> = {};
  const verdicts = await Promise.all(
    plans.map(async (p, i) => {
      const t0 = performance.now();
      const verdict = await p.plan?.judge(slices[i] as ProbeResult[], toolsOf(p.check.name));
      judgeMs[p.check.name] = Math.round(performance.now() - t0);
      return verdict;
    }),
  );
  const problems = [...crashProblems(results), ...judgeFindings(verdicts.flatMap((v) => v?.findings ?? []))];
  const metrics = Object.fromEntries(plans.map((p, i) => [p.check.name, verdicts[i]?.metrics ?? {}]));
  const probes = outcomesOf(results).length;
  return {
    ok: problems.length === 0,
    metrics: {
      probes,
      referenceMean: mean(ctx.episodes.map((e) => scoreOf(e.referenceVerdict))),
      checks: metrics,
      sent,
      planMs,
      judgeMs,
    },
    problems,
  };
};
