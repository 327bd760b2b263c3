// An instance's identity (env name, env version, seed, level) and its canonical JSON string: the ground
// truth every exported row carries and the reward service reads back, so trainers can regenerate it.

export interface Identity {
  env: string;
  version: number;
  seed: number;
  level: number;
}

/** `{"env":…,"version":…,"seed":…,"level":…}`, keys always in this order. */
export function identityString(id: Identity): string {
  return JSON.stringify({ env: id.env, version: id.version, seed: id.seed, level: id.level });
}
