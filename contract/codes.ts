// Every stable problem code envforge reports, with its one-line meaning: the single place the sandbox,
// the validator, the repair prompt and the dashboard read them from.

export const CODES = {
  // Sandbox: what running untrusted code can go wrong with.
  E_SYNTAX: 'the module does not compile as JavaScript',
  E_IMPORT: 'the module imports something; environments must be self-contained',
  E_TAMPER: 'the module interfered with the envforge runtime (for example by calling its trampoline)',
  E_ASYNC: 'the module or one of its functions is asynchronous (top-level await or a returned Promise)',
  E_MISSING_EXPORT: 'a required export (meta, generate, solve, verify) is missing or not a function',
  E_THROWN: 'the environment code threw an error',
  E_TIMEOUT: 'the environment code ran past its wall-clock budget',
  E_MEMORY: 'the environment code exceeded its memory limit',
  E_CRASHED: 'the sandbox worker process died while running the environment code',
  E_NOT_JSON: 'a returned value is not plain JSON data (function, undefined, NaN, BigInt, cycle, class instance…)',
  E_TOO_LARGE: 'a returned value or the source is larger or deeper than the limits allow',
  E_PROTOCOL: 'the sandbox returned malformed output (a tampered trampoline or an internal fault)',
  // Contract: what the environment's own values must look like.
  E_META: 'meta is missing or does not match the contract',
  E_INSTANCE: 'generate returned an instance that does not match the contract',
  E_REFERENCE: 'solve returned something other than a non-empty string',
  E_SCORE: 'verify returned something other than a number in [0, 1] or { score, feedback }',
} as const satisfies Record<string, string>;

export type Code = keyof typeof CODES;

export function isCode(value: unknown): value is Code {
  return typeof value === 'string' && Object.hasOwn(CODES, value);
}
