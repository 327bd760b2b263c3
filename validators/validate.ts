// The staged validator: runs the nine stages in order over one candidate and assembles its report.
// Cheap stages first; a failed static or execution stage skips the expensive ones (sandbox probes, LLM
// review) and leaves the cheap ones unjudged ("not run" unless they found problems), and any failure
// skips the review. A broken or hostile candidate is a report, never a throw.
import type { WorkBudget } from '../sandbox/protocol.js';
import { hashSource } from '../contract/hash.js';
import { guestLine } from '../contract/text.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { VERSION } from '../contract/version.js';
import { KINDS } from '../kinds/registry.js';
import { boundDepth } from './bounded.js';
import { newValidationSeed } from './seeds.js';
import type { Reviewer, Stage, StageContext } from './context.js';
import type { NoveltyIndex } from './novelty/lsh.js';
import { DEFAULT_VALIDATOR_OPTIONS, type ValidatorOptions } from './options.js';
import { STAGES, type StageName, type StageReport, type ValidationReport } from './report.js';
import { planFor, type StageStep } from './plan.js';
import { levelCurve } from './stages/difficulty.js';
import { logValidation } from './validation-log.js';

/** Bump when a stage's rules change, so the library knows which environments to re-validate. */
export const VALIDATOR_VERSION = `${VERSION}+v3`;

export interface ValidateOptions {
  pool: SandboxPool;
  /** The library's novelty index; without it the novelty stage only fingerprints. */
  novelty?: NoveltyIndex;
  reviewer?: Reviewer;
  options?: Partial<ValidatorOptions>;
  /** Fixes the sampled seeds (a replay of a recorded report); random by default. */
  validationSeed?: number;
  /** Instances to sample besides the random draws, e.g. where a module misbehaved in production. */
  include?: Array<{ seed: number; level: number; responses?: string[] }>;
}

/** Why a stage does not run (read after "not run: "), or null when it runs. */
function skipReason(
  cost: string,
  gateFailed: StageName | null,
  anyFailed: boolean,
  haveEpisodes: boolean,
): string | null {
  if (gateFailed === 'static') return 'the static stage failed';
  if (gateFailed && (cost !== 'cheap' || !haveEpisodes)) return `the ${gateFailed} stage failed`;
  if (cost === 'llm' && anyFailed) return 'an earlier stage failed';
  return null;
}

/** A sandbox stage that does not start: the candidate has used its validation budget. */
function overBudget(spentMs: number, budgetMs: number): Awaited<ReturnType<Stage>> {
  return {
    ok: false,
    metrics: { spentMs: Math.round(spentMs) },
    problems: [
      {
        code: 'E_TOO_SLOW',
        message:
          `validation has used ${Math.round(spentMs / 1000)} s of sandbox time, past the candidate budget of ` +
          `${Math.round(budgetMs / 1000)} s; the remaining sandbox stages did not run`,
        evidence: { spentMs: Math.round(spentMs), budgetMs },
      },
    ],
  };
}

/**
 * A module that tripped a wire in any sandbox job (tripwires.js: a capability outside the contract, reached
 * for even where the module caught the refusal) is rejected with the attempt as evidence, whatever the stages
 * made of the calls that tripped: the first stage of the wave that saw it fails with E_ESCAPE_ATTEMPT.
 */
function noteTrips(stages: Map<StageName, StageReport>, stage: StageName, trips: readonly string[]): void {
  if (trips.length === 0 || [...stages.values()].some((s) => s.problems.some((p) => p.code === 'E_ESCAPE_ATTEMPT')))
    return;
  const report = stages.get(stage);
  if (!report) return;
  const problem = {
    code: 'E_ESCAPE_ATTEMPT' as const,
    message:
      `the module reached for ${trips.join('; ')}: a capability outside the environment contract (the attempt ` +
      `counts even where the module caught the refusal)`,
    evidence: { reached: [...trips] },
  };
  const { skipped: _ran, ...ran } = report;
  stages.set(stage, { ...ran, ok: false, problems: [...report.problems, problem] });
}

export async function validateCandidate(source: string, opts: ValidateOptions): Promise<ValidationReport> {
  const started = performance.now();
  const merged = { ...DEFAULT_VALIDATOR_OPTIONS, ...opts.options };
  // Every sandbox job of this candidate draws on one budget of worker time: a stage in flight is cut off
  // when it runs out (E_TOO_SLOW), so no candidate holds a worker past it, however its episodes pace themselves.
  const workBudget: WorkBudget = { totalMs: merged.candidateBudgetMs, spentMs: 0 };
  const options: ValidatorOptions = {
    ...merged,
    limits: { ...DEFAULT_VALIDATOR_OPTIONS.limits, ...opts.options?.limits, workBudget },
    episodic: { ...DEFAULT_VALIDATOR_OPTIONS.episodic, ...opts.options?.episodic },
    code: { ...DEFAULT_VALIDATOR_OPTIONS.code, ...opts.options?.code },
  };
  const ctx: StageContext = {
    pool: opts.pool,
    source,
    hash: hashSource(source),
    options,
    validationSeed: opts.validationSeed ?? newValidationSeed(),
    ...(opts.include ? { include: opts.include } : {}),
    ...(opts.novelty ? { novelty: opts.novelty } : {}),
    ...(opts.reviewer ? { reviewer: opts.reviewer } : {}),
    kind: KINDS.single, // until the static stage reads the meta
    episodes: [],
    failures: [],
    baselines: new Map(),
  };
  const stages = new Map<StageName, StageReport>();
  let gateFailed: StageName | null = null;
  let anyFailed = false;
  const runStage = async ({ name, run, cost }: StageStep): Promise<void> => {
    const skip = skipReason(cost, gateFailed, anyFailed, ctx.episodes.length > 0);
    if (skip) {
      stages.set(name, { stage: name, ok: false, skipped: skip, metrics: {}, problems: [], ms: 0 });
      return;
    }
    const t0 = performance.now();
    const result =
      cost === 'sandbox' && workBudget.spentMs >= workBudget.totalMs
        ? overBudget(workBudget.spentMs, workBudget.totalMs)
        : await run(ctx);
    // After a failed gate a cheap stage sees only the instances that ran: its problems count, a pass does not.
    const partial = gateFailed !== null && result.ok && !result.skipped;
    const judged = partial
      ? {
          ...result,
          ok: false,
          skipped: `the ${gateFailed} stage failed (nothing was found in the instances that ran)`,
        }
      : result;
    stages.set(name, { stage: name, ...judged, ms: Math.round(performance.now() - t0) });
  };
  // The waves come from what each stage reads and produces (plan.ts); static, the only step of wave 0,
  // decides the kind, and with it the plan of the waves after it.
  for (let wave = 0; wave < planFor(ctx.kind).length; wave++) {
    const steps = planFor(ctx.kind)[wave] ?? [];
    const members = steps.filter((s): s is StageStep => 'run' in s);
    for (const step of steps) if ('derive' in step) step.derive(ctx, stages);
    await Promise.all(members.map(runStage));
    if (members[0]) noteTrips(stages, members[0].name, opts.pool.trips.of(ctx.hash));
    // Verdicts count from the next wave on: a gate is alone in its wave, and only review (last) reads anyFailed.
    for (const { name, cost } of members) {
      const report = stages.get(name) as StageReport;
      if (!report.ok && !report.skipped) {
        anyFailed = true;
        if (cost === 'gate') gateFailed = name;
      }
    }
  }
  // A problem's message is one line that lays nothing out (V19-5): it quotes module text (a rule sentence, a reply),
  // and every reader of the report (a terminal, the library, the dashboard) takes it as a line.
  const ordered = STAGES.map((name) => stages.get(name) as StageReport).map((s) =>
    s.problems.some((p) => guestLine(p.message) !== p.message)
      ? { ...s, problems: s.problems.map((p) => ({ ...p, message: guestLine(p.message) })) }
      : s,
  );
  const problems = ordered.flatMap((s) => s.problems.map((p) => ({ ...p, stage: s.stage })));
  const verdict = ordered.every((s) => s.ok) && problems.length === 0 ? 'admit' : 'reject';
  // Stages put guest-derived values (meta, evidence) in the report: bounded in depth, it always serialises.
  const report: ValidationReport = boundDepth({
    verdict,
    name: ctx.meta?.name ?? null,
    hash: ctx.hash,
    meta: ctx.meta ?? null,
    stages: ordered,
    problems,
    curve: ctx.episodes.length > 0 ? levelCurve(ctx) : [],
    fingerprint: ctx.fingerprint ?? null,
    validatorVersion: VALIDATOR_VERSION,
    validationSeed: ctx.validationSeed,
    ms: Math.round(performance.now() - started),
  });
  logValidation(opts, report);
  return report;
}
