// Every environment kind, in one place: the validator, the library and exports find a module's kind here,
// and tests/kind-contract.test.ts runs the kind contract on each one listed.
import { KIND_NAMES, type EnvKind, type KindName } from './contract.js';
import { code } from './code.js';
import { episodic } from './episodic.js';
import { singleTurn } from './single-turn.js';

/** The plugs by their canonical names (kinds/contract.ts KIND_NAMES, in that order). */
export const KINDS = { single: singleTurn, episodic, code } as const satisfies Record<KindName, EnvKind>;
export { KIND_NAMES, type KindName };

/** Every plug, in KIND_NAMES order: the rest of the code iterates this rather than naming kinds. */
export const ALL_KINDS: readonly EnvKind[] = KIND_NAMES.map((name) => KINDS[name]);

/** The kind a module's raw meta claims; single-turn when none does (it then fails that kind's checks). */
export function kindOf(meta: unknown): EnvKind {
  return ALL_KINDS.find((kind: EnvKind) => kind.claims(meta)) ?? singleTurn;
}

/** The kind of a loaded module: by its meta, or, when meta could not be read, by the exports it has. */
export function kindOfModule(meta: unknown, exports: Readonly<Record<string, string>>): EnvKind {
  if (meta !== undefined) return kindOf(meta);
  const has = (kind: EnvKind) =>
    Object.keys(kind.exports).every((name) => name === 'meta' || exports[name] === 'function');
  return ALL_KINDS.find((kind: EnvKind) => has(kind)) ?? singleTurn;
}

/** The kind of a canonical name ('single', 'episodic', 'code'); single-turn when none is named. */
export function kindNamed(name: KindName | undefined): EnvKind {
  return ALL_KINDS.find((kind: EnvKind) => kind.name === name) ?? singleTurn;
}

/**
 * A kind's canonical name from what a user or a contract wrote: the name, or its label as an alias
 * ('single-turn' for 'single'); undefined for neither. Only the CLI and contract boundaries call this.
 */
export function canonicalKind(text: string): KindName | undefined {
  return ALL_KINDS.find((kind) => kind.name === text || kind.label === text)?.name;
}

/** An empty count per kind, keyed by canonical name, for tallies that show every kind. */
export const countsPerKind = <T>(make: (kind: EnvKind) => T): Record<KindName, T> =>
  Object.fromEntries(ALL_KINDS.map((kind) => [kind.name, make(kind)])) as Record<KindName, T>;

/** The kind and its contract with its article, for messages: 'an episodic (contract v2: …)'. */
export const describeKind = (kind: EnvKind): string =>
  `${/^[aeiou]/i.test(kind.contract) ? 'an' : 'a'} ${kind.contract}`;
