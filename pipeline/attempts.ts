// One candidate of a batch, attempt by attempt: write (or replay from the journal) a module, judge it
// through the admission seam, calibrate it against a solver, admit it or keep its rejection, and repair it
// up to the bound; every paid step is journaled before it is used.
import type { EnvSpec } from '../agents/spec.js';
import type { Lineage } from '../library/contract.js';
import type { ValidationReport } from '../validators/report.js';
import { candidateValidationSeed } from '../validators/seeds.js';
import { calibrate } from './calibration.js';
import type { ModuleEntry, VerdictEntry } from './journal-state.js';
import { envKindOf } from './kind-check.js';
import type { AdmissionSeam } from './admission.js';
import type { BatchRun } from './batch-context.js';

const attemptKey = (spec: string, attempt: number) => `${spec}/${attempt}`;

/** The attempt's module: the journaled one, else the author's (a repair of the last rejected one), journaled first. */
async function writeModule(
  run: BatchRun,
  spec: EnvSpec,
  attempt: number,
  last: { source: string | null; report: ValidationReport | null },
): Promise<ModuleEntry> {
  const { deps, author, state } = run;
  const key = attemptKey(spec.name, attempt);
  const journaled = state.modules.get(key);
  if (journaled) return journaled;
  const callOptions = { candidateId: spec.name, ...(deps.signal ? { signal: deps.signal } : {}) };
  const written =
    attempt === 0 || !last.source || !last.report
      ? await author.write(spec, callOptions)
      : await author.repair(spec, last.source, last.report, attempt, callOptions);
  const module: ModuleEntry = {
    source: written.source,
    ...(written.problem ? { problem: written.problem } : {}),
    promptHash: written.promptHash,
    model: written.model,
    purpose: attempt === 0 ? 'generator' : 'repair',
  };
  state.modules.set(key, module);
  await run.journal('module', key, module);
  return module;
}

/** The report's verdict as the journal keeps it (and the batch report lists it). */
function verdictEntry(report: ValidationReport): VerdictEntry {
  const first = report.problems[0];
  const codes = [...new Set(report.problems.map((p) => p.code))];
  const firstFailedStage = report.stages.find((s) => !s.ok && !s.skipped)?.stage ?? null;
  return {
    verdict: report.verdict,
    hash: report.hash,
    codes,
    firstFailedStage,
    firstProblem: first ? { code: first.code, stage: first.stage, message: first.message } : null,
  };
}

/**
 * With a solver, an admitted module needs a learnable level: false when it has none (the rejection is kept
 * and the candidate settled; the module is fine, the band is about the solver, so repair cannot help).
 */
async function learnable(
  run: BatchRun,
  spec: EnvSpec,
  attempt: number,
  source: string,
  report: ValidationReport,
  lineage: Lineage,
): Promise<boolean> {
  const { deps, options, state, journal } = run;
  if (report.verdict !== 'admit' || !deps.solver) return true;
  const key = attemptKey(spec.name, attempt);
  // Paid work, journaled before use, so a resumed batch does not ask the solver again.
  const calKey = `${key}/calibration`;
  const calibration =
    state.calibrations.get(calKey) ??
    (await calibrate(deps.solver, deps.pool, source, report.meta?.levels ?? 1, options.calibration, {
      candidateId: spec.name,
      ...(deps.signal ? { signal: deps.signal } : {}),
    }));
  if (!state.calibrations.has(calKey)) {
    state.calibrations.set(calKey, calibration);
    await journal('calibration', calKey, calibration);
  }
  Object.assign(lineage, { notes: { ...run.authorNotes, calibration } });
  if (calibration.admitted) return true;
  const verdict = state.verdicts.get(key)!;
  const message =
    `no level is learnable for the solver ${calibration.model}: pass rates ` +
    `${calibration.curve.map((l) => `L${l.level} ${l.passRate.toFixed(2)}`).join(', ')} (band ` +
    `${calibration.band.join('–')})`;
  report.verdict = 'reject';
  report.problems.push({ code: 'E_NOT_LEARNABLE', stage: 'review', message, evidence: calibration.curve });
  const notLearnable = { spec: spec.name, status: 'rejected' as const, attempts: attempt + 1 };
  await deps.library.recordRejection({ source, report, lineage });
  state.verdicts.set(key, {
    ...verdict,
    verdict: 'reject',
    codes: [...verdict.codes, 'E_NOT_LEARNABLE'],
    firstProblem: { code: 'E_NOT_LEARNABLE', stage: 'review', message },
  });
  await journal('verdict', `${key}/calibrated`, state.verdicts.get(key));
  state.outcomes.set(spec.name, notLearnable);
  await journal('outcome', spec.name, notLearnable);
  return false;
}

/** One candidate: write (or replay) a module, judge, repair up to the bound, admit or reject. */
export const candidateAttempts =
  (run: BatchRun, seam: AdmissionSeam) =>
  async (spec: EnvSpec): Promise<void> => {
    const { deps, options, author, state, journal, emit, gate, novelty, steering, share, settle } = run;
    if (state.outcomes.has(spec.name)) return;
    let parent: string | undefined;
    const last: { source: string | null; report: ValidationReport | null } = { source: null, report: null };
    for (let attempt = 0; attempt <= options.repairRounds; attempt++) {
      if (run.stopReason === 'budget' || deps.signal?.aborted || gate.reached) return;
      const key = attemptKey(spec.name, attempt);
      const module = await writeModule(run, spec, attempt, last);
      const { source } = module;
      if (source === null) {
        emit({ type: 'candidate', spec: spec.name, attempt, step: 'unwritten' });
        // A reply without a module earns one more generation attempt, not a repair (there is nothing to repair).
        last.source = null;
        continue;
      }
      emit({ type: 'candidate', spec: spec.name, attempt, step: 'written' });
      const notes = Object.keys(run.authorNotes).length > 0 ? { notes: { ...run.authorNotes } } : {};
      const lineage: Lineage = {
        author: author.lineageAuthor(module),
        spec,
        promptHash: module.promptHash,
        batchId: options.batchId,
        ...(parent ? { parent } : {}),
        ...notes,
      };
      const noveltyCursor = (await novelty.refresh(deps.library)).cursor;
      const reviewer =
        options.review && author.reviewer ? { reviewer: author.reviewer({ candidateId: spec.name }) } : {};
      const validationSeed = candidateValidationSeed(run.validationKey, source);
      const judged = await seam.judge({
        batchId: options.batchId,
        key,
        spec,
        source,
        lineage,
        validationSeed,
        noveltyCursor,
        ...reviewer,
      });
      if (!judged) return;
      const { report } = judged;
      const verdict = verdictEntry(report);
      state.verdicts.set(key, verdict);
      await journal('verdict', key, verdict);
      emit({
        type: 'candidate',
        spec: spec.name,
        attempt,
        step: 'validated',
        verdict: report.verdict,
        codes: verdict.codes,
      });
      if (!(await learnable(run, spec, attempt, source, report, lineage))) return;
      // A place under the target first: a candidate admitted past it would break the cap (remote workers admit on their
      // own).
      const place = seam.local && report.verdict === 'admit' ? gate.reserve() : null;
      if (place === false)
        return void (await settle(spec.name, { spec: spec.name, status: 'extra', attempts: attempt + 1 }));
      const admission = await judged.admit();
      if (place) gate.release(); // the outcome below is set before the next await, so the count never dips
      if (admission?.status === 'duplicate' && verdict.verdict === 'admit') {
        // Another writer admitted a near-duplicate while this one was validated: a rejection like any other.
        const [problem] = admission.problems;
        state.verdicts.set(key, {
          ...verdict,
          verdict: 'reject',
          codes: [...new Set([...verdict.codes, ...admission.problems.map((p) => p.code)])],
          firstFailedStage: 'novelty',
          firstProblem: { code: problem!.code, stage: 'novelty', message: problem!.message },
        });
        await journal('verdict', `${key}/rechecked`, state.verdicts.get(key));
      }
      if (admission && admission.status !== 'duplicate') {
        const { status, env } = admission;
        novelty.add(env);
        // Code the library already holds is no new environment: it does not count toward the target.
        // An 'exists' that this batch admitted for this spec is its own admission replayed after a kill.
        const own =
          status === 'admitted' ||
          (env.lineage.batchId === options.batchId && (env.lineage.spec as EnvSpec | undefined)?.name === spec.name);
        await settle(spec.name, {
          spec: spec.name,
          status: own ? 'admitted' : 'existing',
          attempts: attempt + 1,
          name: env.name,
          version: env.version,
        });
        if (own) {
          steering.admitted(env.meta.skills);
          share.admitted(envKindOf(env.meta));
          const weak = steering.active
            ? { weak: { admitted: steering.report().weakAdmitted, wanted: steering.weakWanted } }
            : {};
          emit({
            type: 'admitted',
            spec: spec.name,
            name: env.name,
            version: env.version,
            skills: [...env.meta.skills],
            ...weak,
          });
        }
        if (run.admittedCount() >= options.target) run.stop('target');
        return;
      }
      await judged.keep();
      parent = `${spec.name}#${attempt}`;
      last.source = source;
      last.report = report;
    }
    await settle(spec.name, {
      spec: spec.name,
      status: last.report ? 'rejected' : 'unwritten',
      attempts: options.repairRounds + 1,
    });
  };
