// The batch's scheduling: candidates through a bounded queue, specs set aside by the kind share or the
// steering, when the next architect round is wanted (overlapped with LLM work when the LLM author runs),
// and the stop reasons (target, max-candidates, specs-exhausted, cancelled; budget and no-worker from a candidate).
import PQueue from 'p-queue';
import { isLlmError } from '../agents/llm/errors.js';
import { EnvforgeError } from '../contract/errors.js';
import { specKind, type EnvSpec } from '../agents/spec.js';
import type { BatchRun } from './batch-context.js';

/**
 * What the batch does next: plan more specs, wait for a candidate to settle, or stop (after draining the queue when
 * `drain`).
 */
export type NextStep = 'plan' | 'wait' | { stop: string; drain: boolean };

export class Scheduler {
  private readonly queue: PQueue;
  /** Twice as many candidates as LLM calls in flight (the LLM author with concurrency > 1). */
  private readonly overlap: boolean;
  private readonly launched = new Set<string>();
  private readonly setAside = new Set<string>();
  private readonly maxArchitectRounds: number;

  constructor(
    private readonly run: BatchRun,
    private readonly work: (spec: EnvSpec) => Promise<void>,
  ) {
    const { deps, options } = run;
    // Twice as many candidates as LLM calls in flight: while some validate (sandbox work), the others keep
    // the `concurrency` LLM slots (limited() in openBatch) busy, so the batch is bound by the LLM, not by turns.
    // Concurrency 1 stays a strictly sequential batch (one candidate at a time, the target exact).
    this.overlap = !deps.author && options.concurrency > 1;
    this.queue = new PQueue({ concurrency: this.overlap ? 2 * options.concurrency : options.concurrency });
    this.maxArchitectRounds = Math.ceil((2 * options.maxCandidates) / options.specsPerRound) + 2;
  }

  /** Specs set aside by the steering never started: they do not use up --max-candidates. */
  private startedCount(): number {
    return this.launched.size - this.setAside.size;
  }

  /**
   * Overlapped, the next round is asked for while this one runs (LLM slots never drain), unless the candidates launched
   * could reach the target (no round paid for that nobody needs); an author's batch (offline: reproducible) asks once
   * drained.
   */
  private wantsSpecs(): boolean {
    const { queue } = this;
    return this.overlap
      ? this.run.admittedCount() + queue.size + queue.pending < this.run.options.target
      : queue.size === 0 && queue.pending < queue.concurrency;
  }

  /** Once the queue runs low: what the batch does next. */
  async next(): Promise<NextStep> {
    const { deps, options, state } = this.run;
    await (this.overlap ? this.queue.onSizeLessThan(this.queue.concurrency) : this.queue.onEmpty());
    if (deps.signal?.aborted) return { stop: 'cancelled', drain: true };
    if (this.run.admittedCount() >= options.target) return { stop: 'target', drain: false };
    if (this.startedCount() >= options.maxCandidates) return { stop: 'max-candidates', drain: true };
    if (!this.wantsSpecs()) return 'wait';
    return state.architectRounds >= this.maxArchitectRounds ? { stop: 'specs-exhausted', drain: true } : 'plan';
  }

  /** Until a candidate settles (not overlapped: until the queue is idle). */
  settled(): Promise<void> {
    return this.overlap
      ? new Promise<void>((resolve) => this.queue.addEventListener('next', () => resolve(), { once: true }))
      : this.queue.onIdle();
  }

  drain(): Promise<void> {
    return this.queue.onIdle();
  }

  /** The specs set aside so far, forgotten so that they may be launched again (a kind handed its share over). */
  takeBack(specs: readonly EnvSpec[]): EnvSpec[] {
    return specs.filter((s) => this.setAside.delete(s.name) && this.launched.delete(s.name));
  }

  /** Queues each spec not launched yet, while --max-candidates allows. */
  launch(specs: readonly EnvSpec[]): void {
    for (const spec of specs) this.launchOne(spec);
  }

  private launchOne(spec: EnvSpec): void {
    const { run } = this;
    const { deps, state, steering, share, stop, failures } = run;
    if (this.launched.has(spec.name) || this.startedCount() >= run.options.maxCandidates) return;
    this.launched.add(spec.name);
    void this.queue.add(async () => {
      if (run.stopReason !== null || deps.signal?.aborted) return;
      const fresh = !state.outcomes.has(spec.name);
      if (fresh && !share.start(specKind(spec), steering.active && steering.trainsWeak(spec.skills)))
        return void this.setAside.add(spec.name);
      if (fresh && !steering.start(spec)) {
        share.finish(specKind(spec));
        return void this.setAside.add(spec.name);
      }
      try {
        await this.work(spec);
      } catch (error) {
        if (isLlmError(error, 'E_LLM_BUDGET')) return stop('budget');
        if (isLlmError(error, 'E_LLM_CANCELLED') || deps.signal?.aborted) return stop('cancelled');
        // Remote validation with no worker to take the jobs: the batch stops, resumable, once one runs.
        if (error instanceof EnvforgeError && error.code === 'E_NO_WORKER') return stop('no-worker');
        // A failure of the LLM service is data about this candidate, never the end of the batch.
        if (isLlmError(error)) return void failures.push({ spec: spec.name, code: error.code, message: error.message });
        throw error;
      } finally {
        if (fresh) {
          steering.finish(spec);
          share.finish(specKind(spec));
        }
      }
    });
  }
}
