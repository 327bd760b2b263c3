// Job budgets and deaths for the sandbox pool: how long a job may run, what a worker is sent, and why a
// worker died as a stable problem code (the supervisor's kills, V8's heap abort, a crash).
import type { ProblemCode } from '../contract/codes.js';
import type { SandboxLimits } from './protocol.js';
import type { KillReason } from './supervised-worker.js';

/** Recognises a worker that V8 aborted for heap exhaustion from its stderr. */
const MEMORY_SIGNS = /is_heap_oom = 1|out of memory|allocation failed|heap limit/i;

/**
 * A whole job's wall-clock budget, besides the silence deadline: loading twice (a recompile after a
 * failure), every call at its full budget, one more per failure the job may have (finding which function
 * left work behind re-runs its call: left-behind.ts), and grace. Nothing a module does can make a job run longer.
 */
export function jobBudgetMs(calls: number, limits: SandboxLimits, graceMs: number): number {
  return (
    limits.jobTimeoutMs ??
    limits.loadTimeoutMs * 2 +
      (calls + 1 + limits.maxFailuresPerJob) * (limits.callTimeoutMs + limits.sliceMs) +
      graceMs
  );
}

/** What a worker is sent: the limits without the host's own bookkeeping. */
export function workerLimits(limits: SandboxLimits): SandboxLimits {
  if (!limits.workBudget) return limits;
  const { workBudget: _, ...rest } = limits;
  return rest;
}

export const budgetMessage = (totalMs: number, when: string) =>
  `the caller's sandbox time budget of ${Math.round(totalMs / 1000)} s ran out ${when} (the validator's ` +
  `per-candidate budget: an environment this slow costs too much to validate and to serve)`;

/** Why a worker died, as a stable code: the supervisor's kills first, then V8's heap abort, else a crash. */
export function deathCause(
  killed: KillReason | null,
  stderrTail: string,
  exitCode: number | null,
  signal: string | null,
): { code: ProblemCode; message: string } {
  if (killed?.kind === 'memory') {
    return {
      code: 'E_MEMORY',
      message:
        `the environment code made its worker process use ${killed.rssMb} MB of memory (limit ${killed.limitMb}` +
        ` MB); the worker was killed`,
    };
  }
  if (killed?.kind === 'silence' && killed.setup) {
    return {
      code: 'E_PROTOCOL',
      message:
        `the sandbox's own setup (SES and the runtime, before any environment code) did not finish within ` +
        `${killed.ms} ms; its worker was killed (an overloaded host, not the environment)`,
    };
  }
  if (killed?.kind === 'silence')
    return {
      code: 'E_TIMEOUT',
      message: `the environment code did not yield within ${killed.ms} ms; its worker was killed (wall-clock deadline)`,
    };
  if (killed?.kind === 'budget')
    return { code: 'E_TOO_SLOW', message: budgetMessage(killed.totalMs, 'during this job; its worker was killed') };
  if (killed?.kind === 'job')
    return {
      code: 'E_TIMEOUT',
      message: `the job ran past its whole-job deadline of ${killed.ms} ms; its worker was killed`,
    };
  const tail = stderrTail.trim().split('\n').slice(-3).join(' | ').slice(0, 500);
  if (MEMORY_SIGNS.test(stderrTail)) {
    const heap = /heap_size_limit = (\d+)/.exec(stderrTail);
    const limit = heap ? ` (V8 heap limit ${Math.round(Number(heap[1]) / 2 ** 20)} MB)` : '';
    return {
      code: 'E_MEMORY',
      message: `the environment code exhausted the isolate's memory and the V8 heap aborted its worker${limit}`,
    };
  }
  return {
    code: 'E_CRASHED',
    message: `the sandbox worker died (exit code ${exitCode}, signal ${signal})${tail ? `: ${tail}` : ''}`,
  };
}
