// The nightly batch: architect → generator → validator → repair → admit, through an Author (an LLM or
// the offline author), with candidates through a bounded queue, budgets enforced by the cost ledger, and
// every paid step written to the library's journal first, so a killed batch resumes without redoing
// admitted or paid work.
import { buildReport, type BatchReport } from './report.js';
import { openBatch, type BatchDeps } from './batch-context.js';
import { candidateAttempts } from './attempts.js';
import { schedule } from './scheduling.js';
import { localSeam, queueSeam } from './admission.js';
import type { BatchOptions } from './batch-options.js';

export { DEFAULT_BATCH_OPTIONS, type BatchOptions } from './batch-options.js';
export type { BatchDeps, BatchEvent } from './batch-context.js';

export async function runBatch(deps: BatchDeps, options: BatchOptions): Promise<BatchReport> {
  const run = await openBatch(deps, options);
  const seam = deps.remote ? queueSeam(deps.remote, deps.signal) : localSeam(deps.library, { pool: deps.pool, novelty: run.novelty.index }, deps.signal);
  await schedule(run, candidateAttempts(run, seam));
  const { library, ledger } = deps;
  const { state, steering, withFeedback, emit, stopReason, started, failures } = run;
  options = run.options;
  emit({ type: 'cost', snapshot: ledger.snapshot() });
  const report = buildReport({
    batchId: options.batchId,
    stopReason: stopReason ?? 'finished',
    specs: state.specs,
    dropped: state.dropped,
    modules: state.modules,
    verdicts: state.verdicts,
    outcomes: [...state.outcomes.values()],
    failures,
    ledger: ledger.snapshot(),
    wallMs: performance.now() - started,
    ...(options.author ? { author: options.author } : {}),
    ...(withFeedback ? { frontier: steering.report() } : {}),
  });
  await library.saveBatchLedger(options.batchId, ledger.snapshot());
  // An interrupted batch (or one no worker served) stays running, so `envforge run --resume` can continue it.
  if (stopReason !== 'cancelled' && stopReason !== 'no-worker') await library.finishBatch(options.batchId, 'finished', report);
  return report;
}
