// The work queue of a PostgreSQL library, on pg-boss in the same database: a batch sends validation jobs
// and follows them; workers on any machine take them, and settle each one in the transaction that
// admits (or keeps the rejection of) its candidate, so a job is done exactly when its outcome is stored.
import { PgBoss } from 'pg-boss';
import type { AdmitInput, AdmitResult, Lineage } from '../contract.js';
import { LibraryError } from '../contract.js';
import { EnvforgeError } from '../../contract/errors.js';
import type { ValidationReport } from '../../validators/report.js';
import type { Query } from './db.js';
import type { PostgresLibrary } from './store.js';

export const VALIDATE_QUEUE = 'envforge-validate';

/** A candidate to validate and, when it passes, admit. */
export interface ValidationJob {
  batchId: string;
  /** The batch's journal key of the attempt (spec/attempt). */
  key: string;
  source: string;
  lineage: Lineage;
  /** The validation seed the batch fixed for this candidate (absent in jobs of older versions: random). */
  validationSeed?: number;
}

/** What a settled job holds: the report, and the admission when the candidate passed (null otherwise). */
export interface ValidationOutcome {
  report: ValidationReport;
  admission: AdmitResult | null;
}

export interface QueueOptions {
  /** Seconds a taken job may run before it is given to another worker (a worker that died). */
  jobTimeoutSeconds: number;
  /** Tries after the first before a job is failed for good. */
  retryLimit: number;
}

export const DEFAULT_QUEUE_OPTIONS: QueueOptions = { jobTimeoutSeconds: 300, retryLimit: 4 };

/**
 * How often pg-boss looks for jobs past their timeout: a quarter of it (at least 1 s, at most 60 s). Both of its
 * timers: the supervise tick, and the monitor pass that expires jobs, which runs at most once per monitor interval
 * (60 s when not given: a dead worker's job waited up to a minute past a short --job-timeout).
 */
export function expiryIntervals(jobTimeoutSeconds: number): {
  superviseIntervalSeconds: number;
  monitorIntervalSeconds: number;
} {
  const seconds = Math.min(60, Math.max(1, Math.floor(jobTimeoutSeconds / 4)));
  return { superviseIntervalSeconds: seconds, monitorIntervalSeconds: seconds };
}

/** Writes of a settling job, inside its transaction. */
export interface Settlement {
  admit(input: AdmitInput): Promise<AdmitResult>;
  recordRejection(input: { source: string; report: ValidationReport; lineage: Lineage }): Promise<void>;
}

export interface TakenJob {
  id: string;
  retryCount: number;
  data: ValidationJob;
}

export class PostgresWorkQueue {
  private constructor(
    private readonly library: PostgresLibrary,
    private readonly boss: PgBoss,
  ) {}

  /** Starts pg-boss on the library's database (its own schema, pgboss) and creates the queue once. */
  static async open(library: PostgresLibrary, options: Partial<QueueOptions> = {}): Promise<PostgresWorkQueue> {
    const opts = { ...DEFAULT_QUEUE_OPTIONS, ...options };
    await library.db.open();
    const boss = new PgBoss({
      connectionString: library.db.url,
      max: 4,
      schedule: false,
      ...expiryIntervals(opts.jobTimeoutSeconds),
    });
    boss.on('error', () => {}); // transient errors of pg-boss's own loops; the next tick retries
    try {
      await boss.start();
      if (!(await boss.getQueue(VALIDATE_QUEUE))) {
        await boss
          .createQueue(VALIDATE_QUEUE, {
            expireInSeconds: opts.jobTimeoutSeconds,
            retryLimit: opts.retryLimit,
            retryDelay: 0,
            deleteAfterSeconds: 7 * 86_400,
          })
          .catch(async (error: unknown) => {
            if (!(await boss.getQueue(VALIDATE_QUEUE))) throw error; // another process created it first
          });
      }
    } catch (error) {
      await boss.stop({ graceful: false }).catch(() => {});
      throw new LibraryError(`cannot start the work queue on ${library.dir}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return new PostgresWorkQueue(library, boss);
  }

  async send(job: ValidationJob): Promise<string> {
    const id = await this.boss.send(VALIDATE_QUEUE, job);
    if (!id) throw new LibraryError(`the work queue refused the job ${job.batchId}/${job.key}`);
    return id;
  }

  /**
   * Waits until the job is settled and returns its outcome; a job that failed for good is an error. While
   * no worker has taken it, `onWaiting` hears how long it has waited (each poll), and past `waitTimeoutMs`
   * (when given) the wait ends with an E_NO_WORKER error.
   */
  async outcome(
    id: string,
    signal?: AbortSignal,
    options: { pollMs?: number; waitTimeoutMs?: number; onWaiting?: (waitedMs: number) => void } = {},
  ): Promise<ValidationOutcome> {
    const started = Date.now();
    for (;;) {
      const job = await this.boss.getJobById<ValidationJob>(VALIDATE_QUEUE, id);
      if (!job) throw new LibraryError(`the job ${id} is gone from the work queue`);
      if (job.state === 'completed') return job.output as unknown as ValidationOutcome;
      if (job.state === 'failed' || job.state === 'cancelled')
        throw new LibraryError(
          `the job ${id} ${job.state} after ${job.retryCount} retries: ${JSON.stringify(job.output)}`,
        );
      if (signal?.aborted) throw new LibraryError('cancelled while waiting for a worker');
      if (job.state === 'created' || job.state === 'retry') {
        const waited = Date.now() - started;
        options.onWaiting?.(waited);
        if (options.waitTimeoutMs !== undefined && waited > options.waitTimeoutMs)
          throw new NoWorkerError(`no worker took the job in ${Math.round(waited / 1000)} s`);
      }
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
    }
  }

  /** Takes up to `count` jobs for this worker (each one is this worker's until it settles or times out). */
  async take(count: number): Promise<TakenJob[]> {
    const jobs = await this.boss.fetch<ValidationJob>(VALIDATE_QUEUE, { batchSize: count });
    return jobs.map((j) => ({ id: j.id, retryCount: j.retryCount, data: j.data }));
  }

  /**
   * Runs `fn` and completes the job in one transaction. When the job is no longer this attempt's (it
   * timed out and went to another worker), nothing of it commits: the other worker's outcome stands.
   */
  async settle(job: TakenJob, fn: (tx: Settlement) => Promise<ValidationOutcome>): Promise<'settled' | 'lost'> {
    try {
      return await this.library.db.write(`settling job ${job.id}`, async (q: Query) => {
        const outcome = await fn({
          admit: (input) => this.library.envs.admitIn(q, input),
          recordRejection: (input) => this.library.recordRejectionIn(q, input),
        });
        const done = (await this.boss.complete(
          VALIDATE_QUEUE,
          { id: job.id, retryCount: job.retryCount },
          outcome as unknown as object,
          { db: { executeSql: (text, values) => q(text, values) } },
        )) as { affected?: number };
        if (done.affected !== 1) throw new LostJob();
        return 'settled' as const;
      });
    } catch (error) {
      if (error instanceof LibraryError && error.cause instanceof LostJob) return 'lost';
      throw error;
    }
  }

  /** Gives a job back as failed (it is retried up to the retry limit). */
  async fail(job: TakenJob, error: Error): Promise<void> {
    await this.boss.fail(VALIDATE_QUEUE, { id: job.id, retryCount: job.retryCount }, { message: error.message });
  }

  async close(): Promise<void> {
    await this.boss.stop({ graceful: false, close: true }).catch(() => {});
  }
}

/** No worker took a job within the wait the caller allowed. */
export class NoWorkerError extends EnvforgeError {
  constructor(message: string) {
    super('E_NO_WORKER', message);
  }
}

class LostJob extends Error {
  constructor() {
    super('the job is no longer held by this attempt');
  }
}
