// The bench scripts' command lines: `bench/run.js --help` prints its usage and runs and writes nothing, an
// unknown benchmark is refused before anything runs, and `golden.js --dump DIR` makes DIR (or says why not).
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { benchRequest } from '../bench/base.js';
import { goldenArgs, openDump } from '../bench/golden.js';
import { PACKAGE_ROOT } from '../contract/paths.js';

const run = promisify(execFile);
const RUN_JS = join(PACKAGE_ROOT, 'dist', 'bench', 'run.js');
const LATEST = join(PACKAGE_ROOT, 'bench', 'results', 'latest.json');
const stamp = () => (existsSync(LATEST) ? statSync(LATEST).mtimeMs : null);

describe('bench/run.js', () => {
  it('reads --help as a request for help, whatever else is named', () => {
    expect(benchRequest(['--help'], ['serve'])).toEqual({ help: true });
    expect(benchRequest(['serve', '-h'], ['serve'])).toEqual({ help: true });
    expect(benchRequest([], ['serve'])).toEqual({ help: false, names: [] });
    expect(benchRequest(['serve', '--base', '/tmp/b'], ['serve'])).toEqual({ help: false, names: ['serve'] });
  });

  it('refuses an unknown benchmark or option, and a --base without its directory, naming what is wrong', () => {
    expect(() => benchRequest(['serv'], ['serve', 'sandbox'])).toThrow(
      /unknown benchmark "serv": the benchmarks are serve, sandbox/,
    );
    expect(() => benchRequest(['--quick'], ['serve'])).toThrow(/unknown option or benchmark "--quick"/);
    expect(() => benchRequest(['serve', '--base'], ['serve'])).toThrow(/--base needs a directory/);
  });

  it('prints its usage for --help and writes no results; an unknown name exits 2 before a benchmark runs', async () => {
    const before = stamp();
    const help = await run(process.execPath, [RUN_JS, '--help']);
    expect(help.stdout).toMatch(/usage: node dist\/bench\/run.js/);
    expect(help.stdout).toMatch(/serveEpisodes/);
    expect(help.stderr).not.toMatch(/bench \w+ …|wrote/);
    const wrong = await run(process.execPath, [RUN_JS, 'nosuchbench']).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(wrong?.code).toBe(2);
    expect(wrong?.stderr).toMatch(/unknown benchmark "nosuchbench"/);
    expect(stamp()).toBe(before);
  });
});

describe('bench/golden.js', () => {
  it('reads its mode, file, --quick and --dump DIR, and refuses a --dump without a directory', () => {
    expect(goldenArgs(['compare', 'f.json', '--quick', '--dump', 'out'])).toEqual({
      mode: 'compare',
      file: 'f.json',
      quick: true,
      dump: 'out',
    });
    expect(goldenArgs(['write', 'f.json'])).toEqual({ mode: 'write', file: 'f.json', quick: false });
    expect(goldenArgs(['write', 'f.json', '--dump'])).toEqual({ error: '--dump needs a directory' });
    expect(goldenArgs(['read', 'f.json'])).toMatchObject({ error: expect.stringMatching(/write or compare/) });
    expect(goldenArgs(['write', 'f.json', '--quik'])).toEqual({ error: 'unknown argument "--quik"' });
    expect(goldenArgs(['--help'])).toEqual({ help: true });
  });

  it('makes a missing dump directory, parents included, and says so clearly when the path is a file', () => {
    const root = mkdtempSync(join(tmpdir(), 'envforge-golden-dump-'));
    const nested = join(root, 'a', 'b');
    expect(openDump(nested)).toBe(nested);
    expect(statSync(nested).isDirectory()).toBe(true);
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    expect(() => openDump(file)).toThrow(/--dump .*file: (cannot make that directory \(EEXIST\)|that is a file)/);
  });
});
