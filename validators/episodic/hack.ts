// Stage 5 for episodic candidates, hack resistance: every registered episodic check (validators/checks/)
// plans its rollouts against the reference episodes, the stage runs them in one batch (a shared request
// once), each check judges its own outcomes (adaptive ones run more), and the two rules of checks/rules.ts
// turn the findings into problems: zero tolerance, or a rate above chance with a confidence bound. Every
// rollout of the stage goes through one memo (sandbox/rollout-memo.ts): an episode several checks replay is played
// once.
import type { EpisodeFailure } from '../../sandbox/episodes.js';
import { RolloutMemo, withRolloutMemo } from '../../sandbox/rollout-memo.js';
import type { RolloutResult } from '../../sandbox/rollouts.js';
import { episodicContext, judgeFindings, runEpisodicChecks } from '../checks/episodic.js';
import type { Finding } from '../checks/rules.js';
import { CHECKS } from '../checks/registry.js';
import type { Stage } from '../context.js';
import { failureProblems, metaOf } from './stages.js';

/** Observers of the stage's findings before they are judged (bench/episodic-profile.ts: what sequential tests save). */
export const judgedEpisodicFindings = new Set<(findings: readonly Finding[]) => void>();

export const episodicHack: Stage = async (ctx) => {
  const meta = metaOf(ctx);
  const checks = episodicContext(ctx, meta, ctx.rollouts ?? []);
  let failed: EpisodeFailure[] = [];
  let requests = 0;
  const memo = new RolloutMemo(ctx.source);
  const { findings, metrics, cost, wallMs } = await withRolloutMemo(memo, () =>
    runEpisodicChecks(CHECKS, checks, (outcomes: readonly RolloutResult[]) => {
      requests = outcomes.length;
      failed = outcomes.filter((r): r is EpisodeFailure => !r.ok);
    }),
  );
  for (const observe of judgedEpisodicFindings) observe(findings);
  // A probe the sandbox could not run is the module's failure (a crash, a hang, a throw under another policy).
  const problems = [...failureProblems(failed, requests), ...judgeFindings(findings)];
  // The profile (issue 34): rollouts each check planned and ran in its judge, and how many the memo served.
  const profile = { cost, memo: { ...memo.counts } };
  return {
    ok: problems.length === 0,
    metrics: { requests, checks: metrics, profile, wallMs: Math.round(wallMs) },
    problems,
  };
};
