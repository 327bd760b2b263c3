// Red team rtv (around the sandbox): hostile files on the operator's disk, read by the real binary. Each test
// named by an id is a finding of tests/fixtures/redteam-rtv/FINDINGS.md (closed: its fix is there), with
// variants of the same class written another way; each `held:` test is an attack that held.
import { execFile, spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashSource } from '../contract/hash.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { MAIN } from './helpers/cli.js';
import { fakeAdmission, sampleMeta, sampleSource } from './helpers/library-fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'envforge-rtv-files-'));
/** A secret of the kind a token file holds: one identifier, so a module evaluation's ReferenceError names it whole. */
const SECRET = 'ghp_rtvSecretTokenValue0123456789abcdef';

/** The real binary with a deadline: killed (code null) when it hangs. */
function envforge(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; out: string; killed: boolean }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [MAIN, ...args],
      { timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 2 ** 20 },
      (error, stdout, stderr) => {
        const e = error as (Error & { code?: number | string; killed?: boolean; signal?: string }) | null;
        resolve({
          code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
          out: `${stdout}${stderr}`,
          killed: e?.signal === 'SIGKILL',
        });
      },
    );
  });
}

describe('rtv-5: a module path whose directory is a symbolic link', () => {
  const dir = mkdtempSync(join(root, 'paths-'));
  const secrets = join(dir, 'secrets');
  mkdirSync(secrets);
  writeFileSync(join(secrets, 'token'), `${SECRET}\n`);
  // A folder the operator was handed ("the candidates"), which is a link to a folder of theirs.
  symlinkSync(secrets, join(dir, 'candidates'));

  it('rtv-5: validate refuses a path through a symbolic link, as it refuses a link to the file itself', async () => {
    const run = await envforge(['validate', join(dir, 'candidates', 'token')]);
    expect(run.out).not.toContain(SECRET);
    expect(run.code).toBe(2);
  });

  it("rtv-5: a file declaring none of the contract's exports is never run, so no error names its text", async () => {
    // Hard links are regular files: no path check can see one. The text must not be run to be judged.
    linkSync(join(secrets, 'token'), join(dir, 'hard-link.js'));
    const run = await envforge(['validate', join(dir, 'hard-link.js')]);
    expect(run.out).not.toContain(SECRET);
  });

  it('rtv-5 (another command): sample refuses the same path through the linked folder, naming the link', async () => {
    const run = await envforge(['sample', join(dir, 'candidates', 'token')]);
    expect([run.code, run.out]).toEqual([2, expect.stringContaining(`the symbolic link ${join(dir, 'candidates')}`)]);
    expect(run.out).not.toContain(SECRET);
  });

  it(
    "rtv-5 (another text): a file that exports something, but not an environment's entry points, " +
      'is not evaluated either',
    async () => {
      const file = join(dir, 'exports-other.js');
      writeFileSync(file, `export const token = ${SECRET};\n`);
      const run = await envforge(['validate', file]);
      expect(run.out).toMatch(/E_MISSING_EXPORT/);
      expect(run.out).not.toContain(SECRET);
    },
  );

  it('held: a link as the last component is refused before anything is read', async () => {
    symlinkSync(join(secrets, 'token'), join(dir, 'direct.js'));
    const run = await envforge(['validate', join(dir, 'direct.js')]);
    expect([run.code, run.out]).toEqual([2, expect.stringMatching(/symbolic link/)]);
    expect(run.out).not.toContain(SECRET);
  });
});

describe("rtv-6: a library folder's module file that is not a regular file", () => {
  /**
   * A library holding one environment whose module file was swapped for a named pipe (or, with `link`, a link to it).
   */
  async function libraryWithFifo(link?: string): Promise<string> {
    const dir = join(mkdtempSync(join(root, 'lib-')), 'lib');
    const meta = sampleMeta('plus-one');
    const source = sampleSource(meta);
    const library = SqliteLibrary.open(dir, { create: true });
    await library.admit(fakeAdmission(source, meta));
    await library.close();
    const file = join(dir, 'envs', `${hashSource(source)}.js`);
    rmSync(file);
    if (link !== undefined) symlinkSync(link, file);
    else expect(spawnSync('mkfifo', [file]).status).toBe(0);
    return dir;
  }

  it('rtv-6: a command that reads a library whose module file is a named pipe fails with an ' +
    'error instead of hanging', async () => {
    const dir = await libraryWithFifo();
    // readFileSync on a FIFO blocks the event loop until a writer comes: in serve, every client waits with it.
    const run = await envforge(['sample', 'plus-one', '--library', dir, '-n', '1'], 20_000);
    expect(run.killed).toBe(false);
    expect(run.code).not.toBe(0);
    expect(run.out).toMatch(/named pipe/);
  }, 40_000);

  it('rtv-6 (another file): a module file that is a link to /dev/zero is refused, not read without end', async () => {
    const dir = await libraryWithFifo('/dev/zero');
    const run = await envforge(['sample', 'plus-one', '--library', dir, '-n', '1'], 20_000);
    expect(run.killed).toBe(false);
    expect([run.code, run.out]).toEqual([1, expect.stringMatching(/symbolic link/)]);
  }, 40_000);
});
