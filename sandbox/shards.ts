// How many jobs a parallel run becomes: a share sent to a worker that does not hold the module costs that
// worker a module load (an isolate, a realm, the factory rewrite) before its first call, which pays only
// when the worker would otherwise stand idle; on a busy pool it is CPU taken from other candidates.

/** What the pool knows of one worker when it splits a run. */
export interface WorkerView {
  job: unknown;
  cached: readonly string[];
  exited: boolean;
}

/** Calls a share must have at least to be worth a job of its own. */
export const MIN_CALLS_PER_SHARD = 8;

/**
 * Shares for a parallel run of `calls` calls of module `hash`: one per worker that holds the module or
 * stands idle, counting a worker the pool may still start as idle, and at least one.
 */
export function shardCount(calls: number, hash: string, workers: Iterable<WorkerView>, maxWorkers: number): number {
  let started = 0;
  let ready = 0;
  for (const w of workers) {
    started++;
    if (!w.exited && (w.job === null || w.cached.includes(hash))) ready++;
  }
  const willStart = Math.max(0, maxWorkers - started);
  return Math.max(1, Math.min(ready + willStart, maxWorkers, Math.floor(calls / MIN_CALLS_PER_SHARD)));
}
