// What the agent is told before it acts: the tokens and numbers of the task's texts (the prompt, the description and
// the tools' descriptions), never the initial state, which no policy sees (redteam-s21e T5).
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { tokensOf } from './probes.js';
import { statedOf, type Given } from './shown-derivation.js';

/** The texts the agent is given: the prompt, the task's description and its tools' descriptions. */
export const textsOf = (r: Rollout, meta: EpisodicMeta | undefined): string[] => [
  r.prompt ?? '',
  meta?.description ?? '',
  ...(meta?.tools ?? []).map((t) => t.description),
];

/** The texts' tokens (lower-cased) and their numbers, each named by its words (shown-derivation.ts `statedOf`). */
export function toldOf(r: Rollout, meta: EpisodicMeta | undefined): { known: Set<string>; stated: Given[] } {
  const texts = textsOf(r, meta);
  return { known: new Set(texts.flatMap((t) => tokensOf(t)).map((t) => t.toLowerCase())), stated: statedOf(texts) };
}
