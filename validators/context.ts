// What the validator's stages share while judging one candidate: the sandbox, the options, and what
// earlier stages learned (meta, sampled episodes, baseline scores).
import type { Meta } from '../contract/schema.js';
import type { EnvKind } from '../kinds/contract.js';
import type { Episode, EpisodeFailure } from '../sandbox/episodes.js';
import type { SandboxPool } from '../sandbox/pool.js';
import type { LoadInfo } from '../sandbox/protocol.js';
import type { Rollout } from '../sandbox/rollouts.js';
import type { NoveltyIndex } from './novelty/lsh.js';
import type { ValidatorOptions } from './options.js';
import type { StageReport } from './report.js';
import type { Fingerprint } from './novelty/fingerprint.js';

/** The LLM review stage's seam: implemented by the agents (LLM issue); absent means skipped. */
export interface Reviewer {
  /**
   * A sample's reference is the reference response, or an episodic reference's action log with the observations it got.
   */
  review(input: {
    source: string;
    meta: Meta;
    samples: Array<{ seed: number; level: number; prompt: string; reference: string; observations?: string[] }>;
  }): Promise<Pick<StageReport, 'ok' | 'metrics' | 'problems'>>;
}

export interface StageContext {
  pool: SandboxPool;
  source: string;
  hash: string;
  options: ValidatorOptions;
  /** Fixes every seed the validator samples (recorded in the report, so the verdict can be replayed). */
  validationSeed: number;
  /** Instances the execution stage must sample besides its draws (a production incident's seed, level and response). */
  include?: Array<{ seed: number; level: number; responses?: string[] }>;
  novelty?: NoveltyIndex;
  reviewer?: Reviewer;
  load?: LoadInfo;
  /** The candidate's kind (kinds/registry.ts), decided by the static stage from its meta. */
  kind: EnvKind;
  meta?: Meta;
  /** Successful samples from the execution stage, ordered by level then seed. */
  episodes: Episode[];
  failures: EpisodeFailure[];
  /**
   * Per level: mean score of the most-common-answer and other-instance baselines (baselines.ts, from the hack stage's
   * report).
   */
  baselines: Map<number, { common: number; other: number }>;
  /** Episodic candidates: the reference rollouts (act) of the execution stage, ordered by level then seed. */
  rollouts?: Rollout[];
  /** Episodic candidates: per level, the probes' mean scores (from the hack stage), for the difficulty stage. */
  randomByLevel?: Map<number, number>;
  /** Set by the novelty stage; the library stores it with the environment. */
  fingerprint?: Fingerprint;
}

export type Stage = (ctx: StageContext) => Promise<Omit<StageReport, 'stage' | 'ms'>>;

/** Groups problems by code and keeps a few examples, so a report stays small whatever the count. */
export function summarise<T>(
  items: T[],
  code: (t: T) => string,
  max = 3,
): Map<string, { count: number; examples: T[] }> {
  const out = new Map<string, { count: number; examples: T[] }>();
  for (const item of items) {
    const key = code(item);
    const entry = out.get(key) ?? { count: 0, examples: [] };
    entry.count++;
    if (entry.examples.length < max) entry.examples.push(item);
    out.set(key, entry);
  }
  return out;
}

export function mean(values: number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}

export function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text;
}
