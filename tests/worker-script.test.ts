// sandbox/worker-script.ts: a built host starts the .js beside it; sources start the .ts through tsx, or the build's
// .js when ENVFORGE_BUILT_WORKERS=1 and that file exists.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { workerScript } from '../sandbox/worker-script.js';

const ROOT = new URL('../', import.meta.url);
const saved = process.env.ENVFORGE_BUILT_WORKERS;
afterEach(() => {
  if (saved === undefined) delete process.env.ENVFORGE_BUILT_WORKERS;
  else process.env.ENVFORGE_BUILT_WORKERS = saved;
});

describe('workerScript', () => {
  it('starts the .js beside a built module with no extra flags', () => {
    const w = workerScript(new URL('dist/sandbox/pool.js', ROOT).href, 'worker');
    expect(w.file.endsWith('/dist/sandbox/worker.js')).toBe(true);
    expect(w.execArgv).toEqual([]);
  });
  it('starts the .ts through tsx from sources unless the build is named', () => {
    delete process.env.ENVFORGE_BUILT_WORKERS;
    const w = workerScript(new URL('sandbox/code/answer-pool.ts', ROOT).href, 'answer-worker');
    expect(w.file.endsWith('/sandbox/code/answer-worker.ts')).toBe(true);
    expect(w.execArgv).toEqual(['--import', 'tsx']);
  });
  const BUILT = existsSync(new URL('dist/sandbox/worker.js', ROOT));
  it.skipIf(!BUILT)(
    "starts the build's .js from sources when ENVFORGE_BUILT_WORKERS=1 and it exists, else the .ts",
    () => {
      process.env.ENVFORGE_BUILT_WORKERS = '1';
      const missing = workerScript(new URL('sandbox/no-such-module.ts', ROOT).href, 'no-such-worker');
      expect(missing).toEqual({
        file: expect.stringMatching(/\/sandbox\/no-such-worker\.ts$/),
        execArgv: ['--import', 'tsx'],
      });
      const built = workerScript(new URL('sandbox/supervised-worker.ts', ROOT).href, 'worker');
      expect(built.file.endsWith('/dist/sandbox/worker.js')).toBe(true);
      expect(built.execArgv).toEqual([]);
    },
  );
});
