// The batch's scheduling: candidates through a bounded queue, architect rounds asked for when the queue
// runs low (overlapped with LLM work when the LLM author runs), specs set aside by the kind share or
// the steering, and the stop reasons (target, max-candidates, specs-exhausted, budget, cancelled).
import PQueue from 'p-queue';
import { isLlmError } from '../agents/llm/errors.js';
import { EnvforgeError } from '../contract/errors.js';
import { specKind, type EnvSpec } from '../agents/spec.js';
import { architectRound } from './architect-round.js';
import type { BatchRun } from './batch-context.js';

/** Runs candidates and architect rounds until the batch has a stop reason, then waits for the queue to drain. */
export async function schedule(run: BatchRun, work: (spec: EnvSpec) => Promise<void>): Promise<void> {
  const { deps, options, author, state, steering, share, journal, emit, stop, admittedCount, failures } = run;
  const { library } = deps;
  // Twice as many candidates as LLM calls in flight: while some validate (sandbox work), the others keep
  // the `concurrency` LLM slots (limited() above) busy, so the batch is bound by the LLM, not by turns.
  // Concurrency 1 stays a strictly sequential batch (one candidate at a time, the target exact).
  const overlap = !deps.author && options.concurrency > 1;
  const queue = new PQueue({ concurrency: overlap ? 2 * options.concurrency : options.concurrency });
  // Overlapped, the next round is asked for while this one runs (LLM slots never drain), unless the candidates launched
  // could reach the target (no round paid for that nobody needs); an author's batch (offline: reproducible) asks once drained.
  const [lowWater, wantsSpecs] = [() => (overlap ? queue.onSizeLessThan(queue.concurrency) : queue.onEmpty()), () => (overlap ? admittedCount() + queue.size + queue.pending < options.target : queue.size === 0 && queue.pending < queue.concurrency)];
  const settled = () => (overlap ? new Promise<void>((resolve) => queue.addEventListener('next', () => resolve(), { once: true })) : queue.onIdle());
  const launched = new Set<string>();
  const setAside = new Set<string>();
  // Specs set aside by the steering never started: they do not use up --max-candidates.
  const startedCount = () => launched.size - setAside.size;
  const launch = (spec: EnvSpec) => {
    if (launched.has(spec.name) || startedCount() >= options.maxCandidates) return;
    launched.add(spec.name);
    void queue.add(async () => {
      if (run.stopReason !== null || deps.signal?.aborted) return;
      const fresh = !state.outcomes.has(spec.name);
      if (fresh && !share.start(specKind(spec), steering.active && steering.trainsWeak(spec.skills))) return void setAside.add(spec.name);
      if (fresh && !steering.start(spec)) {
        share.finish(specKind(spec));
        return void setAside.add(spec.name);
      }
      try {
        await work(spec);
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
  };

  for (const spec of state.specs) launch(spec);
  const maxArchitectRounds = Math.ceil((2 * options.maxCandidates) / options.specsPerRound) + 2;
  while (run.stopReason === null) {
    await lowWater();
    if (deps.signal?.aborted) {
      await queue.onIdle();
      stop('cancelled');
    } else if (admittedCount() >= options.target) stop('target');
    else if (startedCount() >= options.maxCandidates) {
      await queue.onIdle();
      stop('max-candidates');
    } else if (wantsSpecs()) {
      if (state.architectRounds >= maxArchitectRounds) {
        await queue.onIdle();
        stop('specs-exhausted');
        break;
      }
      try {
        // While weak skills still want admissions, the round may hold both kinds (the weak share comes first).
        const focus = steering.focus(options.specsPerRound);
        const asked = focus && options.kind ? options.kind : share.ask();
        const { fresh, dropped, proposed, promptHash, warnings } = await architectRound({ library, author, specs: state.specs, n: options.specsPerRound, ...(options.kind ? { kind: asked } : {}), weakSkills: options.weakSkills, ...(options.saturatedSkills ? { saturatedSkills: options.saturatedSkills } : {}),  ...(focus ? { focus } : {}), ...(options.skills ? { skills: options.skills } : {}) });
        // A kind out of designs hands its share over: the other kind's specs set aside for it get their turn.
        const moved = share.roundBrought(asked, fresh.length) ? state.specs.filter((s) => setAside.delete(s.name) && launched.delete(s.name)) : [];
        state.architectRounds++;
        state.specs.push(...fresh);
        state.dropped += dropped;
        await journal('specs', `architect-${state.architectRounds}`, { specs: fresh, dropped, promptHash });
        emit({ type: 'specs', proposed, kept: fresh.length, ...(warnings?.length ? { warnings } : {}) });
        for (const spec of [...moved, ...fresh]) launch(spec);
      } catch (error) {
        if (isLlmError(error, 'E_LLM_BUDGET')) stop('budget');
        else if (isLlmError(error)) {
          failures.push({ spec: `architect-${state.architectRounds + 1}`, code: error.code, message: error.message });
          state.architectRounds++;
        } else throw error;
      }
    } else {
      await settled();
    }
  }
  await queue.onIdle();
}
