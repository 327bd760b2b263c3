// Loads the guest runtime (guest-runtime.js) and SES as text: the scripts installed in every isolate, and
// the same rng and kit for plain Node, where benchmarks and tests need the identical behaviour.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const RUNTIME_SOURCE = [
  'guest-runtime.js',
  'episodic-actions.js',
  'episodic-text.js',
  'episodic-runtime.js',
  'tripwires.js',
]
  .map((file) => readFileSync(new URL(`./${file}`, import.meta.url), 'utf8'))
  .join('\n');

/** SES (Hardened JavaScript, package `ses`) as one classic script that defines `lockdown` and `harden`. */
export const SES_SOURCE = readFileSync(
  join(dirname(createRequire(import.meta.url).resolve('ses/package.json')), 'dist', 'ses.umd.min.js'),
  'utf8',
);

/**
 * lockdown() as every isolate runs it. errorTaming 'safe' hides stack traces from guest code (a module
 * must not learn who calls it); overrideTaming 'moderate' keeps ordinary code such as `obj.toString = f`
 * working on objects that inherit frozen methods; consoleTaming 'unsafe' because an isolate has no console;
 * evalTaming 'no-eval' because eval and Function could declare global lexical bindings, which outlive instances.
 */
const LOCKDOWN_OPTIONS = {
  errorTaming: 'safe',
  overrideTaming: 'moderate',
  consoleTaming: 'unsafe',
  evalTaming: 'no-eval',
  stackFiltering: 'concise',
  domainTaming: 'unsafe',
  reporting: 'none',
} as const;

/**
 * The script run in a fresh context after SES: tames the realm, locks it down (arming the tripwires between
 * SES's repairs and its hardening, while the function prototypes still take them), installs the runtime, and
 * evaluates to the trampoline api. Nothing global names the api: the host keeps it as a Reference.
 */
export const SETUP_SCRIPT = `(function () {
${RUNTIME_SOURCE}
envforgePrepareRealm(globalThis);
repairIntrinsics(${JSON.stringify(LOCKDOWN_OPTIONS)});
var tripwires = envforgeArmTripwires(globalThis);
hardenIntrinsics();
return envforgeInstallRuntime(globalThis, { hardened: true, tripwires: tripwires }).api;
})()`;

export interface PlainRng {
  float(): number;
  int(lo: number, hi: number): number;
  pick<T>(array: readonly T[]): T;
  shuffle<T>(array: readonly T[]): T[];
}
export interface Kit {
  answer(response: string): string | null;
  normalize(text: string): string;
  int(text: string): number | null;
  number(text: string): number | null;
  list(text: string, separator?: string): string[];
}
/** The episodic runtime's host-visible helpers (episodic-runtime.js). */
export interface EpisodicRuntime {
  checkAction(tools: unknown, action: unknown): string | null;
  /**
   * The check, and the call as step sees it: `{ tool, args }` with keys sorted at every depth (the action itself where
   * the check refuses it).
   */
  normaliseAction(tools: unknown, action: unknown): { problem: string | null; action: unknown };
  canonical(value: unknown): string;
  /**
   * canonical() of the value a JSON text holds (the text as JSON.stringify writes it), without canonical()'s walk where
   * keys allow.
   */
  canonicalText(text: string): string;
  /** Turn `turn`'s rng from the base the worker derives (rng.ts: deriveTurnRngState). */
  turnRng(base: readonly number[], turn: number): PlainRng;
}
export interface PlainRuntime {
  episodic: EpisodicRuntime;
  makeRng(a: number, b: number, c: number, d: number): PlainRng;
  kit: Kit;
  disabledRandom(): never;
}

/** The runtime evaluated in this process without lock-down: for baselines and tests only, never for guests. */
export function loadPlainRuntime(): PlainRuntime {
  const install = new Function(`${RUNTIME_SOURCE}; return envforgeInstallRuntime;`)() as (
    g: unknown,
    o: unknown,
  ) => PlainRuntime;
  return install(globalThis, { hardened: false });
}
