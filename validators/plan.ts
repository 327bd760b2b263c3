// The validator's plan: every stage with its cost and the facts it reads and produces (order.ts derives the
// waves from them), and the stages a kind swaps in, keyed by the kind's plug. A fact is a context field
// ('episodes') or a stage's report, named by the stage ('hack'); the report keeps report.ts's order.
import { code } from '../kinds/code.js';
import type { EnvKind } from '../kinds/contract.js';
import { episodic } from '../kinds/episodic.js';
import { deriveBaselines } from './baselines.js';
import { CODE_STAGES } from './code/stages.js';
import type { Stage, StageContext } from './context.js';
import { episodicHack } from './episodic/hack.js';
import {
  episodicDeterminism,
  episodicDifficulty,
  episodicDiversity,
  episodicExecution,
  episodicSolvability,
} from './episodic/stages.js';
import { orderWaves } from './order.js';
import { STAGES, type StageName, type StageReport } from './report.js';
import { determinismStage } from './stages/determinism.js';
import { difficultyStage } from './stages/difficulty.js';
import { diversityStage } from './stages/diversity.js';
import { executionStage } from './stages/execution.js';
import { hackStage } from './stages/hack.js';
import { noveltyStage } from './stages/novelty.js';
import { reviewStage } from './stages/review.js';
import { solvabilityStage } from './stages/solvability.js';
import { staticStage } from './stages/static.js';

/** What a step leaves for later ones: a context field, or a stage's report (named by the stage). */
export type Fact =
  | StageName
  | 'meta'
  | 'kind'
  | 'load'
  | 'episodes'
  | 'failures'
  | 'rollouts'
  | 'baselines'
  | 'random-by-level'
  | 'fingerprint';

/** A stage of the report: whether it gates the rest, reads data already sampled, or costs sandbox or LLM time. */
export interface StageStep {
  readonly name: StageName;
  readonly run: Stage;
  readonly cost: 'gate' | 'cheap' | 'sandbox' | 'llm';
  readonly reads: readonly Fact[];
  readonly produces: readonly Fact[];
}

/** A step with no report of its own: it derives data for later stages from the context and earlier reports. */
export interface DeriveStep {
  readonly name: string;
  readonly derive: (ctx: StageContext, reports: ReadonlyMap<StageName, StageReport>) => void;
  readonly reads: readonly Fact[];
  readonly produces: readonly Fact[];
}

export type Step = StageStep | DeriveStep;

/** Every stage's report but review's: the review runs last and only where every other verdict passed. */
const VERDICTS = STAGES.filter((s) => s !== 'review');

/**
 * The single-turn plan, which every kind starts from. A stage's own report is a fact it produces (added by
 * `withReports`).
 */
const SHARED: readonly Step[] = [
  { name: 'static', run: staticStage, cost: 'gate', reads: [], produces: ['meta', 'kind', 'load'] },
  {
    name: 'execution',
    run: executionStage,
    cost: 'gate',
    reads: ['meta', 'kind', 'load'],
    produces: ['episodes', 'failures'],
  },
  { name: 'determinism', run: determinismStage, cost: 'sandbox', reads: ['episodes'], produces: [] },
  { name: 'solvability', run: solvabilityStage, cost: 'cheap', reads: ['episodes'], produces: [] },
  { name: 'hack', run: hackStage, cost: 'sandbox', reads: ['kind', 'episodes'], produces: [] },
  { name: 'diversity', run: diversityStage, cost: 'cheap', reads: ['episodes'], produces: [] },
  { name: 'baselines', derive: deriveBaselines, reads: ['hack', 'episodes'], produces: ['baselines'] },
  { name: 'difficulty', run: difficultyStage, cost: 'cheap', reads: ['episodes', 'baselines'], produces: [] },
  { name: 'novelty', run: noveltyStage, cost: 'cheap', reads: ['meta', 'kind', 'episodes'], produces: ['fingerprint'] },
  { name: 'review', run: reviewStage, cost: 'llm', reads: ['meta', 'episodes', ...VERDICTS], produces: [] },
];

/** A kind's changes to the shared plan by step name: another run or other facts, or null to leave the step out. */
type Changes = Readonly<Record<string, Partial<Pick<StageStep, 'run' | 'reads' | 'produces'>> | null>>;

/**
 * Episodic candidates (contract v2) run rollouts: their stages read the reference rollouts, and the hack stage's random
 * policy sets the difficulty curve's floor.
 */
const EPISODIC: Changes = {
  execution: { run: episodicExecution, produces: ['episodes', 'failures', 'rollouts'] },
  determinism: { run: episodicDeterminism, reads: ['rollouts'] },
  solvability: { run: episodicSolvability, reads: ['rollouts'] },
  hack: { run: episodicHack, reads: ['kind', 'episodes', 'rollouts'], produces: ['random-by-level'] },
  diversity: { run: episodicDiversity, reads: ['rollouts'] },
  baselines: null,
  difficulty: { run: episodicDifficulty, reads: ['meta', 'rollouts', 'random-by-level'] },
  review: { reads: ['meta', 'episodes', 'rollouts', ...VERDICTS] },
};

/** Code candidates (contract v3): their own determinism, diversity, hack and difficulty stages; no text baselines. */
const CODE: Changes = {
  determinism: { run: CODE_STAGES.determinism },
  diversity: { run: CODE_STAGES.diversity },
  hack: { run: CODE_STAGES.hack },
  baselines: null,
  difficulty: { run: CODE_STAGES.difficulty, reads: ['episodes'] },
};

/** Each kind's changes, keyed by its plug (kinds/); a kind not listed runs the shared plan. */
const KIND_CHANGES = new Map<EnvKind, Changes>([
  [episodic, EPISODIC],
  [code, CODE],
]);

/** A plan with its changes applied, each stage producing its own report as a fact. */
export function applyChanges(steps: readonly Step[], changes: Changes = {}): Step[] {
  return steps.flatMap((step): Step[] => {
    const change = changes[step.name];
    if (change === null) return [];
    const changed = {
      ...step,
      ...Object.fromEntries(Object.entries(change ?? {}).filter(([, v]) => v !== undefined)),
    } as Step;
    return 'run' in changed ? [{ ...changed, produces: [changed.name, ...changed.produces] }] : [changed];
  });
}

const planned = new Map<EnvKind, Step[][]>();

/** The waves a candidate of this kind runs (static, which decides the kind, is wave 0 of every plan). */
export function planFor(kind: EnvKind): Step[][] {
  let waves = planned.get(kind);
  if (!waves) planned.set(kind, (waves = orderWaves(applyChanges(SHARED, KIND_CHANGES.get(kind)))));
  return waves;
}
