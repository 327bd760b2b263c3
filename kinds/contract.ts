// An environment kind: the small plug that says how one kind of environment differs from another (DESIGN:
// "one pipeline for both kinds"): its exports, how an episode runs, which hack probes apply, what its
// behaviour fingerprint reads and what an exported row shows. Stages, library, batch, exports and the
// service stay shared. registry.ts lists the kinds; tests/kind-contract.test.ts runs the contract on each.
import type { ProblemCode } from '../contract/codes.js';
import type { Instance, Meta } from '../contract/schema.js';
import type { Episode, EpisodeOptions, EpisodeRequest, EpisodeRun } from '../sandbox/episodes.js';
import type { SandboxPool } from '../sandbox/pool.js';

/** The hack-probe families the validator knows how to generate (validators/probes.ts). */
export const PROBE_FAMILIES = [
  'empty',
  'echo',
  'format-only',
  'stuffing',
  'enumeration',
  'huge',
  'malformed-list',
  'non-answer',
  'other-answer',
  'perturbed',
  'prompt-token',
  'prompt-formula',
  'reordered',
  'guess',
  'rendering',
  'restatement',
  'equivalent',
] as const;
/** The episodic hack probes (validators/episodic/probes.ts): action logs, not texts. */
export const EPISODIC_PROBE_FAMILIES = [
  'no-action',
  'invalid-actions',
  'incomplete',
  'other-episode',
  'repeated-action',
  'finish-alone',
  'random-policy',
  'prompt-replay',
  'shortcut',
  'perturbed',
  'tool-ablation',
  'prefix-finish',
  'repeat-finish',
  'repeat-reads',
  'blanket',
  'off-path',
  'typed-reference',
] as const;
export type EpisodicProbeFamily = (typeof EPISODIC_PROBE_FAMILIES)[number];
export type ProbeFamily = (typeof PROBE_FAMILIES)[number] | (typeof EPISODIC_PROBE_FAMILIES)[number];

/**
 * Every kind's canonical name, the one the code, specs, batch reports, stats and the CLI use (registry.ts lists the
 * plugs by it).
 */
export const KIND_NAMES = ['single', 'episodic', 'code'] as const;
export type KindName = (typeof KIND_NAMES)[number];

/** How much of the samples a reviewer prompt shows. */
export interface SampleLimits {
  samples: number;
  /** Each prompt and each single-turn reference is cut here. */
  chars: number;
  /** Each observation is cut here. */
  observationChars: number;
  /** An episodic sample's whole transcript (actions and observations) is cut here. */
  transcriptChars: number;
}

export interface EnvKind {
  /** The canonical name: 'single' (contract v1), 'episodic' (contract v2) or 'code' (contract v3). */
  readonly name: KindName;
  /**
   * What people read, and what the fixed interfaces show (module meta's kind, the reward service, the dashboard,
   * export reports, shim configs): 'single-turn', 'episodic', 'code'. The CLI and the contract accept it as an alias.
   */
  readonly label: string;
  /**
   * Whether a module whose raw meta reads like this is of this kind (v1 modules say nothing; v2 say kind: 'episodic').
   */
  claims(meta: unknown): boolean;
  /** The module's meta checked against this kind's contract: the parsed meta, or the problems with their codes. */
  checkMeta(raw: unknown): { meta?: Meta; problems: Array<{ code: ProblemCode; message: string }> };
  /** The exports a module of this kind must have, with their types. */
  readonly exports: Readonly<Record<string, 'object' | 'function'>>;
  /** One episode per request, in the sandbox, with the scores of the reference and the given responses. */
  runEpisodes(
    pool: SandboxPool,
    source: string,
    requests: EpisodeRequest[],
    options?: EpisodeOptions,
  ): Promise<EpisodeRun>;
  /** The hack-probe families that apply to this kind. */
  readonly probeFamilies: readonly ProbeFamily[];
  /** What the behaviour fingerprint reads of an episode: the text the policy sees, and the reference response. */
  behaviour(episode: Episode): { text: string; reference: string };
  /** How a message names the kind and its contract, e.g. 'episodic (contract v2: reset, step, score, act)'. */
  readonly contract: string;
  /**
   * Whether an episode is a multi-step rollout through tools (contract v2): samples, the dashboard, exports and
   * the reward service show and score such a kind's episodes as rollouts, not as one prompt and one response.
   */
  readonly rollouts: boolean;
  /** The environment contract's version the kind implements (docs/contract.md quotes its section to authors). */
  readonly contractVersion: 1 | 2 | 3;
  /** What the architect is told when a batch asks for this kind alone. */
  readonly architectAsk: string;
  /** Whether trainer exports and the reward service carry this kind yet (episodic: a later issue). */
  readonly exportable: boolean;
  /**
   * Whether the host, not a module's verify, scores a response (code: the policy's program runs in the answer
   * pool): the reward service then scores through runEpisodes instead of the sandbox's episode call.
   */
  readonly hostScored?: boolean;
  /** What an exported row shows the policy of an instance. */
  exportView(instance: Instance): { prompt: string };
  /** The kind's prompt templates (prompts/<name>.md; agents/prompt-files.ts PROMPT_NAMES lists them). */
  readonly prompts: { readonly generator: string; readonly repair: string; readonly reviewer: string };
  /**
   * Output tokens an architect reply may spend per spec of this kind (observed: ~550 per episodic spec, ~250 per
   * single-turn one).
   */
  readonly architectTokens: number;
  /** What a reviewer prompt shows of the samples, per prompt profile: the compact one fewer and shorter. */
  readonly sampleLimits: { readonly standard: SampleLimits; readonly compact: SampleLimits };
  /**
   * The kind's hand-written seeds (few-shot examples); `library`: a new library starts with them; `slow`: they take
   * about a minute to validate.
   */
  readonly seeds: { readonly dir: string; readonly library: boolean; readonly slow: boolean };
  /** Whether `--kind mixed` shares the batch's target with this kind (code is asked for by name). */
  readonly mixed: boolean;
}
