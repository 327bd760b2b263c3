// Where a worker process's script is and how Node must start it: the compiled `.js` beside a built host; from
// TypeScript sources (tests) the `.ts` through tsx, or the fresh build's `.js` when ENVFORGE_BUILT_WORKERS=1 says
// dist/ was built from these very sources (`npm test` builds first): a worker started from dist costs a third.
import { existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * How Node starts a process that hosts isolates (sandbox and answer workers): without Node's startup snapshot, which
 * isolated-vm asks for, and only with which V8 accepts realm.ts's SES code cache (with the snapshot it is rejected,
 * and every new isolate compiles SES's functions again: about 25 ms of CPU each).
 */
export const ISOLATE_HOST_FLAGS: readonly string[] = ['--no-node-snapshot'];

/** The script `name` (no extension) beside the module at `moduleUrl`, and the flags Node needs to run it. */
export function workerScript(moduleUrl: string, name: string): { file: string; execArgv: string[] } {
  const file = fileURLToPath(new URL(`./${name}.js`, moduleUrl));
  if (!moduleUrl.endsWith('.ts')) return { file, execArgv: [] };
  const built = `${ROOT}dist/${relative(ROOT, file)}`;
  if (process.env.ENVFORGE_BUILT_WORKERS === '1' && existsSync(built)) return { file: built, execArgv: [] };
  return { file: file.replace(/\.js$/, '.ts'), execArgv: ['--import', 'tsx'] };
}
