// The sandbox supervisor: a pool of worker processes that run environment code in isolates. It queues
// jobs, kills a worker that misses its wall-clock deadline, replaces dead workers, and turns every failure
// of guest code into a typed result; only failures of the sandbox itself reject. This file queues the jobs;
// the worker side (dispatch, deadlines, messages, settling) is pool-dispatch.ts.
import { hashSource } from '../contract/hash.js';
import { recentMemo } from './recent.js';
import { SandboxError } from '../contract/errors.js';
import { DEFAULT_POOL_OPTIONS, type RunRequest, type RunResult, type SandboxPoolInit } from './pool-options.js';
import { DEFAULT_LIMITS, type Call, type LoadInfo, type SandboxLimits } from './protocol.js';
import { ResultSlots, type Convert } from './results.js';
import { shardCount } from './shards.js';
import { budgetMessage } from './job-limits.js';
import { alongWith, PoolDispatch, together, type Job, type Worker } from './pool-dispatch.js';
export { jobBudgetMs } from './job-limits.js';

export {
  DEFAULT_POOL_OPTIONS,
  type RunRequest,
  type RunResult,
  type SandboxPoolInit,
  type SandboxPoolOptions,
} from './pool-options.js';

/**
 * hashSource for the pool's hot path: a service runs the same few sources thousands of times, and a Map
 * lookup of a string V8 has already hashed costs far less than SHA-256 of it (≈0.02 µs vs ≈8 µs at 6 kB).
 */
const cachedHash = recentMemo(hashSource, 256);

/** A pool of sandbox workers. Safe to share; close() it when done (idle workers never hold the process open). */
export class SandboxPool extends PoolDispatch {
  private nextId = 1;

  constructor(options: SandboxPoolInit = {}) {
    super({ ...DEFAULT_POOL_OPTIONS, ...options, limits: { ...DEFAULT_LIMITS, ...options.limits } });
    if (!Number.isInteger(this.options.workers) || this.options.workers < 1)
      throw new SandboxError(`workers must be a positive integer, got ${this.options.workers}`);
  }

  /** Compiles the module (or finds it cached) and reports its meta and exports. */
  async load(source: string, limits?: Partial<SandboxLimits>): Promise<LoadInfo> {
    return (await this.run({ source, calls: [], ...(limits ? { limits } : {}) })).load;
  }

  /** Runs the calls; with `convert`, each result is handed to it as it arrives and the run returns what it made. */
  async run(request: RunRequest): Promise<RunResult>;
  async run<R>(request: RunRequest, convert: Convert<R>): Promise<RunResult<R>>;
  async run(request: RunRequest, convert?: Convert<unknown>): Promise<RunResult<unknown>> {
    const calls = request.calls ?? [];
    const shards =
      request.parallel && typeof request.source === 'string'
        ? shardCount(calls.length, cachedHash(request.source), this.workers, this.options.workers)
        : 1;
    if (shards <= 1) return this.enqueue(request, calls, convert);
    const size = Math.ceil(calls.length / shards);
    const { onResult } = request;
    const part = (i: number): RunRequest =>
      onResult ? { ...request, onResult: (index, result) => onResult(i * size + index, result) } : request;
    const parts = await Promise.all(
      Array.from({ length: shards }, (_, i) => this.enqueue(part(i), calls.slice(i * size, (i + 1) * size), convert)),
    );
    return {
      load: (parts[0] as RunResult<unknown>).load,
      results: parts.flatMap((p) => p.results),
      wallMs: Math.max(...parts.map((p) => p.wallMs)),
    };
  }

  /**
   * Runs each request as a job of its own (its own results, limits and deadlines), the jobs travelling to
   * one worker in one message and running there back to back: calls for several modules that arrive
   * together (the reward service's) cost one round trip between the processes instead of one each.
   */
  runTogether(requests: RunRequest[]): Array<Promise<RunResult>> {
    if (this.closed || requests.some((r) => typeof r.source !== 'string'))
      return requests.map((r) => this.enqueue(r, r.calls ?? [], undefined) as Promise<RunResult>);
    const jobs: Job[] = [];
    const results = requests.map(
      (r) =>
        new Promise<RunResult>((resolve, reject) =>
          jobs.push(this.newJob(r, r.calls ?? [], undefined, resolve as (result: RunResult<unknown>) => void, reject)),
        ),
    );
    this.queue.push(together(jobs));
    this.pump();
    return results;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watchMemory();
    this.rejectQueued();
    await Promise.all(
      [...this.workers].map(
        (w) =>
          new Promise<void>((resolve) => {
            // A worker whose fork failed (no pid: 'error' came, and 'exit' never will) has nothing to wait for.
            if (w.exited || w.child.pid === undefined) return resolve();
            // An unref'd child would let the process end before its exit arrives: held, a job that ends now (its
            // result in flight at close) cannot unref it again (redteam-v20's V20-2 variant: unsettled close()).
            w.held = true;
            w.setActive(true);
            w.child.once('exit', () => resolve());
            // Idle workers leave when their channel closes; busy or stuck ones are killed after a grace period.
            if (w.job === null && w.child.connected) w.child.disconnect();
            setTimeout(() => w.child.kill('SIGKILL'), w.job === null ? 1_000 : 0).unref();
          }),
      ),
    );
  }

  /** Worker process ids, for tests and diagnostics. */
  workerPids(): number[] {
    return [...this.workers].map((w) => w.child.pid ?? -1);
  }

  private enqueue(
    request: RunRequest,
    calls: Call[],
    convert: Convert<unknown> | undefined,
  ): Promise<RunResult<unknown>> {
    if (this.closed) return Promise.reject(new SandboxError('the sandbox pool is closed'));
    if (typeof request.source !== 'string') return Promise.reject(new TypeError('source must be a string'));
    return new Promise((resolve, reject) => {
      this.queue.push(this.newJob(request, calls, convert, resolve, reject));
      this.pump();
    });
  }

  private newJob(
    request: RunRequest,
    calls: Call[],
    convert: Convert<unknown> | undefined,
    resolve: Job['resolve'],
    reject: Job['reject'],
  ): Job {
    const limits = { ...this.options.limits, ...request.limits };
    return {
      id: this.nextId++,
      hash: cachedHash(request.source),
      source: request.source,
      calls,
      limits,
      fresh: request.fresh ?? false,
      ...(request.lifetime !== undefined ? { lifetime: request.lifetime } : {}),
      results: new ResultSlots(calls, convert, request.onResult),
      started: 0,
      setupMs: 0,
      resolve,
      reject,
      ...(request.onEnd ? { onEnd: request.onEnd } : {}),
      ...(request.onStart ? { onStart: request.onStart } : {}),
    };
  }

  protected pump(): void {
    this.endedJobs();
    this.handOut();
    this.endedJobs(); // jobs settled here (spent budgets) end too
  }

  /** Rejects every queued job: the pool is closed (a job re-queued after close, by a retry, starts no worker). */
  private rejectQueued(): void {
    for (const job of this.queue.splice(0).flatMap(alongWith))
      job.reject(new SandboxError('the sandbox pool was closed'));
  }

  private handOut(): void {
    if (this.closed) return this.rejectQueued();
    while (this.queue.length > 0) {
      let worker = [...this.workers].find((w) => w.job === null && !w.exited);
      if (!worker) {
        if (this.workers.size >= this.options.workers) return;
        worker = this.spawn();
      }
      const jobs = alongWith(this.pickJob(worker)).filter((job) => {
        const budget = job.limits.workBudget;
        if (budget && budget.spentMs >= budget.totalMs)
          this.settle(job, 'E_TOO_SLOW', budgetMessage(budget.totalMs, 'before this job started'));
        return !(budget && budget.spentMs >= budget.totalMs);
      });
      if (jobs.length === 0) continue;
      worker.job = jobs[0] as Job;
      worker.next = jobs.slice(1);
      void this.dispatch(worker, jobs);
    }
  }

  /** Prefers a queued job whose module (or a companion's) this worker already has compiled. */
  private pickJob(worker: Worker): Job {
    const index = this.queue.findIndex((j) => alongWith(j).some((c) => worker.cached.includes(c.hash)));
    return this.queue.splice(index >= 0 ? index : 0, 1)[0] as Job;
  }
}
