// The answer pool: worker processes that run policies' programs (answer-worker.ts), never an environment's
// code. Each run's answers go in jobs onto its owner's queue; owners are served in turn (a client's share of
// the workers), each owner's waiting answers are bounded, and a run's signal drops its queued jobs and kills
// its running ones. A worker killed past its job's deadline has that job's answers re-run one by one.
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { SandboxError } from '../../contract/errors.js';
import { FairQueue } from '../fair-queue.js';
import { workerEnvironment } from '../supervised-worker.js';
import { ISOLATE_HOST_FLAGS, workerScript } from '../worker-script.js';
import {
  DEFAULT_ANSWER_LIMITS,
  type AnswerJobMessage,
  type AnswerLimits,
  type AnswerResult,
  type AnswerSpec,
  type AnswerWorkerMessage,
} from './answers.js';

const WORKER = workerScript(import.meta.url, 'answer-worker');
/** Time a worker may take for envforge's own setup (a new isolate with SES) on top of its tests. */
const SETUP_MS = 20_000;
const GRACE_MS = 1_500;

export interface AnswerPoolOptions {
  workers: number;
  limits: AnswerLimits;
  workerHeapMb: number;
  /**
   * Answers one owner may have waiting or running at once; a run past it is refused (AnswerQueueFull), except an
   * owner's only one.
   */
  maxQueuedPerOwner: number;
  /**
   * Answers in one job at most: a worker turns to the next owner's job after as many (1: an owner waits for at
   * most one answer of each other owner per worker; a run's isolate outlives its jobs, so small jobs cost only IPC).
   */
  answersPerJob: number;
}

export interface AnswerRunOptions {
  /**
   * Whose answers these are (the reward service: the client's key); each owner's jobs are served in turn. Unnamed: the
   * host's own (validation), unbounded.
   */
  owner?: string;
  /**
   * Aborting it drops the run's waiting jobs and kills the workers running its others; run() then rejects
   * (AnswersCancelled).
   */
  signal?: AbortSignal;
}

/** The owner of runs that name none: envforge's own work (validation, exports), not bounded. */
const HOST = '\u0000host';

/** The owner already has as many answers waiting as it may: retry when its earlier ones are scored. */
export class AnswerQueueFull extends SandboxError {}
/**
 * The run's signal was aborted (its request's deadline passed, or its client went away) before its answers were scored.
 */
export class AnswersCancelled extends SandboxError {}

interface Slot {
  child: ChildProcess;
  ready: Promise<void>;
  busy: boolean;
}

/**
 * One call of run(): its owner, its isolate tenancy (no isolate holds two runs' programs), its jobs not yet settled.
 */
interface Run {
  owner: string;
  tenant: number;
  signal: AbortSignal | undefined;
  jobs: Set<Job>;
}

interface Job {
  run: Run;
  answers: AnswerSpec[];
  limits: AnswerLimits;
  resolve(results: AnswerResult[] | null): void;
  /** Kills the worker running it (set while it runs). */
  stop?: () => void;
}

export class AnswerPool {
  readonly options: AnswerPoolOptions;
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Job>();
  /** Answers per owner of runs not yet settled. */
  private readonly pending = new Map<string, number>();
  private nextId = 1;
  private nextTenant = 1;
  private closed = false;

  constructor(options: Partial<AnswerPoolOptions> = {}) {
    this.options = {
      workers: Math.max(1, availableParallelism()),
      limits: DEFAULT_ANSWER_LIMITS,
      workerHeapMb: 256,
      maxQueuedPerOwner: 4_096,
      answersPerJob: 1,
      ...options,
    };
  }

  /** Answers of `owner` waiting or running now. */
  queued(owner: string): number {
    return this.pending.get(owner) ?? 0;
  }

  /**
   * Every answer's result, in order. Answers go in contiguous jobs of at most answersPerJob, one per worker at least.
   */
  async run(
    answers: AnswerSpec[],
    limits: Partial<AnswerLimits> = {},
    { owner: named, signal }: AnswerRunOptions = {},
  ): Promise<AnswerResult[]> {
    if (answers.length === 0) return [];
    if (signal?.aborted) throw cancelled();
    const owner = named ?? HOST;
    const waiting = this.queued(owner);
    const { maxQueuedPerOwner, answersPerJob, workers } = this.options;
    if (named !== undefined && waiting > 0 && waiting + answers.length > maxQueuedPerOwner) {
      throw new AnswerQueueFull(
        `this client has ${waiting} code answers waiting or running, and may have at most ` +
          `${maxQueuedPerOwner} (the answer pool's maxQueuedPerOwner): ${answers.length} more are refused; ` +
          `retry when its earlier requests are answered`,
      );
    }
    this.pending.set(owner, waiting + answers.length);
    const run: Run = { owner, tenant: this.nextTenant++, signal, jobs: new Set() };
    const onAbort = () => this.cancel(run);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const merged = { ...this.options.limits, ...limits };
      const shares = Math.max(Math.min(workers, answers.length), Math.ceil(answers.length / answersPerJob));
      const size = Math.ceil(answers.length / shares);
      const parts = await Promise.all(
        Array.from({ length: shares }, (_, i) => this.runShare(run, answers.slice(i * size, (i + 1) * size), merged)),
      );
      if (signal?.aborted) throw cancelled();
      return parts.flat();
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.cancel(run); // nothing of a settled run keeps a place in the queue or a worker
      const left = this.queued(owner) - answers.length;
      if (left > 0) this.pending.set(owner, left);
      else this.pending.delete(owner);
    }
  }

  /** Drops the run's waiting jobs and stops its running ones. */
  private cancel(run: Run): void {
    for (const job of this.queue.remove(run.owner, (j) => j.run === run)) job.resolve(null);
    for (const job of [...run.jobs]) job.stop?.();
  }

  /**
   * One share as one job; when its worker died or was killed, each answer again alone (unless the run was cancelled).
   */
  private async runShare(run: Run, answers: AnswerSpec[], limits: AnswerLimits): Promise<AnswerResult[]> {
    if (answers.length === 0) return [];
    const results = await this.enqueue(run, answers, limits);
    if (results) return results;
    if (run.signal?.aborted) throw cancelled();
    if (answers.length === 1) return [crashed(answers[0] as AnswerSpec, limits)];
    return Promise.all(
      answers.map(async (a) => {
        const alone = await this.enqueue(run, [a], limits);
        if (!alone && run.signal?.aborted) throw cancelled();
        return alone?.[0] ?? crashed(a, limits);
      }),
    );
  }

  private enqueue(run: Run, answers: AnswerSpec[], limits: AnswerLimits): Promise<AnswerResult[] | null> {
    if (this.closed) return Promise.reject(new SandboxError('the answer pool is closed'));
    if (run.signal?.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const job: Job = {
        run,
        answers,
        limits,
        resolve: (results) => {
          run.jobs.delete(job);
          resolve(results);
        },
      };
      run.jobs.add(job);
      this.queue.push(run.owner, job);
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.size > 0) {
      let slot = this.slots.find((s) => !s.busy);
      if (!slot && this.slots.length < this.options.workers) slot = this.spawn();
      if (!slot) return;
      this.start(slot, this.queue.shift() as Job);
    }
    for (const s of this.slots) if (!s.busy) idle(s.child);
  }
  private spawn(): Slot {
    const child = fork(WORKER.file, [], {
      // --expose-gc: the worker collects an answer isolate's garbage before it judges what an answer left there.
      execArgv: [
        ...ISOLATE_HOST_FLAGS,
        `--max-old-space-size=${this.options.workerHeapMb}`,
        '--expose-gc',
        ...WORKER.execArgv,
      ],
      env: workerEnvironment(),
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    });
    const ready = new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', () => reject(new SandboxError('an answer worker exited before it was ready')));
    });
    ready.catch(() => {});
    child.on('error', () => {});
    const slot: Slot = { child, ready, busy: false };
    child.once('exit', () => this.kill(slot));
    this.slots.push(slot);
    return slot;
  }

  private kill(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
    slot.child.kill('SIGKILL');
  }

  private start(slot: Slot, job: Job): void {
    slot.busy = true;
    busy(slot.child);
    const id = this.nextId++;
    const results: AnswerResult[] = new Array(job.answers.length);
    const tests = job.answers.reduce((n, a) => n + a.tests.length + 1, 0);
    let settled = false;
    const finish = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      slot.child.off('message', onMessage);
      slot.child.off('exit', onExit);
      if (!ok) this.kill(slot); // out of the slots now: no next job goes to a dying process
      slot.busy = false;
      job.stop = undefined;
      job.resolve(ok ? results : null);
      this.pump();
    };
    const onMessage = (m: AnswerWorkerMessage) => {
      if (m.type === 'result' && m.id === id && m.index >= 0 && m.index < results.length) results[m.index] = m.result;
      if (m.type === 'done' && m.id === id) finish(results.every((r) => r !== undefined));
    };
    const onExit = () => finish(false);
    // Twice the tests' budgets: an answer whose resource failure in a used isolate is re-run alone (answer-worker.ts).
    const deadline = setTimeout(() => finish(false), SETUP_MS + GRACE_MS + 2 * tests * job.limits.testTimeoutMs);
    job.stop = () => finish(false);
    slot.child.on('message', onMessage);
    slot.child.once('exit', onExit);
    slot.ready.then(
      () =>
        slot.child.send({
          type: 'answers',
          id,
          tenant: job.run.tenant,
          answers: job.answers,
          limits: job.limits,
        } satisfies AnswerJobMessage),
      () => finish(false),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const s of this.slots) s.child.kill('SIGKILL');
    this.slots.length = 0;
  }
}

const cancelled = () =>
  new AnswersCancelled('the answers were cancelled before they were scored (their request ended)');

function crashed(answer: AnswerSpec, limits: AnswerLimits): AnswerResult {
  return {
    ran: true,
    tests: answer.tests.map(() => 'E_CRASHED'),
    message: `the program wedged or killed its worker process (past ${limits.testTimeoutMs} ms a test, or its memory)`,
    ms: 0,
  };
}

/** An idle worker does not keep the host process alive; a busy one does. */
function idle(child: ChildProcess): void {
  child.unref();
  (child.channel as { unref?: () => void } | undefined)?.unref?.();
}
function busy(child: ChildProcess): void {
  child.ref();
  (child.channel as { ref?: () => void } | undefined)?.ref?.();
}

const POOLS = new WeakMap<object, AnswerPool>();

/**
 * The answer pool that goes with an environment pool (made on first use, as many workers): scoring programs needs no
 * new plumbing.
 */
export function answerPoolFor(owner: object, options?: Partial<AnswerPoolOptions>): AnswerPool {
  let pool = POOLS.get(owner);
  if (!pool) POOLS.set(owner, (pool = new AnswerPool(options)));
  return pool;
}
