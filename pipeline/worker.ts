// A queue worker (`envforge worker`): takes validation jobs of any batch from a PostgreSQL library's work
// queue, validates each in its own sandbox pool against a live novelty index, and settles the job in the
// transaction that admits the candidate or keeps its rejection. Start as many as you like, anywhere.
import type { PostgresWorkQueue, TakenJob, ValidationOutcome } from '../library/postgres/queue.js';
import type { Library } from '../library/contract.js';
import { LiveNoveltyIndex } from '../library/novelty-guard.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { EnvSpec } from '../agents/spec.js';
import { judgeCandidate, settleJudged } from './admission.js';

export interface WorkerDeps {
  library: Library;
  queue: PostgresWorkQueue;
  pool: SandboxPool;
  /** Jobs in flight at once. */
  concurrency: number;
  signal: AbortSignal;
  /** Stop after this many jobs (tests, benchmarks); unbounded by default. */
  maxJobs?: number;
  /** Stop once the queue has had nothing for this long (ms); never by default. */
  idleExitMs?: number;
  onEvent?: (event: WorkerEvent) => void;
}

export type WorkerEvent =
  | { type: 'ready' }
  | { type: 'taken'; job: string; batchId: string; key: string; retry: number }
  | {
      type: 'settled';
      job: string;
      batchId: string;
      key: string;
      verdict: 'admit' | 'reject';
      admission: string | null;
    }
  | { type: 'lost'; job: string; key: string }
  | { type: 'failed'; job: string; key: string; message: string };

export interface WorkerSummary {
  settled: number;
  lost: number;
  failed: number;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

export async function runWorker(deps: WorkerDeps): Promise<WorkerSummary> {
  const { library, queue, signal } = deps;
  const emit = deps.onEvent ?? (() => {});
  const novelty = await LiveNoveltyIndex.of(library);
  emit({ type: 'ready' });
  const summary: WorkerSummary = { settled: 0, lost: 0, failed: 0 };
  const running = new Set<Promise<void>>();
  let taken = 0;
  let idleSince = Date.now();

  const handle = async (job: TakenJob): Promise<void> => {
    const { batchId, key, source, lineage, validationSeed } = job.data;
    emit({ type: 'taken', job: job.id, batchId, key, retry: job.retryCount });
    try {
      const noveltyCursor = (await novelty.refresh(library)).cursor;
      const options = {
        pool: deps.pool,
        novelty: novelty.index,
        ...(validationSeed !== undefined ? { validationSeed } : {}),
      };
      // A cancelled validation is no verdict: the job goes to another worker.
      const report = await judgeCandidate(source, options, lineage.spec as EnvSpec | undefined, signal);
      if (!report) return;
      const held: { admission: ValidationOutcome['admission'] } = { admission: null };
      const result = await queue.settle(job, async (tx) => {
        const outcome = await settleJudged(tx, { source, report, lineage, noveltyCursor });
        held.admission = outcome.admission;
        return outcome;
      });
      if (result === 'lost') {
        summary.lost++;
        return emit({ type: 'lost', job: job.id, key });
      }
      summary.settled++;
      const env = held.admission?.env;
      if (env) novelty.add(env);
      emit({
        type: 'settled',
        job: job.id,
        batchId,
        key,
        verdict: report.verdict,
        admission: env ? `${env.name}@${env.version}` : null,
      });
    } catch (error) {
      summary.failed++;
      emit({ type: 'failed', job: job.id, key, message: (error as Error).message });
      await queue.fail(job, error as Error).catch(() => {});
    }
  };

  while (!signal.aborted && (deps.maxJobs === undefined || taken < deps.maxJobs)) {
    const room = Math.min(
      deps.concurrency - running.size,
      deps.maxJobs === undefined ? Infinity : deps.maxJobs - taken,
    );
    const jobs = room > 0 ? await queue.take(room) : [];
    if (jobs.length > 0) idleSince = Date.now();
    for (const job of jobs) {
      taken++;
      const p: Promise<void> = handle(job).finally(() => running.delete(p));
      running.add(p);
    }
    if (deps.idleExitMs !== undefined && running.size === 0 && Date.now() - idleSince > deps.idleExitMs) break;
    if (jobs.length === 0 || running.size >= deps.concurrency) await Promise.race([sleep(200, signal), ...running]);
  }
  await Promise.allSettled(running);
  return summary;
}
