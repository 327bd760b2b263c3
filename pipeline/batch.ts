// The nightly batch: architect → generator → validator → repair → admit, through an Author (an LLM or
// the offline author), with candidates through a bounded queue, budgets enforced by the cost ledger, and
// every paid step written to the library's journal first, so a killed batch resumes without redoing
// admitted or paid work. Its steps: plan specs (architect-round.ts) → write, judge and admit each
// candidate (attempts.ts, through admission.ts) → report; scheduling.ts decides which comes next.
import { buildReport, type BatchReport } from './report.js';
import { openBatch, type BatchDeps, type BatchRun } from './batch-context.js';
import { candidateAttempts } from './attempts.js';
import { Scheduler } from './scheduling.js';
import { planSpecs } from './architect-round.js';
import { localSeam, queueSeam } from './admission.js';
import type { BatchOptions } from './batch-options.js';

export { DEFAULT_BATCH_OPTIONS, type BatchOptions } from './batch-options.js';
export type { BatchDeps, BatchEvent } from './batch-context.js';

export async function runBatch(deps: BatchDeps, options: BatchOptions): Promise<BatchReport> {
  const run = await openBatch(deps, options);
  // Judge and admit here, or through the work queue's workers: the same steps either way (admission.ts).
  const seam = deps.remote
    ? queueSeam(deps.remote, deps.signal)
    : localSeam(deps.library, { pool: deps.pool, novelty: run.novelty.index }, deps.signal);
  // Each candidate: write → judge → admit, repaired up to the bound.
  const scheduler = new Scheduler(run, candidateAttempts(run, seam));
  scheduler.launch(run.state.specs); // a resumed batch's specs first
  while (run.stopReason === null) {
    const next = await scheduler.next();
    if (next === 'plan') scheduler.launch(await planSpecs(run, scheduler));
    else if (next === 'wait') await scheduler.settled();
    else {
      if (next.drain) await scheduler.drain();
      run.stop(next.stop);
    }
  }
  await scheduler.drain();
  return reportBatch(run);
}

/** The report step: the batch's report and ledger saved, and the batch finished unless it can be resumed. */
async function reportBatch(run: BatchRun): Promise<BatchReport> {
  const { deps, options, state, steering, stopReason } = run;
  const { library, ledger } = deps;
  run.emit({ type: 'cost', snapshot: ledger.snapshot() });
  const report = buildReport({
    batchId: options.batchId,
    stopReason: stopReason ?? 'finished',
    specs: state.specs,
    dropped: state.dropped,
    modules: state.modules,
    verdicts: state.verdicts,
    outcomes: [...state.outcomes.values()],
    failures: run.failures,
    ledger: ledger.snapshot(),
    wallMs: performance.now() - run.started,
    ...(options.author ? { author: options.author } : {}),
    ...(run.withFeedback ? { frontier: steering.report() } : {}),
  });
  await library.saveBatchLedger(options.batchId, ledger.snapshot());
  // An interrupted batch (or one no worker served) stays running, so `envforge run --resume` can continue it.
  if (stopReason !== 'cancelled' && stopReason !== 'no-worker')
    await library.finishBatch(options.batchId, 'finished', report);
  return report;
}
