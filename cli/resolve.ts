// Turns a FILE|NAME argument into environment source: a path on disk, or the name of a seed.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { UsageError } from '../contract/errors.js';
import { listSeeds } from '../library/seeds.js';

export interface ResolvedEnv {
  label: string;
  source: string;
}

export function readEnvFile(path: string): ResolvedEnv {
  if (!existsSync(path)) throw new UsageError(`no such file: ${path}`);
  if (!statSync(path).isFile()) throw new UsageError(`not a file: ${path}`);
  try {
    return { label: path, source: readFileSync(path, 'utf8') };
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

export function resolveEnv(target: string): ResolvedEnv {
  if (existsSync(target) || /[/\\]|\.m?js$/.test(target)) return readEnvFile(target);
  const seed = listSeeds().find((s) => s.name === target);
  if (seed) return { label: seed.name, source: seed.source };
  const names = listSeeds().map((s) => s.name).join(', ');
  throw new UsageError(`unknown environment "${target}": not a file, and not a seed (${names})`);
}
