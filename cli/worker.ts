// `envforge worker`: a queue worker on a PostgreSQL library: takes validation jobs of any batch, runs
// them in its own sandbox pool, and admits or keeps rejections in the job's transaction. Also the queue
// opening that `envforge run --workers remote` shares with it.
import { concat, json, line } from './io.js';
import type { Command } from 'commander';
import { UsageError } from '../contract/errors.js';
import type { Library } from '../library/contract.js';
import { openLibrary, resolveLibraryDir } from '../library/open.js';
import type { PostgresWorkQueue } from '../library/postgres/queue.js';
import { PostgresLibrary } from '../library/postgres/store.js';
import { runWorker } from '../pipeline/worker.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { Io } from './io.js';
import { DATABASE_HELP, integerOption } from './options.js';

interface WorkerOptions {
  database?: string;
  concurrency: number;
  jobTimeout: number;
  maxJobs?: number;
  json: boolean;
}

export const JOB_TIMEOUT_HELP =
  'seconds a taken job may run before it goes to another worker (set when the queue is first created)';

/** The work queue of a library, which must be a PostgreSQL one (pg-boss loads here, not with `envforge run`). */
export async function openQueue(library: Library, jobTimeoutSeconds: number): Promise<PostgresWorkQueue> {
  if (!(library instanceof PostgresLibrary))
    throw new UsageError(
      `queue workers need a PostgreSQL library (--database postgres://… or ENVFORGE_DATABASE_URL); ` +
        `${library.dir} is a folder`,
    );
  const { PostgresWorkQueue } = await import('../library/postgres/queue.js');
  return PostgresWorkQueue.open(library, { jobTimeoutSeconds });
}

export function registerWorker(program: Command, io: Io): void {
  program
    .command('worker')
    .description(
      "take validation jobs from a PostgreSQL library's work queue (sent by `envforge run --workers " +
        'remote`), validate them in a local sandbox pool and admit the passing ones; run as many as you like ' +
        'on as many machines as you like',
    )
    .option('--database <url>', DATABASE_HELP)
    .option(
      '--concurrency <N>',
      'jobs in flight at once, each with its own sandbox worker',
      integerOption('--concurrency', 1, 256),
      1,
    )
    .option('--job-timeout <seconds>', JOB_TIMEOUT_HELP, integerOption('--job-timeout', 5, 86_400), 300)
    .option('--max-jobs <N>', 'exit after this many jobs', integerOption('--max-jobs', 1))
    .option('--json', 'progress as JSON lines on stderr', false)
    .action(async (options: WorkerOptions) => work(options, io));
}

async function work(options: WorkerOptions, io: Io): Promise<void> {
  const library = openLibrary(resolveLibraryDir(undefined, options.database));
  // One sandbox worker per job in flight: a machine runs as many worker processes, or as much concurrency, as it has
  // cores.
  const pool = new SandboxPool({ workers: options.concurrency });
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const queue = await openQueue(library, options.jobTimeout);
    try {
      io.err(line`envforge worker: taking jobs from ${library.dir} (concurrency ${options.concurrency})`);
      const summary = await runWorker({
        library,
        queue,
        pool,
        concurrency: options.concurrency,
        signal: controller.signal,
        ...(options.maxJobs ? { maxJobs: options.maxJobs } : {}),
        onEvent: (event) =>
          io.err(
            options.json
              ? json({ at: new Date().toISOString(), ...event })
              : concat(
                  line`${event.type} ${'key' in event ? event.key : ''}`,
                  line`${'admission' in event && event.admission ? ` → ${event.admission}` : ''}`,
                  line`${'message' in event ? `: ${event.message}` : ''}`,
                ),
          ),
      });
      io.out(json(summary));
    } finally {
      await queue.close();
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await pool.close();
    await library.close();
  }
}
