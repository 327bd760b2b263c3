// An environment kind: the small plug that says how one kind of environment differs from another (DESIGN:
// "one pipeline for both kinds"): its exports, how an episode runs, which hack probes apply, what its
// behaviour fingerprint reads and what an exported row shows. Stages, library, batch, exports and the
// service stay shared. registry.ts lists the kinds; tests/kind-contract.test.ts runs the contract on each.
import type { Instance } from '../contract/schema.js';
import type { Episode, EpisodeOptions, EpisodeRequest, EpisodeRun } from '../sandbox/episodes.js';
import type { SandboxPool } from '../sandbox/pool.js';

/** The hack-probe families the validator knows how to generate (validators/probes.ts). */
export const PROBE_FAMILIES = ['empty', 'echo', 'format-only', 'stuffing', 'enumeration', 'huge', 'malformed-list', 'non-answer', 'other-answer', 'perturbed', 'prompt-token', 'reordered'] as const;
export type ProbeFamily = (typeof PROBE_FAMILIES)[number];

export interface EnvKind {
  /** 'single-turn' (contract v1); 'episodic' (contract v2) joins in issue 17. */
  readonly name: string;
  /** Whether a module whose raw meta reads like this is of this kind (v1 modules say nothing; v2 say kind: 'episodic'). */
  claims(meta: unknown): boolean;
  /** The exports a module of this kind must have, with their types. */
  readonly exports: Readonly<Record<string, 'object' | 'function'>>;
  /** One episode per request, in the sandbox, with the scores of the reference and the given responses. */
  runEpisodes(pool: SandboxPool, source: string, requests: EpisodeRequest[], options?: EpisodeOptions): Promise<EpisodeRun>;
  /** The hack-probe families that apply to this kind. */
  readonly probeFamilies: readonly ProbeFamily[];
  /** What the behaviour fingerprint reads of an episode: the text the policy sees, and the reference response. */
  behaviour(episode: Episode): { text: string; reference: string };
  /** What an exported row shows the policy of an instance. */
  exportView(instance: Instance): { prompt: string };
}
