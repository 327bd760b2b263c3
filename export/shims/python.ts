// Small helpers for generating Python: string literals, class names, identifiers a shim may define, and the
// episodic environments of an export.
import type { ShimEnv } from '../contract.js';

/** A Python string literal (JSON strings are valid Python literals). */
export function pyString(text: string): string {
  return JSON.stringify(text);
}

/** `check_in` or `library-loans` as a CamelCase class name: `CheckIn`, `LibraryLoans`. */
export function className(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** Python's keywords (3.12, soft keywords included): no method or parameter may take these names. */
const KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case type _'.split(' '),
);

/** Whether a name can be a Python identifier that a generated shim defines (a method, a keyword argument). */
export function isPyName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name);
}

export type EpisodicShimEnv = ShimEnv & { episodic: NonNullable<ShimEnv['episodic']> };

export function episodicEnvs(envs: readonly ShimEnv[]): EpisodicShimEnv[] {
  return envs.filter((env): env is EpisodicShimEnv => env.episodic !== undefined);
}

/** A Python docstring body: backslashes and triple quotes cannot end or break it. */
export function pyDoc(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"""/g, '\\"\\"\\"');
}
