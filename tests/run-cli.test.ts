// `envforge run` through the real binary and the real openai SDK against a fake OpenAI-compatible server
// on 127.0.0.1: a batch admits and reports; a batch killed with SIGKILL mid-run and resumed admits the
// same set as an uninterrupted run, with no spend recorded twice. With no LLM configured the run uses the
// offline author: its flags are checked here through the binary, and its wiring (the one-line notice, the
// seed, the seed kept on --resume, the report's author) in-process with a stand-in offline author.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WireRequest } from '../agents/llm/contract.js';
import type { FakeReply } from '../agents/llm/fake.js';
import { runCli } from '../cli/program.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { alwaysOne, batchScript, fixture, spec } from './helpers/batch-script.js';
import { MAIN } from './helpers/cli.js';
import { episodicSpec } from './helpers/episodic-spec.js';
import { startFakeOpenAi, type FakeOpenAiServer } from './helpers/fake-openai.js';
import { seededLibraryCopy } from './helpers/seeded-library.js';

// A stand-in for agents/offline (the real offline author is built elsewhere): it proposes one spec and
// writes a known-good module for it, and records the seeds it was created with.
const offline = vi.hoisted(() => ({ seeds: [] as number[], kinds: [] as unknown[] }));
vi.mock('../agents/offline/author.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../agents/offline/author.js')>();
  const helpers = await import('./helpers/batch-script.js');
  const trace = { promptHash: 'stand-in', costUsd: 0, cached: false, model: 'dsl' };
  const createOfflineAuthor: typeof actual.createOfflineAuthor = ({ seed }) => {
    offline.seeds.push(seed);
    let proposals = 0;
    return {
      identity: { provider: 'offline', version: actual.OFFLINE_AUTHOR_VERSION, seed },
      lineageAuthor: () => 'offline',
      propose: async (request) => (
        offline.kinds.push(request.kind),
        { specs: proposals++ === 0 ? [helpers.spec('roman-total')] : [], dropped: [], ...trace }
      ),
      write: async () => ({ source: helpers.fixture('good-roman-sum.js'), ...trace }),
      repair: async () => ({ source: helpers.fixture('good-roman-sum.js'), ...trace }),
    };
  };
  return { ...actual, createOfflineAuthor };
});

const root = mkdtempSync(join(tmpdir(), 'envforge-run-'));
const seeded = join(root, 'seeded');
let server: FakeOpenAiServer;
const marked = (name: string, source: string) => `// spec-marker:${name}\n${source}`;
const { script } = batchScript({
  specs: [spec('roman-total'), spec('coin-ways'), spec('never-fixed')],
  modules: {
    'roman-total': [fixture('good-roman-sum.js')],
    'coin-ways': [
      marked('coin-ways', alwaysOne(fixture('good-coin-change-ways.js'))),
      fixture('good-coin-change-ways.js'),
    ],
    'never-fixed': [marked('never-fixed', alwaysOne(fixture('good-gcd-pair-sum.js')))],
  },
});
// The server sees OpenAI request bodies; the script reads the same messages and the schema name.
type OpenAiBody = {
  messages: Array<{ role: string; content: string }>;
  response_format?: { json_schema?: { name: string } };
};
const adaptTo = (play: (request: WireRequest) => FakeReply) => (body: OpenAiBody) =>
  play({
    messages: body.messages.filter((m) => m.role !== 'system') as WireRequest['messages'],
    maxTokens: 0,
    ...(body.response_format?.json_schema
      ? { schema: { name: body.response_format.json_schema.name, jsonSchema: {}, strict: true } }
      : {}),
  });
const adapt = adaptTo(script);

beforeAll(async () => {
  await seededLibraryCopy('single', seeded); // validated once per test run (tests/helpers/seeded-library.ts)
  server = await startFakeOpenAi({ script: adapt });
}, 600_000); // the first file to ask makes the seeded library; the others wait (minutes under load)
afterAll(() => server?.close());

const cleanEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC|ENVFORGE)_/.test(k)));

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
const runArgs = (library: string, on = server) => [
  'run',
  '--base-url',
  on.baseUrl,
  '--model',
  'fake-model',
  '--target',
  '10',
  '--max-candidates',
  '3',
  '--repair-rounds',
  '1',
  '--concurrency',
  '1',
  '--no-review',
  '--library',
  library,
  '--json',
];

/** runCli in this process, with no LLM in the environment (the cwd stays: sandbox workers load tsx from it). */
async function inProcess(args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = Object.entries(process.env).filter(([k]) => /^(OPENAI|ANTHROPIC|ENVFORGE)_/.test(k));
  for (const [k] of saved) delete process.env[k];
  try {
    const code = await runCli(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out, err };
  } finally {
    for (const [k, v] of saved) process.env[k] = v;
  }
}
// An empty config file, so an envforge.config.json in the working directory cannot configure an LLM.
const emptyConfig = join(root, 'empty.config.json');
writeFileSync(emptyConfig, '{}');
const offlineArgs = (library: string) => [
  'run',
  '--config',
  emptyConfig,
  '--target',
  '1',
  '--max-candidates',
  '2',
  '--concurrency',
  '1',
  '--library',
  library,
  '--json',
];
const llmLines = (err: string[]) => err.filter((line) => line.startsWith('LLM:'));

describe('envforge run with the offline author', () => {
  it('without an LLM configured uses the offline author, says so in one line, and reports its seed', async () => {
    // Single-turn only: this test is about choosing the author; episodic validations would triple its time.
    const result = await envforge(
      ['run', '--kind', 'single', '--target', '3', '--max-candidates', '8', '--library', libraryCopy('none'), '--json'],
      mkdtempSync(join(root, 'cwd-')),
    );
    expect(result.code, result.stderr).toBe(0);
    const line = result.stderr.split('\n').filter((l) => l.startsWith('LLM:'));
    expect(line).toEqual([
      expect.stringMatching(
        new RegExp(
          String.raw`^LLM: none configured — using the offline author v\d+ \(seed \d+\)\. To use a model: ` +
            String.raw`--provider openai\|anthropic --model M, or --base-url URL`,
        ),
      ),
    ]);
    const report = JSON.parse(result.stdout);
    expect(report.author).toMatchObject({
      provider: 'offline',
      seed: Number(/seed (\d+)/.exec(line[0] as string)?.[1]),
    });
    expect(report.funnel.admitted).toBeGreaterThanOrEqual(3);
    expect(report.cost.totalUsd).toBe(0);
  });

  it('Ctrl-C mid-run (SIGINT to the process group, workers included) cancels: no E_CRASHED rejections, a resume ' +
    'hint, and the batch resumes', async () => {
    const library = libraryCopy('interrupted');
    const cwd = mkdtempSync(join(root, 'cwd-'));
    // Single-turn only: this test is about cancelling and resuming, and episodic validations would triple its time.
    const args = [
      'run',
      '--provider',
      'offline',
      '--kind',
      'single',
      '--seed',
      '3',
      '--target',
      '6',
      '--max-candidates',
      '12',
      '--library',
      library,
      '--json',
    ];
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    let validated = 0;
    child.stderr.on('data', (d) => {
      stderr += d;
      // As a terminal does: the signal goes to every process of the group, the sandbox workers too.
      if ((validated += (String(d).match(/"step":"validated"/g) ?? []).length) >= 2 && validated < 100) {
        validated = 100;
        process.kill(-(child.pid as number), 'SIGINT');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(
      new RegExp(
        String.raw`interrupted \(SIGINT\); the batch is kept\. Continue it with the same LLM settings and: ` +
          String.raw`envforge run --resume batch-\S+ --library `,
      ),
    );
    const check = SqliteLibrary.open(library, { readonly: true });
    const [batch] = await check.listBatches();
    expect(batch?.status).toBe('running');
    expect((await check.rejections({ code: 'E_CRASHED' })).length).toBe(0);
    const verdicts = (await check.journal(batch?.id as string, 'verdict')).map((e) => e.payload as { codes: string[] });
    expect(verdicts.filter((v) => v.codes.includes('E_CRASHED'))).toEqual([]);
    await check.close();
    const resumed = await envforge([...args.slice(0, 1), '--resume', batch?.id as string, ...args.slice(1)], cwd);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ batchId: batch?.id, stopReason: 'target' });
  }, 240_000);

  it('--solver-model without an LLM exits 2: calibration needs an LLM solver', async () => {
    const cwd = mkdtempSync(join(root, 'cwd-'));
    for (const args of [
      ['--solver-model', 'some-model'],
      ['--provider', 'offline', '--solver-model', 'some-model'],
    ]) {
      const result = await envforge(['run', ...args, '--library', libraryCopy(`solver-${args.length}`)], cwd);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--solver-model needs an LLM/);
      expect(result.stderr).toMatch(/offline author/);
    }
  });

  it('--seed must be a non-negative integer (exit 2)', async () => {
    for (const seed of ['abc', '-1', '1.5']) {
      const result = await envforge(
        ['run', '--seed', seed, '--library', libraryCopy(`seed-${seed}`)],
        mkdtempSync(join(root, 'cwd-')),
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--seed needs an integer/);
    }
  });

  it(
    '(stand-in author) with no LLM: one line with the seed derived from the batch id, and ' +
      'the author in the report',
    async () => {
      const result = await inProcess(offlineArgs(libraryCopy('stand-in-none')));
      expect(result.code, result.err.join('\n')).toBe(0);
      expect(llmLines(result.err)).toEqual([
        expect.stringMatching(
          new RegExp(
            String.raw`^LLM: none configured — using the offline author v1 \(seed \d+\)\. To use a model: ` +
              String.raw`--provider openai\|anthropic --model M, or --base-url URL \(see envforge run --help\)$`,
          ),
        ),
      ]);
      const seed = Number(/seed (\d+)/.exec(llmLines(result.err)[0] as string)?.[1]);
      expect(offline.seeds.at(-1)).toBe(seed);
      const report = JSON.parse(result.out.join('\n'));
      expect(report.author).toEqual({ provider: 'offline', version: '1', seed });
      expect(report.admitted.map((a: { name: string }) => a.name)).toEqual(['roman-numeral-sum']);
    },
  );

  it('(stand-in author) --provider offline --seed N: uses N and says where the offline choice came from', async () => {
    const library = libraryCopy('stand-in-flag');
    const result = await inProcess([...offlineArgs(library), '--provider', 'offline', '--seed', '42']);
    expect(result.code, result.err.join('\n')).toBe(0);
    expect(llmLines(result.err)).toEqual(['LLM: offline author v1 (seed 42, from flag)']);
    expect(offline.seeds.at(-1)).toBe(42);
    expect(JSON.parse(result.out.join('\n')).author).toEqual({ provider: 'offline', version: '1', seed: 42 });
    const check = SqliteLibrary.open(library, { readonly: true });
    const [batch] = await check.listBatches();
    expect(batch?.options).toMatchObject({ author: { provider: 'offline', version: '1', seed: 42 } });
    expect((await check.get('roman-numeral-sum'))?.lineage).toMatchObject({ author: 'offline', notes: { seed: 42 } });
    await check.close();
  });

  it('(stand-in author) --resume keeps the seed the batch was started with', async () => {
    const library = libraryCopy('stand-in-resume');
    const setup = SqliteLibrary.open(library);
    await setup.startBatch('batch-interrupted', { author: { provider: 'offline', version: '1', seed: 99 } });
    await setup.startBatch('batch-by-llm', { author: { provider: 'openai' } });
    await setup.close();
    const differs = await inProcess([...offlineArgs(library), '--resume', 'batch-interrupted', '--seed', '5']);
    expect(differs.code).toBe(2);
    expect(differs.err.join('\n')).toMatch(/started with seed 99/);
    const wrongAuthor = await inProcess([...offlineArgs(library), '--resume', 'batch-by-llm']);
    expect(wrongAuthor.code).toBe(2);
    expect(wrongAuthor.err.join('\n')).toMatch(/started with the LLM provider openai/);
    const resumed = await inProcess([...offlineArgs(library), '--resume', 'batch-interrupted']);
    expect(resumed.code, resumed.err.join('\n')).toBe(0);
    expect(llmLines(resumed.err)).toEqual([expect.stringContaining('(seed 99)')]);
    expect(offline.seeds.at(-1)).toBe(99);
    expect(JSON.parse(resumed.out.join('\n'))).toMatchObject({ batchId: 'batch-interrupted', author: { seed: 99 } });
  });
});

describe('envforge run --resume restores the options the batch was started with', () => {
  it(
    '(stand-in author) a resumed batch keeps its --kind and --target; a flag given again with another value ' +
      'is refused, naming both',
    async () => {
      const library = libraryCopy('stand-in-options');
      const setup = SqliteLibrary.open(library);
      const author = { provider: 'offline', version: '1', seed: 5 };
      await setup.startBatch('batch-single', {
        author,
        kind: 'single',
        target: 1,
        invocation: {
          kind: 'single',
          target: 1,
          maxCandidates: 2,
          repairRounds: 2,
          concurrency: 1,
          weakShare: 0.6,
          review: true,
          solverSamples: 4,
          workers: 'local',
          jobTimeout: 300,
        },
      });
      await setup.close();
      const differs = await inProcess([
        ...offlineArgs(library),
        '--resume',
        'batch-single',
        '--kind',
        'mixed',
        '--target',
        '10',
      ]);
      expect(differs.code).toBe(2);
      expect(differs.err.join('\n')).toMatch(
        /batch batch-single was started with --kind single \(given: --kind mixed\), --target 1 \(given: --target 10\)/,
      );
      const same = await inProcess([...offlineArgs(library), '--resume', 'batch-single', '--kind', 'single']);
      expect(same.code, same.err.join('\n')).toBe(0);
      expect(offline.kinds.at(-1)).toBe('single');
      expect(JSON.parse(same.out.join('\n'))).toMatchObject({
        batchId: 'batch-single',
        stopReason: 'target',
        funnel: { admitted: 1 },
      });
    },
  );

  it('(stand-in author) without --json: the report in words and no JSON events on stderr', async () => {
    const result = await inProcess(offlineArgs(libraryCopy('stand-in-words')).filter((a) => a !== '--json'));
    expect(result.code, `${result.err.join('\n')}\n${result.out.join('\n')}`).toBe(0);
    expect(result.err.filter((l) => l.trimStart().startsWith('{'))).toEqual([]);
    expect(result.err).toContain('admitted roman-numeral-sum@1 (1/1)');
    expect(result.out.join('\n')).toMatch(/^# envforge batch /);
  });

  it(
    "(stand-in author) a new batch journals its options with it, including the command line's own " +
      '(budgets, feedback file)',
    async () => {
      const library = libraryCopy('stand-in-journaled');
      const result = await inProcess([
        ...offlineArgs(library),
        '--kind',
        'single',
        '--target',
        '3',
        '--max-tokens',
        '5000',
      ]);
      expect(result.code, result.err.join('\n')).toBe(0);
      const check = SqliteLibrary.open(library, { readonly: true });
      const [batch] = await check.listBatches();
      expect(batch?.options).toMatchObject({
        kind: 'single',
        target: 3,
        invocation: { kind: 'single', target: 3, maxTokens: 5000 },
      });
      await check.close();
    },
  );
});

describe('envforge run with a dollar budget and a model without a price', () => {
  // A server of their own: these runs must not use up the shared script's answers.
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    server = await startFakeOpenAi({
      script: adaptTo(
        batchScript({ specs: [spec('roman-total')], modules: { 'roman-total': [fixture('good-roman-sum.js')] } })
          .script,
      ),
    });
  });
  afterAll(() => server.close());

  it('stops before the first call, with a cold and with a warm LLM cache, and says how to set prices', async () => {
    const cwd = mkdtempSync(join(root, 'cwd-'));
    // Warm the cache: with --max-tokens too, the tokens bound the run (they count without a price).
    const warm = await envforge(
      [...runArgs(libraryCopy('unpriced-warm'), server), '--budget-usd', '0.0001', '--max-tokens', '10000000'],
      cwd,
    );
    expect(warm.code, warm.stderr).toBe(0);
    expect(warm.stderr).toMatch(/warning: no price is known for "fake-model"/);
    expect(JSON.parse(warm.stdout).cost.calls).toBeGreaterThan(0);
    for (const [name, dir] of [
      ['cold', mkdtempSync(join(root, 'cwd-'))],
      ['warm', cwd],
    ] as const) {
      const library = libraryCopy(`unpriced-${name}-budget`);
      const before = server.requests.length;
      const result = await envforge([...runArgs(library, server), '--budget-usd', '0.0001'], dir);
      expect(result.code, name).toBe(2);
      expect(result.stderr).toMatch(
        new RegExp(
          '--budget-usd: no price is known for the model ' +
            String.raw`"fake-model".*envforge\.config\.json.*"prices":\{"fake-model":\{"inputPerMTok".*--max-tokens`,
        ),
      );
      expect(server.requests.length, name).toBe(before);
      const check = SqliteLibrary.open(library, { readonly: true });
      expect(await check.listBatches(), name).toEqual([]);
      await check.close();
    }
  });

  it('with a price in envforge.config.json the budget holds: a call that could pass it is never made', async () => {
    const cwd = mkdtempSync(join(root, 'cwd-'));
    writeFileSync(
      join(cwd, 'envforge.config.json'),
      JSON.stringify({ prices: { 'fake-model': { inputPerMTok: 1, outputPerMTok: 2 } } }),
    );
    const before = server.requests.length;
    const result = await envforge([...runArgs(libraryCopy('priced-budget'), server), '--budget-usd', '0.0001'], cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ stopReason: 'budget', cost: { calls: 0 } });
    expect(server.requests.length).toBe(before);
  });
});

describe('envforge run against a sloppy model', () => {
  it(
    'admits environments although its structured output repeats tags in other cases and wraps the ' +
      'JSON in prose or fences',
    async () => {
      const sloppy = batchScript({
        specs: [{ ...spec('roman-total'), skills: ['Arithmetic', 'arithmetic ', 'Number Theory', 'number-theory'] }],
        modules: { 'roman-total': [fixture('good-roman-sum.js')] },
      });
      const wrap = (body: OpenAiBody) => {
        const answer = adaptTo(sloppy.script)(body);
        if (answer.kind !== 'json') return answer;
        const json = JSON.stringify(answer.value, null, 2);
        return body.response_format?.json_schema?.name === 'architect_specs'
          ? {
              kind: 'text' as const,
              text: `Sure! Here are the specs you asked for:\n${json}\nLet me know if you want changes.`,
            }
          : { kind: 'text' as const, text: `\`\`\`json\n${json}\n\`\`\`` };
      };
      const sloppyServer = await startFakeOpenAi({ script: wrap });
      try {
        const args = [
          'run',
          '--base-url',
          sloppyServer.baseUrl,
          '--model',
          'sloppy-model',
          '--target',
          '1',
          '--max-candidates',
          '2',
          '--concurrency',
          '1',
          '--library',
          libraryCopy('sloppy'),
          '--json',
        ];
        const result = await envforge(args, mkdtempSync(join(root, 'cwd-')));
        expect(result.code, result.stderr).toBe(0);
        const report = JSON.parse(result.stdout);
        expect(report).toMatchObject({ stopReason: 'target', funnel: { specs: 1, admitted: 1 }, serviceFailures: [] });
        expect(sloppy.calls).toMatchObject({ architect: 1, reviewer: 1 });
      } finally {
        await sloppyServer.close();
      }
    },
  );
});

describe('envforge run against a sloppy model that fills every optional field', () => {
  it('with --kind single, admits: the episodic part it adds to each spec is dropped with a warning', async () => {
    const part = episodicSpec('unused', ['look', 'finish']).episodic;
    const filled = batchScript({
      specs: [{ ...spec('roman-total'), kind: 'single', episodic: part }],
      modules: { 'roman-total': [fixture('good-roman-sum.js')] },
    });
    const sloppyServer = await startFakeOpenAi({ script: adaptTo(filled.script) });
    try {
      const args = [
        'run',
        '--base-url',
        sloppyServer.baseUrl,
        '--model',
        'sloppy-model',
        '--kind',
        'single',
        '--target',
        '1',
        '--max-candidates',
        '2',
        '--concurrency',
        '1',
        '--library',
        libraryCopy('sloppy-single'),
        '--json',
      ];
      const result = await envforge(args, mkdtempSync(join(root, 'cwd-')));
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ stopReason: 'target', funnel: { specs: 1, admitted: 1 } });
      expect(filled.calls).toMatchObject({ architect: 1 });
      expect(result.stderr).toContain(
        '"warnings":["spec \\"roman-total\\": dropped the episodic part of a single-turn spec"]',
      );
      const architect = sloppyServer.requests.find(
        (r) => r.body.response_format?.json_schema?.name === 'architect_specs',
      );
      expect(JSON.stringify(architect?.body.response_format.json_schema.schema)).not.toContain('"episodic"');
    } finally {
      await sloppyServer.close();
    }
  });
});

describe('envforge run --prompt-profile', () => {
  it('compact: sends the compact prompts (each under 20k characters) and admits', async () => {
    const plan = batchScript({
      specs: [spec('roman-total')],
      modules: { 'roman-total': [fixture('good-roman-sum.js')] },
    });
    const own = await startFakeOpenAi({ script: adaptTo(plan.script) });
    try {
      const result = await envforge(
        [...runArgs(libraryCopy('compact'), own), '--prompt-profile', 'compact', '--kind', 'single'],
        mkdtempSync(join(root, 'cwd-')),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('prompts: compact profile');
      expect(JSON.parse(result.stdout).funnel).toMatchObject({ admitted: 1 });
      const prompts = own.requests.map((r) =>
        (r.body.messages as Array<{ content: string }>).map((m) => m.content).join('\n'),
      );
      expect(prompts.some((p) => p.includes('# The environment contract (single-turn): its rules'))).toBe(true);
      for (const prompt of prompts) expect(prompt.length).toBeLessThan(20_000);
    } finally {
      await own.close();
    }
  });

  it('refuses a profile it does not know (exit 2)', async () => {
    const result = await envforge(
      [...runArgs(libraryCopy('bad-profile')), '--prompt-profile', 'tiny'],
      mkdtempSync(join(root, 'cwd-')),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--prompt-profile.*expected one of auto, standard, compact, got "tiny"/);
  });
});

describe('envforge run', () => {
  it('runs a batch: admits, repairs, rejects, and prints the report', async () => {
    const result = await envforge(runArgs(libraryCopy('plain')), mkdtempSync(join(root, 'cwd-')));
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.admitted.map((a: { name: string }) => a.name).sort()).toEqual([
      'coin-change-ways',
      'roman-numeral-sum',
    ]);
    expect(report.funnel).toMatchObject({ admitted: 2, rejected: 1 });
    expect(result.stderr).toMatch(/"type":"admitted"/);
  });

  it('killed with SIGKILL mid-run and resumed, admits the same set with no spend recorded twice', async () => {
    const uninterrupted = JSON.parse(
      (await envforge(runArgs(libraryCopy('whole')), mkdtempSync(join(root, 'cwd-')))).stdout,
    );

    const library = libraryCopy('killed');
    const cwd = mkdtempSync(join(root, 'cwd-')); // one cwd, so both runs share the LLM response cache
    const killed = await envforge(runArgs(library), cwd, (line, kill) => {
      if (line.includes('"type":"admitted"')) kill();
    });
    expect(killed.signal).toBe('SIGKILL');
    const resumed = await envforge([...runArgs(library), '--resume'], cwd);
    expect(resumed.code, resumed.stderr).toBe(0);
    const report = JSON.parse(resumed.stdout);
    expect(report.admitted.map((a: { name: string }) => a.name).sort()).toEqual(
      uninterrupted.admitted.map((a: { name: string }) => a.name).sort(),
    );
    expect(report.cost.inputTokens + report.cost.outputTokens).toBe(
      uninterrupted.cost.inputTokens + uninterrupted.cost.outputTokens,
    );
    const check = SqliteLibrary.open(library, { readonly: true });
    expect((await check.listBatches()).map((b) => b.status)).toEqual(['finished']);
    expect((await check.integrityCheck()).ok).toBe(true);
    await check.close();
  });
});
