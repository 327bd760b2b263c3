// One candidate of a batch: write (or replay from the journal) a module, validate it, repair it up to the
// bound, and admit it or keep its rejection; every paid step is journaled before it is used.
import { type EnvSpec } from '../agents/spec.js';
import type { WrittenModule } from '../agents/author.js';
import { markDuplicate } from '../library/novelty-guard.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate } from '../validators/validate.js';
import { candidateValidationSeed } from '../validators/seeds.js';
import type { CandidateOutcome } from './report.js';
import { calibrate } from './calibration.js';
import type { VerdictEntry } from './journal-state.js';
import { envKindOf, rejectWrongKind } from './kind-check.js';
import type { BatchRun } from './batch-context.js';

const attemptKey = (spec: string, attempt: number) => `${spec}/${attempt}`;

/** One candidate: write (or replay) a module, validate, repair up to the bound, admit or reject. */
export const candidateAttempts = (run: BatchRun) => async (spec: EnvSpec): Promise<void> => {
  const { deps, options, author, state, journal, emit, gate, novelty, steering, share, authorNotes, validationKey, settle } = run;
  const { library } = deps;
  const remoteJudge = deps.remote;
  if (state.outcomes.has(spec.name)) return;
  let parent: string | undefined;
  let lastSource: string | null = null;
  let lastReport: ValidationReport | null = null;
  for (let attempt = 0; attempt <= options.repairRounds; attempt++) {
    if (run.stopReason === 'budget' || deps.signal?.aborted || gate.reached) return;
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
    const remote = remoteJudge ? await remoteJudge.judge({ batchId: options.batchId, key, source: module.source, lineage, validationSeed }) : null;
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
      if (run.admittedCount() >= options.target) run.stop('target');
      return;
    }
    if (!remote) await library.recordRejection({ source: module.source, report, lineage });
    parent = `${spec.name}#${attempt}`;
    lastSource = module.source;
    lastReport = report;
  }
  await settle(spec.name, { spec: spec.name, status: lastReport ? 'rejected' : 'unwritten', attempts: options.repairRounds + 1 });
};
