// The envforge executable under a Node older than 24 says what it needs in one line and exits 1, before it loads a
// native addon (which would crash that Node): with the machine's own older node where there is one, and always
// with a Node that reports an older version.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MAIN } from './helpers/cli.js';

const run = (node: string, args: string[]) =>
  promisify(execFile)(node, args, { timeout: 30_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
const SYSTEM_NODE = '/usr/bin/node';
const systemMajor = existsSync(SYSTEM_NODE)
  ? Number((await run(SYSTEM_NODE, ['-p', 'process.versions.node'])).stdout.split('.')[0])
  : null;

describe('envforge under a Node older than 24', () => {
  it('a Node that reports 20.1.0: one line naming the version it needs, exit 1, nothing loaded', async () => {
    const fake = "Object.defineProperty(process.versions, 'node', { value: '20.1.0' })";
    const out = await run(process.execPath, [
      '--import',
      `data:text/javascript,${encodeURIComponent(fake)}`,
      MAIN,
      'library',
      'list',
    ]);
    expect(out.code).toBe(1);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(
      new RegExp(
        String.raw`^envforge needs Node\.js 24 or newer, and this is Node 20\.1\.0 \(.*\): install Node 24, or ` +
          'in a clone run `source \\.ci\\/node24\\.sh`\\.\\n$',
      ),
    );
  });

  it.skipIf(systemMajor === null || systemMajor >= 24)(
    `the machine's own ${SYSTEM_NODE} (Node ${systemMajor ?? 'absent'}): the same line instead ` +
      `of a crash in isolated-vm`,
    async () => {
      const out = await run(SYSTEM_NODE, [MAIN, '--help']);
      expect([out.code, out.stdout]).toEqual([1, '']);
      expect(out.stderr.split('\n')).toEqual([
        expect.stringMatching(new RegExp(`^envforge needs Node\\.js 24 or newer, and this is Node ${systemMajor}\\.`)),
        '',
      ]);
    },
  );
});
