// Loads the guest runtime (guest-runtime.js) as text: the setup script installed in every isolate, and
// the same rng and kit for plain Node, where benchmarks and tests need the identical behaviour.
import { readFileSync } from 'node:fs';

export const RUNTIME_SOURCE = readFileSync(new URL('./guest-runtime.js', import.meta.url), 'utf8');

/** The script run in a fresh context before any guest code: installs `kit` and the trampoline. */
export const SETUP_SCRIPT = `(function () {
${RUNTIME_SOURCE}
var rt = envforgeInstallRuntime(globalThis, {});
Object.defineProperty(globalThis, 'kit', { value: rt.kit, writable: false, configurable: false, enumerable: false });
Object.defineProperty(globalThis, '__envforge', { value: rt.api, writable: false, configurable: false, enumerable: false });
})();`;

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
export interface PlainRuntime {
  makeRng(a: number, b: number, c: number, d: number): PlainRng;
  kit: Kit;
  disabledRandom(): never;
}

/** The runtime evaluated in this process without lock-down: for baselines and tests only, never for guests. */
export function loadPlainRuntime(): PlainRuntime {
  const install = new Function(`${RUNTIME_SOURCE}; return envforgeInstallRuntime;`)() as (g: unknown, o: unknown) => PlainRuntime;
  return install(globalThis, { lockdown: false });
}
