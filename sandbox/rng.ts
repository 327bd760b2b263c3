// Seed derivation for the environment rng: (env name, seed, level) -> xoshiro128** state. Trainers
// regenerate instances from that identity, so this scheme is versioned and never changes silently.
import { hash } from 'node:crypto';

/** Bump only together with a new tag below; old libraries pin the version their instances were made with. */
export const RNG_SCHEME = 'envforge-rng-v1';

export type RngState = readonly [number, number, number, number];

/**
 * state = the first 16 bytes of SHA-256("envforge-rng-v1\0" + name + "\0" + seed + "\0" + level), read as
 * four little-endian uint32 words (an all-zero state, which xoshiro cannot leave, becomes [1, 0, 0, 0]).
 */
export function deriveRngState(name: string, seed: number, level: number): RngState {
  return stateOf(`${RNG_SCHEME}\u0000${name}\u0000${seed}\u0000${level}`);
}

/**
 * The base of an episode's turn rngs (contract v2): the runtime mixes it with each turn number (episodic-runtime.js).
 */
export function deriveTurnRngState(name: string, seed: number, level: number): RngState {
  return stateOf(`${RNG_SCHEME}\u0000${name}\u0000${seed}\u0000${level}\u0000turns`);
}

function stateOf(text: string): RngState {
  const digest = hash('sha256', text, 'buffer'); // one-shot: no Hash object per call
  const words: [number, number, number, number] = [
    digest.readUInt32LE(0),
    digest.readUInt32LE(4),
    digest.readUInt32LE(8),
    digest.readUInt32LE(12),
  ];
  if (words.every((w) => w === 0)) words[0] = 1;
  return words;
}
