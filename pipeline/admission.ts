// The admission seam, one implementation for the batch and the queue worker: a candidate validated and
// checked against its spec's kind, then admitted (a near-duplicate found at admission rejected) or its
// rejection kept, in this process (`localSeam`) or by an `envforge worker` through the work queue (`queueSeam`).
import type { EnvSpec } from '../agents/spec.js';
import { LOAD_SENSITIVE } from '../contract/codes.js';
import type { AdmitInput, AdmitResult, Library } from '../library/contract.js';
import { markDuplicate } from '../library/novelty-guard.js';
import type { ValidationJob, ValidationOutcome } from '../library/postgres/queue.js';
import type { ValidationReport } from '../validators/report.js';
import { validateCandidate, type ValidateOptions } from '../validators/validate.js';
import { rejectWrongKind } from './kind-check.js';

/** Where a judged candidate goes: the library, or a queue job's transaction. */
export type AdmissionStore = Pick<Library, 'admit' | 'recordRejection'>;

/** Whether a rejection rests only on wall-clock limits (which a busy machine, not the module, may have hit). */
const onlyLoadSensitive = (report: ValidationReport): boolean =>
  report.verdict === 'reject' && report.problems.length > 0 && report.problems.every((p) => LOAD_SENSITIVE.has(p.code));

/**
 * The validator's report, with a module not of its spec's kind rejected; null when cancelled mid-way. A
 * rejection that rests only on wall-clock limits is validated once more at the same validation seed and the
 * second report stands: the sandbox gives a module no clock or state that survives a run, so a module that
 * hangs hangs again, while a stall of the machine (a batch's other candidates, a nightly's neighbours) rarely
 * repeats; without this, an honest candidate costs the batch a repair round of the LLM.
 */
export async function judgeCandidate(
  source: string,
  options: ValidateOptions,
  spec: Pick<EnvSpec, 'kind'> | undefined,
  signal?: AbortSignal,
  validate: typeof validateCandidate = validateCandidate,
): Promise<ValidationReport | null> {
  let report = await validate(source, options);
  if (!signal?.aborted && onlyLoadSensitive(report)) report = await validate(source, options);
  // Ctrl-C reaches the sandbox workers too: what they report after it is a cancellation, not a verdict.
  if (signal?.aborted) return null;
  rejectWrongKind(report, spec);
  return report;
}

/**
 * Admits an admitting report's module; a near-duplicate admitted since its novelty snapshot turns the report into a
 * rejection.
 */
export async function admitJudged(store: AdmissionStore, input: AdmitInput): Promise<AdmitResult | null> {
  const admission = input.report.verdict === 'admit' ? await store.admit(input) : null;
  if (admission?.status === 'duplicate') markDuplicate(input.report, admission.problems);
  return admission;
}

/** Keeps a rejected report with its module (an admitted one has nothing to keep). */
export async function keepRejection(store: AdmissionStore, { source, report, lineage }: AdmitInput): Promise<void> {
  if (report.verdict === 'reject') await store.recordRejection({ source, report, lineage });
}

/** Both steps in one store (the worker's transaction): admitted, or the rejection kept. */
export async function settleJudged(store: AdmissionStore, input: AdmitInput): Promise<ValidationOutcome> {
  const admission = await admitJudged(store, input);
  await keepRejection(store, input);
  return { report: input.report, admission };
}

/** One attempt of a batch's candidate, as the seam receives it. */
export interface Candidate extends Omit<AdmitInput, 'report'> {
  batchId: string;
  /** The batch's journal key of the attempt (spec/attempt). */
  key: string;
  spec: EnvSpec;
  validationSeed: number;
  reviewer?: ValidateOptions['reviewer'];
}

/** The batch's side of the seam; `judge` resolves null when the batch was cancelled during validation. */
export interface AdmissionSeam {
  /** Whether admission happens in this process (it then takes a place under the target first). */
  readonly local: boolean;
  judge(
    candidate: Candidate,
  ): Promise<{ report: ValidationReport; admit(): Promise<AdmitResult | null>; keep(): Promise<void> } | null>;
}

/** Validation and admission in this process, against the batch's live novelty index. */
export const localSeam = (
  library: Library,
  options: Omit<ValidateOptions, 'validationSeed' | 'reviewer'>,
  signal?: AbortSignal,
): AdmissionSeam => ({
  local: true,
  async judge(candidate) {
    const { source, validationSeed, reviewer, spec } = candidate;
    const report = await judgeCandidate(
      source,
      { ...options, validationSeed, ...(reviewer ? { reviewer } : {}) },
      spec,
      signal,
    );
    if (!report) return null;
    const input = {
      source,
      report,
      lineage: candidate.lineage,
      ...(candidate.noveltyCursor !== undefined ? { noveltyCursor: candidate.noveltyCursor } : {}),
    };
    return { report, admit: () => admitJudged(library, input), keep: () => keepRejection(library, input) };
  },
});

/** Validation and admission by a queue worker (`settleJudged` in the job's transaction); the batch follows the job. */
export const queueSeam = (
  remote: { judge(job: ValidationJob): Promise<ValidationOutcome> },
  signal?: AbortSignal,
): AdmissionSeam => ({
  local: false,
  async judge({ batchId, key, source, lineage, validationSeed }) {
    const { report, admission } = await remote.judge({ batchId, key, source, lineage, validationSeed });
    if (signal?.aborted) return null;
    return { report, admit: async () => admission, keep: async () => {} };
  },
});
