// Every environment kind, in one place: the validator, the library and exports find a module's kind here,
// and tests/kind-contract.test.ts runs the kind contract on each one listed. Issue 17 registers 'episodic'.
import type { EnvKind } from './contract.js';
import { singleTurn } from './single-turn.js';

export const KINDS = { 'single-turn': singleTurn } as const satisfies Record<string, EnvKind>;
export type KindName = keyof typeof KINDS;

/** The kind a module's raw meta claims; single-turn when none does (it then fails that kind's checks). */
export function kindOf(meta: unknown): EnvKind {
  return Object.values(KINDS).find((kind: EnvKind) => kind.claims(meta)) ?? singleTurn;
}
