// The admission seam the batch and the queue worker share (pipeline/admission.ts): an admitting report is
// admitted, a near-duplicate found at admission becomes a kept rejection, and a rejection is kept once.
import { describe, expect, it } from 'vitest';
import {
  admitJudged,
  judgeCandidate,
  keepRejection,
  settleJudged,
  type AdmissionStore,
} from '../pipeline/admission.js';
import { rejectWrongKind } from '../pipeline/kind-check.js';
import type { AdmitResult, EnvRecord, Lineage } from '../library/contract.js';
import type { ValidationReport } from '../validators/report.js';
import type { ValidateOptions } from '../validators/validate.js';

const lineage = { author: 'test', spec: { name: 'x' }, promptHash: 'h', batchId: 'b' } as unknown as Lineage;
const report = (verdict: 'admit' | 'reject'): ValidationReport =>
  ({
    verdict,
    hash: 'h',
    problems: [],
    stages: [
      { stage: 'static', ok: true, problems: [] },
      { stage: 'novelty', ok: true, problems: [], metrics: {} },
    ],
    meta: { kind: 'episodic' },
  }) as unknown as ValidationReport;

/** A store that answers admit with `result` and records what it was asked. */
function store(result: AdmitResult): AdmissionStore & { admitted: number; kept: ValidationReport[] } {
  const s = {
    admitted: 0,
    kept: [] as ValidationReport[],
    admit: async () => (s.admitted++, result),
    recordRejection: async ({ report }: { report: ValidationReport }) => void s.kept.push(report),
  };
  return s;
}

const env = { name: 'x', version: 1 } as unknown as EnvRecord;
const duplicate: AdmitResult = {
  status: 'duplicate',
  problems: [{ code: 'E_DUPLICATE_CODE', stage: 'novelty', message: 'near-duplicate of y' }],
};

describe('the admission seam', () => {
  it('admits an admitting report and keeps nothing', async () => {
    const s = store({ status: 'admitted', env });
    const outcome = await settleJudged(s, { source: 'src', report: report('admit'), lineage });
    expect(outcome.admission?.status).toBe('admitted');
    expect([s.admitted, s.kept.length]).toEqual([1, 0]);
  });

  it('turns a near-duplicate found at admission into a rejection it keeps, the novelty stage failed', async () => {
    const s = store(duplicate);
    const r = report('admit');
    const outcome = await settleJudged(s, { source: 'src', report: r, lineage });
    expect(outcome.admission?.status).toBe('duplicate');
    expect(r.verdict).toBe('reject');
    expect(r.stages.find((st) => st.stage === 'novelty')).toMatchObject({
      ok: false,
      metrics: { recheckedAtAdmission: true },
    });
    expect(s.kept).toEqual([r]);
  });

  it('never asks the store to admit a rejected report, and keeps it once', async () => {
    const s = store({ status: 'admitted', env });
    const r = report('reject');
    expect(await admitJudged(s, { source: 'src', report: r, lineage })).toBeNull();
    await keepRejection(s, { source: 'src', report: r, lineage });
    expect([s.admitted, s.kept.length]).toEqual([0, 1]);
  });

  it('rejects a module of another kind than its spec asks, naming both contracts through the kind plug', () => {
    const r = report('admit');
    rejectWrongKind(r, { kind: 'single' });
    expect(r.verdict).toBe('reject');
    expect(r.problems[0]).toMatchObject({
      code: 'E_WRONG_KIND',
      stage: 'static',
      message:
        'the spec asks for a single-turn (contract v1: generate, solve, verify) environment, but the module ' +
        'is episodic (contract v2: reset, step, score, act)',
    });
    const code = report('admit');
    (code as { meta: unknown }).meta = { kind: 'code' };
    rejectWrongKind(code, { kind: 'episodic' });
    expect(code.problems[0]?.message).toMatch(/^the spec asks for an episodic \(contract v2/);
  });
});

describe('a rejection that rests only on wall-clock limits', () => {
  const rejected = (...codes: string[]) =>
    ({
      ...report('reject'),
      problems: codes.map((code) => ({ code, stage: 'execution', message: code })),
    }) as unknown as ValidationReport;
  const options = {} as ValidateOptions; // the stand-in validator reads none
  /** A validator that answers the given reports in turn, counting its calls. */
  const validator = (...reports: ValidationReport[]) => {
    const v = Object.assign(async () => reports[Math.min(v.calls++, reports.length - 1)] as ValidationReport, {
      calls: 0,
    });
    return v;
  };

  it('is validated once more and the second report stands (a stall of the machine does not repeat)', async () => {
    const validate = validator(rejected('E_TIMEOUT'), report('admit'));
    const judged = await judgeCandidate('src', options, undefined, undefined, validate);
    expect([judged?.verdict, validate.calls]).toEqual(['admit', 2]);
  });

  it('stays rejected when the module times out again (a module that hangs hangs at the same seed)', async () => {
    const validate = validator(rejected('E_TOO_SLOW'), rejected('E_TOO_SLOW'));
    const judged = await judgeCandidate('src', options, undefined, undefined, validate);
    expect([judged?.verdict, validate.calls]).toEqual(['reject', 2]);
  });

  it('is not validated again when any other problem rejects it too', async () => {
    const validate = validator(rejected('E_TIMEOUT', 'E_THROWN'), report('admit'));
    const judged = await judgeCandidate('src', options, undefined, undefined, validate);
    expect([judged?.verdict, validate.calls]).toEqual(['reject', 1]);
  });

  it('is not validated again once the batch is cancelled', async () => {
    const controller = new AbortController();
    const validate = Object.assign(async () => (controller.abort(), rejected('E_TIMEOUT')), {});
    expect(await judgeCandidate('src', options, undefined, controller.signal, validate)).toBeNull();
  });
});
