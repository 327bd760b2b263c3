// The sandbox pool's options (workers, limits, the workers' memory and lifetime) with their defaults, and
// the shape of a run: what a caller asks of the pool and what it gets back.
import { availableParallelism } from 'node:os';
import { DEFAULT_LIMITS, type Call, type CallResult, type LoadInfo, type SandboxLimits } from './protocol.js';

export interface SandboxPoolOptions {
  /** Worker processes; one per core by default. */
  workers: number;
  /** Default limits for every job; a job may override them. */
  limits: SandboxLimits;
  /** Extra time a worker gets past its limits before the supervisor SIGKILLs it. */
  graceMs: number;
  /** Compiled candidates one worker keeps ready (an isolate each). */
  maxCachedPerWorker: number;
  /** Jobs a worker process runs before it is replaced, bounding any slow leak. */
  maxJobsPerWorker: number;
  /** Node heap of a worker process (isolates have their own limit). */
  workerHeapMb: number;
  /**
   * Resident memory of a busy worker process, read from /proc every rssCheckMs: past it the worker is
   * killed and its job fails with E_MEMORY. Isolate limits alone let a worker grow far past them before
   * isolated-vm disposes the isolate (1.4 GB measured for a 128 MB isolate).
   */
  workerRssMb: number;
  rssCheckMs: number;
  /** Extra Node flags for worker processes (e.g. --cpu-prof when profiling). */
  execArgv: string[];
}

/** What a caller passes to a new pool: any option, and any limit (the rest come from the defaults). */
export type SandboxPoolInit = Partial<Omit<SandboxPoolOptions, 'limits'>> & { limits?: Partial<SandboxLimits> };

export const DEFAULT_POOL_OPTIONS = {
  workers: Math.max(1, availableParallelism()),
  limits: DEFAULT_LIMITS,
  graceMs: 1_500,
  maxCachedPerWorker: 16,
  maxJobsPerWorker: 5_000,
  workerHeapMb: 512,
  workerRssMb: 768,
  rssCheckMs: 100,
  execArgv: [],
} satisfies SandboxPoolOptions;

export interface RunRequest {
  /** The environment module's source. */
  source: string;
  calls?: Call[];
  limits?: Partial<SandboxLimits>;
  /** Start from a new isolate (module top level evaluated again) instead of a cached one. */
  fresh?: boolean;
  /**
   * With `fresh`: a realm that ran only such jobs, at most `lifetime` calls in all with this one's, may run it instead
   * of a new realm (small jobs share realms; no realm runs more than `lifetime` calls).
   */
  lifetime?: number;
  /**
   * Split the calls across the workers that hold the module or stand idle (shards.ts: a busy one would load it for its
   * share).
   */
  parallel?: boolean;
  /**
   * Called once the job has left its worker with its result (not when it is rejected), synchronously, after the pool
   * freed the worker and before it hands out its next job: a caller that gives the pool one job per worker
   * (serve/sandbox-gate.ts) can give the next one at the moment a worker is free, not promise hops later.
   */
  onEnd?: () => void;
  /**
   * Called with each call's result (by its index in `calls`) the moment the supervisor has it, before the job ends: the
   * worker streams results as its calls finish, so a caller may answer a call without waiting for the rest of its job.
   * A call's result never changes once given (the job's results hold the same one).
   */
  onResult?: (index: number, result: CallResult) => void;
  /**
   * Called when the job starts on its worker, with a function that asks it to hand the worker back once its time slice
   * (limits.yieldAfterMs) is spent: the calls it has not reached then fail unrun (protocol.ts YIELDED_MESSAGE).
   */
  onStart?: (askToYield: () => void) => void;
}
export interface RunResult<R = CallResult> {
  load: LoadInfo;
  results: R[];
  wallMs: number;
}
