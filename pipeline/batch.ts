// The nightly batch: architect → generator → validator → repair → admit, through an Author (an LLM or
// the offline author), with candidates through a bounded queue, budgets enforced by the cost ledger, and
// every paid step written to the library's journal first, so a killed batch resumes without redoing
// admitted or paid work.
import PQueue from 'p-queue';
import type { LlmClient } from '../agents/llm/contract.js';
import { limited } from '../agents/llm/limited.js';
import { CostLedger, type LedgerSnapshot } from '../agents/llm/cost.js';
import { isLlmError } from '../agents/llm/errors.js';
import { EnvforgeError } from '../contract/errors.js';
import { specKind, type EnvSpec } from '../agents/spec.js';
import { envKindOf, rejectWrongKind } from './kind-check.js';
import type { Library } from '../library/contract.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { LiveNoveltyIndex, markDuplicate } from '../library/novelty-guard.js';
import type { ValidationReport } from '../validators/report.js';
import type { ValidationJob, ValidationOutcome } from '../library/postgres/queue.js';
import { validateCandidate } from '../validators/validate.js';
import { candidateValidationSeed, newValidationKey } from '../validators/seeds.js';
import { AUTHORS } from '../agents/authors.js';
import type { Author, WrittenModule } from '../agents/author.js';
import type { BatchOptions } from './batch-options.js';
import { buildReport, type BatchReport, type CandidateOutcome } from './report.js';
import { calibrate } from './calibration.js';
import { WeakSteering, type FrontierReport } from './steering.js';
import { JournalState, type VerdictEntry } from './journal-state.js';
import { TargetGate } from './target-gate.js';
import { KindShare } from './kind-share.js';
import { architectRound } from './architect-round.js';

export { DEFAULT_BATCH_OPTIONS, type BatchOptions } from './batch-options.js';

export type BatchEvent =
  | { type: 'specs'; proposed: number; kept: number; /** What was dropped from kept specs. */ warnings?: string[] }
  | { type: 'candidate'; spec: string; attempt: number; step: 'written' | 'unwritten' | 'validated'; verdict?: 'admit' | 'reject'; codes?: string[] }
  | { type: 'admitted'; spec: string; name: string; version: number; skills: string[]; weak?: { admitted: number; wanted: number } }
  | { type: 'frontier'; frontier: FrontierReport }
  | { type: 'stopped'; reason: string }
  | { type: 'cost'; snapshot: LedgerSnapshot };

export interface BatchDeps {
  library: Library;
  pool: SandboxPool;
  /** Architect, generator, repair and (when it has one) reviewer. */
  author?: Author;
  /** A convenience when there is no `author`: the LLM author over this client. */
  llm?: LlmClient;
  /** A solver model: admission then needs a level whose pass rate lies in the learnable band. */
  solver?: LlmClient;
  ledger: CostLedger;
  onEvent?: (event: BatchEvent) => void;
  signal?: AbortSignal;
  /**
   * Queue workers instead of this process: the candidate goes out as a job, and a worker validates it and
   * admits it (or keeps its rejection) in the transaction that settles the job. No solver calibration.
   */
  remote?: { judge(job: ValidationJob): Promise<ValidationOutcome> };
}

const attemptKey = (spec: string, attempt: number) => `${spec}/${attempt}`;

export async function runBatch(deps: BatchDeps, options: BatchOptions): Promise<BatchReport> {
  const started = performance.now();
  const { library, ledger } = deps;
  const author = deps.author ?? (deps.llm ? AUTHORS.llm({ llm: limited(deps.llm, options.concurrency) }) : undefined);
  if (!author) throw new TypeError('runBatch needs deps.author or deps.llm');
  options = { ...options, author: options.author ?? author.identity };
  await library.startBatch(options.batchId, options);
  const state = await JournalState.load(library, options.batchId);
  const emit = deps.onEvent ?? (() => {});
  let stopReason: string | null = null;
  const stop = (reason: string) => {
    if (stopReason === null) emit({ type: 'stopped', reason: (stopReason = reason) });
  };
  // The entry and the spend so far commit together: after a crash the journal and the ledger agree.
  const journal = (kind: string, key: string, payload: unknown) => library.appendJournal(options.batchId, [{ kind, key, payload }], { ledger: ledger.snapshot() }).then(() => {});
  // The offline author's version and seed go into every lineage; LLM authors have none (the author names the model).
  const { version, seed } = author.identity;
  const authorNotes = { ...(version !== undefined ? { version } : {}), ...(seed !== undefined ? { seed } : {}) };
  // Journaled: a resumed batch keeps its key, so a candidate validated again gets the same verdict.
  const validationKey = await state.keyFor(options.validationKey ?? (seed !== undefined ? `offline-seed:${seed}` : newValidationKey()), (p) => journal('validation-key', 'batch', p));
  const admittedCount = () => [...state.outcomes.values()].filter((o) => o.status === 'admitted').length;
  const gate = new TargetGate(options.target, admittedCount);
  const settle = (spec: string, outcome: CandidateOutcome) => state.settle(outcome, (o) => journal('outcome', spec, o));
  // Built once, then brought up to date before each validation with what anyone admitted since (other
  // batches, workers); the admission re-checks whatever arrives after that, so concurrent writers stay novel.
  const novelty = await LiveNoveltyIndex.of(library);
  const steering = new WeakSteering({ weak: options.weakSkills, saturated: options.saturatedSkills ?? [], weakShare: options.weakShare, target: options.target, ...(author.canTrain ? { canTrain: author.canTrain } : {}) });
  const share = new KindShare(options.kind ?? 'single', options.target);
  for (const o of state.outcomes.values()) {
    const env = o.status === 'admitted' && o.name ? await library.get(o.name, o.version) : null;
    if (env) {
      steering.admitted(env.meta.skills);
      share.admitted(envKindOf(env.meta));
    }
  }
  const withFeedback = options.weakSkills.length > 0 || (options.saturatedSkills?.length ?? 0) > 0;
  if (withFeedback) emit({ type: 'frontier', frontier: steering.report() });

  /** One candidate: write (or replay) a module, validate, repair up to the bound, admit or reject. */
  const work = async (spec: EnvSpec): Promise<void> => {
    if (state.outcomes.has(spec.name)) return;
    let parent: string | undefined;
    let lastSource: string | null = null;
    let lastReport: ValidationReport | null = null;
    for (let attempt = 0; attempt <= options.repairRounds; attempt++) {
      if (stopReason === 'budget' || deps.signal?.aborted || gate.reached) return;
      const key = attemptKey(spec.name, attempt);
      let module = state.modules.get(key);
      if (!module) {
        const purpose = attempt === 0 ? 'generator' : 'repair';
        const callOptions = { candidateId: spec.name, ...(deps.signal ? { signal: deps.signal } : {}) };
        const written: WrittenModule =
          attempt === 0 || !lastSource || !lastReport
            ? await author.write(spec, callOptions)
            : await author.repair(spec, lastSource, lastReport, attempt, callOptions);
        module = { source: written.source, ...(written.problem ? { problem: written.problem } : {}), promptHash: written.promptHash, model: written.model, purpose };
        state.modules.set(key, module);
        await journal('module', key, module);
      }
      if (module.source === null) {
        emit({ type: 'candidate', spec: spec.name, attempt, step: 'unwritten' });
        // A reply without a module earns one more generation attempt, not a repair (there is nothing to repair).
        lastSource = null;
        continue;
      }
      emit({ type: 'candidate', spec: spec.name, attempt, step: 'written' });
      const lineage = {
        author: author.lineageAuthor(module),
        spec,
        promptHash: module.promptHash,
        batchId: options.batchId,
        ...(parent ? { parent } : {}),
        ...(Object.keys(authorNotes).length > 0 ? { notes: { ...authorNotes } } : {}),
      };
      const noveltyCursor = (await novelty.refresh(library)).cursor;
      const validationSeed = candidateValidationSeed(validationKey, module.source);
      const remote = deps.remote ? await deps.remote.judge({ batchId: options.batchId, key, source: module.source, lineage, validationSeed }) : null;
      const reviewer = options.review && author.reviewer ? { reviewer: author.reviewer({ candidateId: spec.name }) } : {};
      const report = remote?.report ?? (await validateCandidate(module.source, { pool: deps.pool, validationSeed, novelty: novelty.index, ...reviewer }));
      // Ctrl-C reaches the sandbox workers too: what they report after it is a cancellation, not a verdict.
      if (deps.signal?.aborted) return;
      if (!remote) rejectWrongKind(report, spec);
      const codes = [...new Set(report.problems.map((p) => p.code))];
      const first = report.problems[0];
      const firstFailedStage = report.stages.find((s) => !s.ok && !s.skipped)?.stage ?? null;
      const verdict: VerdictEntry = { verdict: report.verdict, hash: report.hash, codes, firstFailedStage, firstProblem: first ? { code: first.code, stage: first.stage, message: first.message } : null };
      state.verdicts.set(key, verdict);
      await journal('verdict', key, verdict);
      emit({ type: 'candidate', spec: spec.name, attempt, step: 'validated', verdict: report.verdict, codes });
      if (report.verdict === 'admit' && deps.solver) {
        // Paid work, journaled before use, so a resumed batch does not ask the solver again.
        const calKey = `${key}/calibration`;
        const calibration =
          state.calibrations.get(calKey) ??
          (await calibrate(deps.solver, deps.pool, module.source, report.meta?.levels ?? 1, options.calibration, { candidateId: spec.name, ...(deps.signal ? { signal: deps.signal } : {}) }));
        if (!state.calibrations.has(calKey)) {
          state.calibrations.set(calKey, calibration);
          await journal('calibration', calKey, calibration);
        }
        Object.assign(lineage, { notes: { ...authorNotes, calibration } });
        if (!calibration.admitted) {
          const message = `no level is learnable for the solver ${calibration.model}: pass rates ${calibration.curve.map((l) => `L${l.level} ${l.passRate.toFixed(2)}`).join(', ')} (band ${calibration.band.join('–')})`;
          report.verdict = 'reject';
          report.problems.push({ code: 'E_NOT_LEARNABLE', stage: 'review', message, evidence: calibration.curve });
          const notLearnable: CandidateOutcome = { spec: spec.name, status: 'rejected', attempts: attempt + 1 };
          await library.recordRejection({ source: module.source, report, lineage });
          state.verdicts.set(key, { ...verdict, verdict: 'reject', codes: [...codes, 'E_NOT_LEARNABLE'], firstProblem: { code: 'E_NOT_LEARNABLE', stage: 'review', message } });
          await journal('verdict', `${key}/calibrated`, state.verdicts.get(key));
          state.outcomes.set(spec.name, notLearnable);
          await journal('outcome', spec.name, notLearnable);
          return; // the module is fine; the band is about the solver, so repair cannot help
        }
      }
      // A place under the target first: a candidate admitted past it would break the cap (remote workers admit on their own).
      const place = !remote && report.verdict === 'admit' ? gate.reserve() : null;
      if (place === false) return void (await settle(spec.name, { spec: spec.name, status: 'extra', attempts: attempt + 1 }));
      const admission = remote ? remote.admission : report.verdict === 'admit' ? await library.admit({ source: module.source, report, lineage, noveltyCursor }) : null;
      if (place) gate.release(); // the outcome below is set before the next await, so the count never dips
      if (admission?.status === 'duplicate' && !remote) {
        // Another writer admitted a near-duplicate while this one was validated: a rejection like any other.
        markDuplicate(report, admission.problems);
        state.verdicts.set(key, { ...verdict, verdict: 'reject', codes: [...new Set([...codes, ...admission.problems.map((p) => p.code)])], firstFailedStage: 'novelty', firstProblem: { code: admission.problems[0]!.code, stage: 'novelty', message: admission.problems[0]!.message } });
        await journal('verdict', `${key}/rechecked`, state.verdicts.get(key));
      }
      if (admission && admission.status !== 'duplicate') {
        const { status, env } = admission;
        novelty.add(env);
        // Code the library already holds is no new environment: it does not count toward the target.
        // An 'exists' that this batch admitted for this spec is its own admission replayed after a kill.
        const own = status === 'admitted' || (env.lineage.batchId === options.batchId && (env.lineage.spec as EnvSpec | undefined)?.name === spec.name);
        await settle(spec.name, { spec: spec.name, status: own ? 'admitted' : 'existing', attempts: attempt + 1, name: env.name, version: env.version });
        if (own) {
          steering.admitted(env.meta.skills);
          share.admitted(envKindOf(env.meta));
          const weak = steering.active ? { weak: { admitted: steering.report().weakAdmitted, wanted: steering.weakWanted } } : {};
          emit({ type: 'admitted', spec: spec.name, name: env.name, version: env.version, skills: [...env.meta.skills], ...weak });
        }
        if (admittedCount() >= options.target) stop('target');
        return;
      }
      if (!remote) await library.recordRejection({ source: module.source, report, lineage });
      parent = `${spec.name}#${attempt}`;
      lastSource = module.source;
      lastReport = report;
    }
    await settle(spec.name, { spec: spec.name, status: lastReport ? 'rejected' : 'unwritten', attempts: options.repairRounds + 1 });
  };

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
  const failures: Array<{ spec: string; code: string; message: string }> = [];
  const launch = (spec: EnvSpec) => {
    if (launched.has(spec.name) || startedCount() >= options.maxCandidates) return;
    launched.add(spec.name);
    void queue.add(async () => {
      if (stopReason !== null || deps.signal?.aborted) return;
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
  while (stopReason === null) {
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
