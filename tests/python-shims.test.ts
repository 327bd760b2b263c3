// The Python an export ships (export/python/*.py) compiles and passes its unit tests (tests/python/) under the
// machine's python3 with the standard library only, as CI runs them with Debian's python3.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { PYTHON_DIR } from '../export/python-files.js';
import { PYTHON } from './helpers/python.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = (args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(PYTHON, args, {
    cwd: ROOT,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
    timeout: 120_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      output: error.stdout + error.stderr,
    }),
  );

describe(`the exported Python shims under ${PYTHON}`, () => {
  const shims = readdirSync(PYTHON_DIR).filter((f) => f.endsWith('.py'));

  it('are all there, and every one compiles', async () => {
    expect(shims.sort()).toEqual([
      'agent_func.py',
      'compute_score.py',
      'envforge_client.py',
      'envforge_verl.py',
      'environment.py',
      'reward.py',
    ]);
    const compiled = await run([
      '-c',
      'import sys\nfor f in sys.argv[1:]: compile(open(f, encoding="utf-8").read(), f, "exec")',
      ...shims.map((f) => join(PYTHON_DIR, f)),
    ]);
    expect(compiled).toEqual({ code: 0, output: '' });
  });

  it('pass their unit tests', { timeout: 150_000 }, async () => {
    const tests = await run(['-m', 'unittest', 'discover', '-s', 'tests/python', '-t', 'tests/python'], {
      PYTHONPATH: join(ROOT, 'tests/fixtures/trainer-stand-ins'),
    });
    // A test that needs transformers is skipped where it is missing (CI's Debian python3), and says so on stderr.
    expect(tests.output).toMatch(/\nOK( \(skipped=\d+\))?\n$/);
    expect(tests.code).toBe(0);
  });
});
