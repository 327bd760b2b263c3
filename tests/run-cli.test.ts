// `envforge run` through the real binary and the real openai SDK against a fake OpenAI-compatible server
// on 127.0.0.1: no LLM is a clear exit 2; a batch admits and reports; a batch killed with SIGKILL mid-run
// and resumed admits the same set as an uninterrupted run, with no spend recorded twice.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WireRequest } from '../agents/llm/contract.js';
import { seedLibrary } from '../library/maintenance.js';
import { SqliteLibrary } from '../library/sqlite.js';
import { SandboxPool } from '../sandbox/pool.js';
import { alwaysOne, batchScript, fixture, spec } from './helpers/batch-script.js';
import { MAIN } from './helpers/cli.js';
import { startFakeOpenAi, type FakeOpenAiServer } from './helpers/fake-openai.js';

const root = mkdtempSync(join(tmpdir(), 'envforge-run-'));
const seeded = join(root, 'seeded');
let server: FakeOpenAiServer;
const marked = (name: string, source: string) => `// spec-marker:${name}\n${source}`;
const { script } = batchScript({
  specs: [spec('roman-total'), spec('coin-ways'), spec('never-fixed')],
  modules: {
    'roman-total': [fixture('good-roman-sum.js')],
    'coin-ways': [marked('coin-ways', alwaysOne(fixture('good-coin-change-ways.js'))), fixture('good-coin-change-ways.js')],
    'never-fixed': [marked('never-fixed', alwaysOne(fixture('good-gcd-pair-sum.js')))],
  },
});
// The server sees OpenAI request bodies; the script reads the same messages and the schema name.
const adapt = (body: { messages: Array<{ role: string; content: string }>; response_format?: { json_schema?: { name: string } } }) =>
  script({ messages: body.messages.filter((m) => m.role !== 'system') as WireRequest['messages'], maxTokens: 0, ...(body.response_format?.json_schema ? { schema: { name: body.response_format.json_schema.name, jsonSchema: {}, strict: true } } : {}) });

beforeAll(async () => {
  const pool = new SandboxPool();
  const library = SqliteLibrary.open(seeded, { create: true });
  await seedLibrary(library, pool);
  await library.close();
  await pool.close();
  server = await startFakeOpenAi({ script: adapt });
});
afterAll(() => server?.close());

const cleanEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC|ENVFORGE)_/.test(k)));

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}
function envforge(args: string[], cwd: string, onStderr?: (line: string, kill: () => void) => void): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => {
      stderr += d;
      for (const line of String(d).split('\n')) if (line) onStderr?.(line, () => child.kill('SIGKILL'));
    });
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
const libraryCopy = (name: string) => {
  const dir = join(root, name);
  cpSync(seeded, dir, { recursive: true });
  return dir;
};
const runArgs = (library: string) => ['run', '--base-url', server.baseUrl, '--model', 'fake-model', '--target', '10', '--max-candidates', '3', '--repair-rounds', '1', '--concurrency', '1', '--no-review', '--library', library, '--json'];

describe('envforge run', () => {
  it('without an LLM configured exits 2 and says how to configure one', async () => {
    const result = await envforge(['run', '--library', libraryCopy('none')], mkdtempSync(join(root, 'cwd-')));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/No LLM is configured/);
    expect(result.stderr).toMatch(/--base-url/);
  });

  it('runs a batch: admits, repairs, rejects, and prints the report', async () => {
    const result = await envforge(runArgs(libraryCopy('plain')), mkdtempSync(join(root, 'cwd-')));
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.admitted.map((a: { name: string }) => a.name).sort()).toEqual(['coin-change-ways', 'roman-numeral-sum']);
    expect(report.funnel).toMatchObject({ admitted: 2, rejected: 1 });
    expect(result.stderr).toMatch(/"type":"admitted"/);
  });

  it('killed with SIGKILL mid-run and resumed, admits the same set with no spend recorded twice', async () => {
    const uninterrupted = JSON.parse((await envforge(runArgs(libraryCopy('whole')), mkdtempSync(join(root, 'cwd-')))).stdout);

    const library = libraryCopy('killed');
    const cwd = mkdtempSync(join(root, 'cwd-')); // one cwd, so both runs share the LLM response cache
    const killed = await envforge(runArgs(library), cwd, (line, kill) => {
      if (line.includes('"type":"admitted"')) kill();
    });
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await envforge([...runArgs(library), '--resume'], cwd);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = JSON.parse(resumed.stdout);
    expect(report.admitted.map((a: { name: string }) => a.name).sort()).toEqual(uninterrupted.admitted.map((a: { name: string }) => a.name).sort());
    expect(report.cost.inputTokens + report.cost.outputTokens).toBe(uninterrupted.cost.inputTokens + uninterrupted.cost.outputTokens);
    const check = SqliteLibrary.open(library, { readonly: true });
    expect((await check.listBatches()).map((b) => b.status)).toEqual(['finished']);
    expect((await check.integrityCheck()).ok).toBe(true);
    await check.close();
  });
});
