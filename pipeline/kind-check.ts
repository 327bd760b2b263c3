// A spec that names its kind must get a module of that kind: `envforge run --kind episodic` admits no
// single-turn module, and the reverse. The batch and the queue worker both apply it to the validator's report.
import { specKind, type EnvSpec } from '../agents/spec.js';
import { type KindName, describeKind, kindNamed, kindOf } from '../kinds/registry.js';
import type { ValidationReport } from '../validators/report.js';

/** A module's kind as the batch counts kinds (by its meta). */
export const envKindOf = (meta: unknown): KindName => kindOf(meta).name;

/**
 * Turns an admitting report into an E_WRONG_KIND rejection when the module is not of its spec's kind; specs without a
 * kind are not checked.
 */
export function rejectWrongKind(report: ValidationReport, spec: Pick<EnvSpec, 'kind'> | undefined): void {
  if (!spec?.kind || !report.meta || report.verdict !== 'admit') return;
  const got = kindOf(report.meta);
  const want = kindNamed(specKind(spec));
  if (got === want) return;
  const problem = {
    code: 'E_WRONG_KIND' as const,
    message: `the spec asks for ${describeKind(want)} environment, but the module is ${got.contract}`,
  };
  report.verdict = 'reject';
  report.problems.unshift({ ...problem, stage: 'static' });
  const stage = report.stages.find((s) => s.stage === 'static');
  if (stage) Object.assign(stage, { ok: false, problems: [...stage.problems, problem] });
}
