// Hostile variants of a seed environment for tests: one exported function is renamed to honestX and a
// replacement with the same name wraps it, so the rest of the module stays a valid, admitted environment.
import { listSeeds } from '../../library/seeds.js';

export interface SeedPatch {
  /** Code placed before the module (module-level state, tables). */
  prelude?: string;
  /**
   * Bodies of the replacements; they may call honestGenerate(rng, level), honestSolve(instance), honestVerify(instance,
   * response).
   */
  generate?: string;
  solve?: string;
  verify?: string;
}

const PARAMS = { generate: 'rng, level', solve: 'instance', verify: 'instance, response' } as const;

export function patchedSeed(name: string, patch: SeedPatch): string {
  const seed = listSeeds().find((s) => s.name === name);
  if (!seed) throw new Error(`no seed named ${name}`);
  let source = seed.source;
  const extra: string[] = [];
  for (const fn of ['generate', 'solve', 'verify'] as const) {
    const body = patch[fn];
    if (body === undefined) continue;
    const honest = `honest${fn[0]?.toUpperCase()}${fn.slice(1)}`;
    if (!source.includes(`export function ${fn}(`)) throw new Error(`${name} has no "export function ${fn}("`);
    source = source.replace(`export function ${fn}(`, `function ${honest}(`);
    extra.push(`export function ${fn}(${PARAMS[fn]}) {\n${body}\n}`);
  }
  return [patch.prelude ?? '', source, ...extra].join('\n');
}
