// The processes that host isolates (sandbox and answer workers) start with ISOLATE_HOST_FLAGS
// (sandbox/worker-script.ts): only then does V8 take the SES code cache (sandbox/realm.ts) instead of compiling
// SES's functions in every new isolate.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { AnswerPool } from '../sandbox/code/answer-pool.js';
import { ISOLATE_HOST_FLAGS } from '../sandbox/worker-script.js';

const REALM = new URL('../sandbox/realm.ts', import.meta.url).href;

/** The command lines of this process's children, as /proc shows them. */
function childCommands(): string[][] {
  return readdirSync('/proc').flatMap((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) return [];
      return [readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')];
    } catch {
      return []; // ended meanwhile, or not a process
    }
  });
}

describe('a process that hosts isolates', () => {
  it('compiles SES from the code cache when started with ISOLATE_HOST_FLAGS', () => {
    const script =
      `const m = await import(${JSON.stringify(REALM)}); m.warmSetup();` + 'console.log(m.newHost(64).cached);';
    const out = execFileSync(
      process.execPath,
      [...ISOLATE_HOST_FLAGS, '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(out.trim()).toBe('true');
  });

  const answers = new AnswerPool({ workers: 1 });
  afterAll(() => answers.close());
  it('is started so by the answer pool', async () => {
    const spec = {
      program: 'function f(x) { return x; }',
      language: 'javascript' as const,
      entry: 'f',
      compare: 'exact' as const,
      tests: [['[1]', '1'] as [string, string]],
    };
    expect((await answers.run([spec]))[0]?.tests).toEqual([null]);
    const workers = childCommands().filter((argv) => argv.some((a) => a.includes('answer-worker')));
    expect(workers.length).toBeGreaterThan(0);
    for (const argv of workers) expect(argv).toEqual(expect.arrayContaining([...ISOLATE_HOST_FLAGS]));
  });
});
