// What one batch holds while it runs, built once from its journal: the author, the journal state, the
// emit and stop of its events, the target gate, the live novelty index and the steering of kinds and skills.
import type { LlmClient } from '../agents/llm/contract.js';
import { limited } from '../agents/llm/limited.js';
import type { CostLedger, LedgerSnapshot } from '../agents/llm/cost.js';
import type { Library } from '../library/contract.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { LiveNoveltyIndex } from '../library/novelty-guard.js';
import type { ValidationJob, ValidationOutcome } from '../library/postgres/queue.js';
import { newValidationKey } from '../validators/seeds.js';
import { AUTHORS } from '../agents/authors.js';
import type { Author } from '../agents/author.js';
import type { BatchOptions } from './batch-options.js';
import type { CandidateOutcome } from './report.js';
import { WeakSteering, type FrontierReport } from './steering.js';
import { JournalState } from './journal-state.js';
import { TargetGate } from './target-gate.js';
import { KindShare } from './kind-share.js';
import { envKindOf } from './kind-check.js';

export type BatchEvent =
  | { type: 'specs'; proposed: number; kept: number /** What was dropped from kept specs. */; warnings?: string[] }
  | {
      type: 'candidate';
      spec: string;
      attempt: number;
      step: 'written' | 'unwritten' | 'validated';
      verdict?: 'admit' | 'reject';
      codes?: string[];
    }
  | {
      type: 'admitted';
      spec: string;
      name: string;
      version: number;
      skills: string[];
      weak?: { admitted: number; wanted: number };
    }
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

/** A batch in progress: its inputs, what its journal holds and the shared parts its candidates update. */
export interface BatchRun {
  readonly deps: BatchDeps;
  readonly options: BatchOptions;
  readonly author: Author;
  readonly state: JournalState;
  /** performance.now() when the batch began. */
  readonly started: number;
  emit(event: BatchEvent): void;
  /** Why the batch stops (the first reason given wins); null while it runs. */
  readonly stopReason: string | null;
  stop(reason: string): void;
  /** Writes one journal entry; the entry and the spend so far commit together. */
  journal(kind: string, key: string, payload: unknown): Promise<void>;
  /** The offline author's version and seed, noted in every lineage (empty for LLM authors). */
  readonly authorNotes: Record<string, unknown>;
  readonly validationKey: string;
  admittedCount(): number;
  readonly gate: TargetGate;
  settle(spec: string, outcome: CandidateOutcome): Promise<void>;
  readonly novelty: LiveNoveltyIndex;
  readonly steering: WeakSteering;
  readonly share: KindShare;
  /** Trainer feedback was given: the report carries the frontier. */
  readonly withFeedback: boolean;
  /** Failures of the LLM service, kept as data about their candidate or round. */
  readonly failures: Array<{ spec: string; code: string; message: string }>;
}

/** Starts (or resumes) a batch: the journal read back, the key fixed, the admitted ones counted again. */
export async function openBatch(deps: BatchDeps, options: BatchOptions): Promise<BatchRun> {
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
  const journal = (kind: string, key: string, payload: unknown) =>
    library.appendJournal(options.batchId, [{ kind, key, payload }], { ledger: ledger.snapshot() }).then(() => {});
  // The offline author's version and seed go into every lineage; LLM authors have none (the author names the model).
  const { version, seed } = author.identity;
  const authorNotes = { ...(version !== undefined ? { version } : {}), ...(seed !== undefined ? { seed } : {}) };
  // Journaled: a resumed batch keeps its key, so a candidate validated again gets the same verdict.
  const validationKey = await state.keyFor(
    options.validationKey ?? (seed !== undefined ? `offline-seed:${seed}` : newValidationKey()),
    (p) => journal('validation-key', 'batch', p),
  );
  const admittedCount = () => [...state.outcomes.values()].filter((o) => o.status === 'admitted').length;
  const gate = new TargetGate(options.target, admittedCount);
  const settle = (spec: string, outcome: CandidateOutcome) => state.settle(outcome, (o) => journal('outcome', spec, o));
  // Built once, then brought up to date before each validation with what anyone admitted since (other
  // batches, workers); the admission re-checks whatever arrives after that, so concurrent writers stay novel.
  const novelty = await LiveNoveltyIndex.of(library);
  const steering = new WeakSteering({
    weak: options.weakSkills,
    saturated: options.saturatedSkills ?? [],
    weakShare: options.weakShare,
    target: options.target,
    ...(author.canTrain ? { canTrain: author.canTrain } : {}),
  });
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
  return {
    ...{ deps, options, author, state, started, emit, stop, journal, authorNotes, validationKey },
    ...{ admittedCount, gate, settle, novelty, steering, share, withFeedback },
    get stopReason() {
      return stopReason;
    },
    failures: [],
  };
}
