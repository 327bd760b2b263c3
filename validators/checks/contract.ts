// The checks registry's contract: a check is one mechanism of a hack stage (what it asks of the sandbox,
// and what the answers show), written for any environment kind; its findings are decided by the two shared
// rules of rules.ts, never by the check itself. Each kind's hack stage runs the checks that name its kind.
import type { KindName } from '../../kinds/contract.js';
import type { ProblemCode } from '../../contract/codes.js';
import type { StageContext } from '../context.js';
import type { Finding } from './rules.js';

/**
 * One mechanism. `Req` is what the kind's sandbox runs (a single-turn instance with responses to score, an
 * episodic rollout), `Out` what comes back for one request; `Ctx` the kind's view of the stage.
 */
export interface Check<Ctx extends CheckContext = CheckContext, Req = unknown, Out = unknown> {
  /** Stable and unique: it names the check in metrics and evidence. */
  readonly name: string;
  /** Every code its findings may carry. */
  readonly codes: readonly ProblemCode[];
  /** The kinds it applies to, by canonical name (kinds/contract.ts KIND_NAMES). */
  readonly kinds: readonly KindName[];
  /** Its sandbox requests for this candidate and the judge of their outcomes; null where it does not apply. */
  plan(ctx: Ctx): CheckPlan<Req, Out> | null;
}

/** What every check sees: the stage's context, and values worked out once per stage and shared by checks. */
export interface CheckContext {
  readonly stage: StageContext;
  /** The value under `key`, made once per stage run (a grouping of the sample, traits of its answers…). */
  memo<T>(key: string, make: () => T): T;
}

export interface CheckPlan<Req, Out> {
  /** Run together with every other check's requests, in one batch (the kind merges requests for one instance). */
  readonly requests: readonly Req[];
  /** `outcomes[i]` answers `requests[i]`. */
  judge(outcomes: readonly Out[], tools: JudgeTools<Req, Out>): CheckVerdict | Promise<CheckVerdict>;
}

export interface JudgeTools<Req, Out> {
  /** More sandbox work, for a check that adapts (more instances where a verdict is close, a follow-up probe). */
  run(requests: readonly Req[]): Promise<Out[]>;
  /**
   * Every outcome of the stage's batch, of every check, for checks that judge the whole sample (a credit floor,
   * feedback).
   */
  all(): readonly Out[];
}

export interface CheckVerdict {
  findings: Finding[];
  /** What the check measured, for the report (kept small: a few numbers per level or family). */
  metrics?: Record<string, unknown>;
}

/** A check of any kind, as the registry lists it (each kind's stage narrows it to its own types). */
// biome-ignore lint/suspicious/noExplicitAny: the registry holds checks of every kind; each stage narrows them
export type AnyCheck = Check<any, any, any>;

/** The registered checks that apply to `kind`, in registry order. */
export function checksFor<C extends AnyCheck>(registry: readonly AnyCheck[], kind: KindName): C[] {
  return registry.filter((c) => c.kinds.includes(kind)) as C[];
}
