// The worker side of the sandbox pool: spawns worker processes, hands each its job (and the companions that
// travel with it), arms the job's deadlines, follows the worker's messages, and settles the job when it ends
// or its worker dies; SandboxPool (pool.ts) queues the jobs and decides which worker runs which.
import { isProblemCode, type ProblemCode } from '../contract/codes.js';
import { SandboxError } from '../contract/errors.js';
import type { RunResult, SandboxPoolOptions } from './pool-options.js';
import type {
  Call,
  JobMessage,
  JobsMessage,
  LoadInfo,
  PackedCalls,
  SandboxLimits,
  WorkerMessage,
  YieldMessage,
} from './protocol.js';
import { callsForPipe } from './packed-calls.js';
import { setRecent } from './recent.js';
import type { ResultSlots } from './results.js';
import { SupervisedWorker } from './supervised-worker.js';
import { TripLog } from './trips.js';
import { deathCause, jobBudgetMs, workerLimits } from './job-limits.js';

/**
 * The least share of a finished job's wall time charged to its caller's budget: CPU time is the charge (a busy
 * host stretches wall time, not work), but a job that idles costs its worker's time too.
 */
const IDLE_SHARE = 0.25;

export interface Job {
  id: number;
  hash: string;
  source: string;
  calls: Call[];
  limits: SandboxLimits;
  fresh: boolean;
  lifetime?: number;
  load?: LoadInfo;
  results: ResultSlots<unknown>;
  packed?: PackedCalls | null; // set by callsForPipe
  started: number;
  /** Jobs that travel with this one to the same worker in one message and run there after it (runTogether). */
  companions?: Job[];
  /** Time its worker spent on envforge's own setup (no guest code), not counted against the caller's budget. */
  setupMs: number;
  resolve(result: RunResult<unknown>): void;
  reject(error: Error): void;
  /** RunRequest.onEnd: called from the pool's next pump, once the pool's state is whole (endedJobs). */
  onEnd?: () => void;
  /** RunRequest.onStart: called as the job starts on its worker. */
  onStart?: (askToYield: () => void) => void;
}

export type Worker = SupervisedWorker<Job>;

/** A job and the companions travelling with it, in the order they run. */
export const alongWith = (job: Job): Job[] => [job, ...(job.companions ?? [])];
/** The first job carrying the others as its companions. */
export function together(jobs: Job[]): Job {
  const [head, ...rest] = jobs as [Job, ...Job[]];
  head.companions = rest;
  return head;
}

/** The pool's workers and the jobs they run; the pool above it says what runs next (pump). */
export abstract class PoolDispatch {
  readonly options: SandboxPoolOptions;
  protected readonly workers = new Set<Worker>();
  protected readonly queue: Job[] = [];
  protected closed = false;
  /** Recent successful loads by source hash: a worker that dies before reporting a cached load still loaded it. */
  private readonly knownLoads = new Map<string, LoadInfo>();
  private startFailures = 0;
  private rssTimer: NodeJS.Timeout | null = null;
  readonly trips = new TripLog(); // modules that tripped a wire (tripwires.js) in any job of this pool
  /** Setups of envforge's own code the workers began (a new isolate's SES, a new realm): what realm packing saves. */
  setups = 0;
  /** The onEnd of jobs settled since the last pump: called there, where a new job may safely come in. */
  private ended: Array<() => void> = [];

  constructor(options: SandboxPoolOptions) {
    this.options = options;
  }

  /** Hands queued jobs to idle workers, spawning workers up to the pool's size. */
  protected abstract pump(): void;

  /**
   * Calls the onEnd of the jobs settled since the last call (pump's first and last act: every settling of a job is
   * followed by a pump once the pool's state is whole), so the jobs their callers then give the pool meet a free
   * worker.
   */
  protected endedJobs(): void {
    if (this.ended.length === 0) return;
    const ended = this.ended;
    this.ended = [];
    for (const onEnd of ended) onEnd();
  }

  protected spawn(): Worker {
    const worker: Worker = new SupervisedWorker<Job>(
      this.options,
      (m) => this.onMessage(worker, m),
      (code, signal) => this.onExit(worker, code, signal),
    );
    this.workers.add(worker);
    return worker;
  }

  /** Reads busy workers' resident memory while any job runs (a cheap /proc read per worker). */
  protected watchMemory(): void {
    const busy = !this.closed && [...this.workers].some((w) => w.job !== null);
    if (busy && !this.rssTimer) {
      this.rssTimer = setInterval(() => {
        for (const w of this.workers) if (w.job !== null) w.checkMemory(this.options.workerRssMb);
      }, this.options.rssCheckMs);
      this.rssTimer.unref();
    } else if (!busy && this.rssTimer) {
      clearInterval(this.rssTimer);
      this.rssTimer = null;
    }
  }

  /** Sends a worker its job and the companions travelling with it (which start as each one before them ends). */
  protected async dispatch(worker: Worker, jobs: Job[]): Promise<void> {
    const job = jobs[0] as Job;
    try {
      await worker.ready;
      this.startFailures = 0;
    } catch (error) {
      this.workers.delete(worker);
      worker.job = null;
      worker.next = [];
      // A worker that cannot start is the sandbox's failure, not the candidate's: retry, then give up loudly.
      if (++this.startFailures >= 3) {
        for (const queued of [...jobs, ...this.queue.splice(0).flatMap(alongWith)]) queued.reject(error as Error);
        return;
      }
      this.queue.unshift(together(jobs));
      this.pump();
      return;
    }
    if (worker.exited) return; // onExit already settled the job
    this.start(worker, job);
    if (jobs.length === 1) return this.send(worker, job, this.jobMessage(worker, job));
    try {
      worker.child.send({ type: 'jobs', jobs: jobs.map((j) => this.jobMessage(worker, j)) } satisfies JobsMessage);
    } catch {
      // One of them cannot be serialised: each goes on its own, so only that one fails.
      this.queue.unshift(together(worker.next));
      worker.next = [];
      this.send(worker, job, this.jobMessage(worker, job));
      this.pump();
    }
  }

  /** A job's message for its worker: its source only where the worker is not known to hold the module. */
  private jobMessage(worker: Worker, job: Job): JobMessage {
    const cached = worker.cached.includes(job.hash);
    return {
      type: 'job',
      id: job.id,
      hash: job.hash,
      ...callsForPipe(job),
      limits: workerLimits(job.limits),
      fresh: job.fresh,
      ...(job.lifetime !== undefined ? { lifetime: job.lifetime } : {}),
      ...(cached ? {} : { source: job.source }),
    };
  }

  /** Arms the deadlines of the job the worker runs now. */
  private start(worker: Worker, job: Job): void {
    job.started = performance.now();
    worker.setActive(true);
    worker.armSilence(this.silenceBudget(job));
    const own = jobBudgetMs(job.calls.length, job.limits, this.options.graceMs);
    const budget = job.limits.workBudget;
    const left = budget ? budget.totalMs - budget.spentMs : Infinity;
    if (left < own && budget)
      worker.armJob(Math.max(0, left), { kind: 'budget', ms: Math.max(0, Math.round(left)), totalMs: budget.totalMs });
    else worker.armJob(own);
    this.watchMemory();
    job.onStart?.(() => {
      if (worker.job !== job || !worker.child.connected) return;
      try {
        worker.child.send({ type: 'yield', id: job.id } satisfies YieldMessage);
      } catch {
        // a worker past reading runs its job whole
      }
    });
  }

  /**
   * Sends a job to its worker. Serialising it can throw (a call's value nested thousands of levels deep
   * overflows the stack): the job then fails with E_TOO_LARGE and the worker, which received nothing, is free.
   */
  private send(worker: Worker, job: Job, message: JobMessage): void {
    try {
      worker.child.send(message);
    } catch (error) {
      worker.clearDeadlines();
      worker.job = null;
      worker.setActive(false);
      this.settle(
        job,
        'E_TOO_LARGE',
        `the job could not be sent to the sandbox: ${(error as Error).message} (a value nested too deeply or ` +
          `too large to serialise)`,
      );
      this.watchMemory();
      this.pump();
    }
  }

  /** The longest a busy worker may stay silent: a load, or one call, plus grace. */
  private silenceBudget(job: Job): number {
    return job.limits.loadTimeoutMs * 2 + job.limits.callTimeoutMs + job.limits.sliceMs + this.options.graceMs;
  }

  private onMessage(worker: Worker, message: WorkerMessage): void {
    if (message.type === 'batch') {
      for (const m of message.messages) this.onMessage(worker, m);
      return;
    }
    const job = worker.job;
    if (message.type === 'ready' || !job || message.id !== job.id) return;
    job.setupMs += worker.endSetup();
    if (message.type === 'progress' && message.setupMs !== undefined) {
      this.setups++;
      return worker.beginSetup(message.setupMs + this.options.graceMs);
    }
    worker.armSilence(this.silenceBudget(job));
    switch (message.type) {
      case 'need-source':
        this.send(worker, job, { ...this.jobMessage(worker, job), source: job.source });
        return;
      case 'loaded':
        job.load = message.load;
        if (message.load.ok) setRecent(this.knownLoads, job.hash, message.load, 256);
        worker.remember(job.hash, this.options.maxCachedPerWorker);
        return;
      case 'chunk':
        job.results.acceptChunk(message.text, job.limits);
        return;
      case 'charged':
        job.results.charge(message.call, message.verdicts);
        return;
      case 'tripped':
        return this.trips.record(job.hash, message.what);
      case 'failed': {
        const failure = {
          code: isProblemCode(message.code) ? message.code : ('E_PROTOCOL' as ProblemCode),
          message: message.message,
          fn: message.fn,
        };
        if (message.from < 0) job.results.fillRest(failure);
        else job.results.failRange(message.from, message.count, failure);
        return;
      }
      case 'done':
        this.finish(worker, job, message.cpuMs);
    }
  }

  private finish(worker: Worker, job: Job, cpuMs: number | undefined): void {
    worker.clearDeadlines();
    worker.job = null;
    worker.jobsRun++;
    this.settle(job, 'E_PROTOCOL', 'the sandbox worker returned no result for this call', cpuMs);
    const next = worker.next.shift();
    if (next) {
      worker.job = next; // sent with this one: the worker starts it now
      return this.start(worker, next);
    }
    if (worker.jobsRun >= this.options.maxJobsPerWorker) {
      this.workers.delete(worker);
      worker.child.kill('SIGKILL');
    } else {
      worker.setActive(false);
    }
    this.watchMemory();
    this.pump();
  }

  private onExit(worker: Worker, exitCode: number | null, signal: string | null): void {
    this.workers.delete(worker);
    const job = worker.job;
    worker.job = null;
    // Companions that never started go back to the front of the queue, still together.
    const unstarted = worker.next.splice(0);
    if (unstarted.length > 0 && this.closed)
      for (const j of unstarted) j.reject(new SandboxError('the sandbox pool was closed'));
    else if (unstarted.length > 0) this.queue.unshift(together(unstarted));
    if (job && worker.child.pid !== undefined && !this.closed) {
      const { code, message } = deathCause(worker.killed, worker.stderrTail, exitCode, signal);
      this.settle(job, code, message);
    } else if (job) {
      job.reject(new SandboxError('the sandbox pool was closed while a job was running'));
    }
    this.watchMemory();
    if (!this.closed) this.pump();
  }

  /**
   * Resolves a job, filling calls that got no result (and a missing load) with the given failure, and charges
   * its caller's budget: the worker's CPU time where it finished (cpuMs), at least a quarter of its own wall
   * time (IDLE_SHARE), else the wall time.
   */
  protected settle(job: Job, code: ProblemCode, message: string, cpuMs?: number): void {
    if (job.started && job.limits.workBudget) {
      const wallMs = performance.now() - job.started - job.setupMs;
      job.limits.workBudget.spentMs += cpuMs === undefined ? wallMs : Math.max(cpuMs, wallMs * IDLE_SHARE);
    }
    job.load ??= this.knownLoads.get(job.hash) ?? { ok: false, hash: job.hash, code, message };
    job.results.fillRest({ code, message, fn: job.load.ok ? 'call' : 'load' });
    if (job.onEnd) this.ended.push(job.onEnd);
    job.resolve({
      load: job.load,
      results: job.results.results(),
      wallMs: job.started ? performance.now() - job.started : 0,
    });
  }
}
