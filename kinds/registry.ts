// Every environment kind, in one place: the validator, the library and exports find a module's kind here,
// and tests/kind-contract.test.ts runs the kind contract on each one listed. 
import type { EnvKind } from './contract.js';
import { code } from './code.js';
import { episodic } from './episodic.js';
import { singleTurn } from './single-turn.js';

export const KINDS = { 'single-turn': singleTurn, episodic, code } as const satisfies Record<string, EnvKind>;
export type KindName = keyof typeof KINDS;

/** The kind a module's raw meta claims; single-turn when none does (it then fails that kind's checks). */
export function kindOf(meta: unknown): EnvKind {
  return Object.values(KINDS).find((kind: EnvKind) => kind.claims(meta)) ?? singleTurn;
}

/** The kind of a loaded module: by its meta, or, when meta could not be read, by the exports it has. */
export function kindOfModule(meta: unknown, exports: Readonly<Record<string, string>>): EnvKind {
  if (meta !== undefined) return kindOf(meta);
  const has = (kind: EnvKind) => Object.keys(kind.exports).every((name) => name === 'meta' || exports[name] === 'function');
  return Object.values(KINDS).find((kind: EnvKind) => has(kind)) ?? singleTurn;
}

/** The kind specs, authors and batch reports call by its short name ('single', 'episodic', 'code'); single-turn when none is named. */
export function kindByShort(short: EnvKind['short'] | undefined): EnvKind {
  return Object.values(KINDS).find((kind: EnvKind) => kind.short === short) ?? singleTurn;
}

/** The kind and its contract with its article, for messages: 'an episodic (contract v2: …)'. */
export const describeKind = (kind: EnvKind): string => `${/^[aeiou]/i.test(kind.contract) ? 'an' : 'a'} ${kind.contract}`;
