// Module text is data, never a terminal command: every CLI command that prints something a module wrote
// (validate's report, sample, play, library list/show/rejections, run's events and report, nightly, error
// messages) runs on hostile modules through the real binary, and no raw control sequence (ESC, CSI, OSC,
// C1, BEL, DEL, bidi overrides) reaches stdout or stderr; the hostile text does, escaped (cli/io.ts).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteLibrary } from '../library/sqlite/store.js';
import type { EnvSpec } from '../agents/spec.js';
import { batchScript } from './helpers/batch-script.js';
import { MAIN } from './helpers/cli.js';
import { envSource } from './helpers/env-source.js';
import { startFakeOpenAi, type FakeOpenAiServer } from './helpers/fake-openai.js';
import { fakeAdmission, sampleMeta } from './helpers/library-fixtures.js';
import type { WireRequest } from '../agents/llm/contract.js';

/**
 * A terminal's worst: erase the line, return, a fake verdict in green, clipboard and title writes, C1 CSI, a bidi
 * override, NEL, DEL.
 */
const HOSTILE =
  '\u001b[2K\r\u001b[32m✓ would be admitted\u001b[0m \u001b]52;c;aGFja2Vk\u0007 \u001b]0;pwned\u0007 ' +
  '\u009b31m \u202eevil\u202c \u0085 \u007f';
/** What must never reach the terminal raw. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const literal = (text: string) => JSON.stringify(text);

const root = mkdtempSync(join(tmpdir(), 'envforge-hostile-cli-'));
const file = (name: string, text: string) => {
  const path = join(root, name);
  writeFileSync(path, text);
  return path;
};

/** generate throws the hostile text: the report, the kept rejection and every error carry it. */
const THROWER = envSource({
  meta: JSON.stringify(sampleMeta('hostile-thrower')),
  generate: `throw new Error(${literal(HOSTILE)});`,
});
/** A valid prompt, but hidden fields, the reference and the feedback carry the hostile text. */
const REVEALER = envSource({
  meta: JSON.stringify(sampleMeta('hostile-revealer')),
  generate:
    `const a = rng.int(1, 99); return { prompt: 'What is ' + a + ' + 1? Answer as <answer>N</answer>.', ` +
    `answer: a + 1, note: ${literal(HOSTILE)} };`,
  solve: `return '<answer>' + instance.answer + '</answer>' + ${literal(HOSTILE)};`,
  verify:
    `return { score: kit.int(kit.answer(response) ?? '') === instance.answer ? 1 : 0, ` +
    `feedback: ${literal(HOSTILE)} };`,
});
/** A top level that throws the hostile text: every command that loads it fails with it. */
const LOAD_THROWER =
  `throw new Error(${literal(HOSTILE)});\n` + `${envSource({ meta: JSON.stringify(sampleMeta('hostile-loader')) })}`;
/** An episodic module whose score's feedback is hostile (its meta and observations keep the contract). */
const PLAYER =
  `
export const meta = { name: 'hostile-player', title: 'Echo desk', description: 'Say hello, then done.', skills: ` +
  `['tool-use'], levels: 3, kind: 'episodic', maxTurns: 4,
  tools: [{ name: 'say', description: 'Say a word.', parameters: { type: 'object', properties: { word: { type: ` +
  `'string' } }, required: ['word'], additionalProperties: false } }] };
export function reset(rng, level) { return { state: { said: [] }, prompt: 'Say hello with the say ` +
  `tool, then say done.' }; }
export function step(state, action) { return { state: { said: [...state.said, action.args.word] }, observation: ` +
  `'noted', done: action.args.word === 'done' }; }
export function score(state) { return { score: state.said.includes('hello') ? 1 : 0, feedback: ${literal(HOSTILE)} }; }
export function act(state) { return { tool: 'say', args: { word: state.said.length ? 'done' : 'hello' } }; }`;

interface Run {
  code: number | null;
  out: string;
}
/** The real binary; `input` is piped to stdin. */
function envforge(args: string[], input = '', env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    const clean = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(OPENAI|ANTHROPIC|ENVFORGE)_/.test(k)),
    );
    const child = spawn(process.execPath, [MAIN, ...args], {
      cwd: root,
      env: { ...clean, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.stdin.end(input);
    child.on('exit', (code) => resolve({ code, out }));
  });
}

/** The hostile text reached the output (escaped), and nothing a terminal acts on did. */
function expectEscaped(run: Run): void {
  expect(run.out).not.toMatch(RAW_CONTROL);
  expect(run.out).toContain('\\u001b[32m✓ would be admitted\\u001b[0m');
}

const lib = join(root, 'lib');
let server: FakeOpenAiServer;

beforeAll(async () => {
  // A library as an older envforge (or a hand-edited index) might hold it: meta text past today's contract.
  const library = SqliteLibrary.open(lib, { create: true });
  const meta = sampleMeta('hostile-title', { title: HOSTILE.replace(/\r/g, ''), description: HOSTILE });
  await library.admit(fakeAdmission(envSource({ meta: JSON.stringify(meta) }), meta));
  // And an honest one, which nightly's revalidation keeps (so its export has something to write).
  const honest = sampleMeta('honest-product', { levels: 4 });
  const generate =
    "const a = rng.int(2, 30 * level), b = rng.int(2, 30 * level); return { prompt: 'What is ' + a + ' times " +
    "' + b + '? Answer as <answer>N</answer>.', answer: a * b };";
  await library.admit(fakeAdmission(envSource({ meta: JSON.stringify(honest), generate }), honest));
  await library.close();
  const spec: EnvSpec = {
    name: 'hostile-sum',
    title: `The hostile-sum task ${HOSTILE}`,
    skills: ['arithmetic'],
    taskIdea: `A task called hostile-sum. ${HOSTILE}`,
    answerFormat: 'One integer as <answer>N</answer>.',
    difficultyScaling: 'Inputs grow.',
    whyNew: `Nothing trains it ${HOSTILE}`,
  };
  const { script } = batchScript({ specs: [spec], modules: { 'hostile-sum': [THROWER] } });
  type OpenAiBody = {
    messages: Array<{ role: string; content: string }>;
    response_format?: { json_schema?: { name: string } };
  };
  server = await startFakeOpenAi({
    script: (body: OpenAiBody) =>
      script({
        messages: body.messages.filter((m) => m.role !== 'system') as WireRequest['messages'],
        maxTokens: 0,
        ...(body.response_format?.json_schema
          ? { schema: { name: body.response_format.json_schema.name, jsonSchema: {}, strict: true } }
          : {}),
      }),
  });
}, 60_000);
afterAll(() => server?.close());

describe('no command prints a raw control sequence from a module', () => {
  it('validate: the human report and --json of a module whose error text redraws the terminal', async () => {
    const path = file('thrower.js', THROWER);
    const human = await envforge(['validate', path, '--library', lib]);
    expect(human.code).toBe(1);
    expectEscaped(human);
    expect(human.out).toMatch(/^✗ reject/m);
    const json = await envforge(['validate', path, '--json', '--library', lib]);
    expectEscaped(json);
    expect(JSON.parse(json.out.split('\n')[0] as string).problems[0].message).toContain(
      '\u001b[32m✓ would be admitted',
    );
  });

  it(
    'sample: hidden fields, the reference and its feedback, as text and as JSON; and a ' + 'module that fails to load',
    async () => {
      const path = file('revealer.js', REVEALER);
      for (const args of [
        ['sample', path, '--reveal', '-n', '2'],
        ['sample', path, '--reveal', '--json'],
      ])
        expectEscaped(await envforge(args));
      const failing = await envforge(['sample', file('loader.js', LOAD_THROWER)]);
      expect(failing.code).toBe(1);
      expectEscaped(failing);
    },
  );

  it('play: the final feedback, and a tool name typed with escapes in it', async () => {
    const run = await envforge(
      ['play', file('player.js', PLAYER)],
      'say\u001b[2J {"word":"x"}\nsay {"word":"hello"}\nsay {"word":"done"}\n',
    );
    expect(run.code).toBe(0);
    expectEscaped(run);
    expect(run.out).toMatch(/unknown tool "say\\u001b\[2J"/);
  });

  it('library list, show and show --json of an environment whose title and description are hostile', async () => {
    const listed = await envforge(['library', 'list', '--library', lib]);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain('hostile-title@1');
    expect(listed.out).not.toMatch(RAW_CONTROL);
    for (const args of [
      ['library', 'show', 'hostile-title', '--library', lib],
      ['library', 'show', 'hostile-title', '--json', '--library', lib],
    ]) {
      const run = await envforge(args);
      expect(run.code).toBe(0);
      expectEscaped(run);
    }
  });

  it('library add keeps the rejection; library rejections lists it, as text and as JSON', async () => {
    const added = await envforge(['library', 'add', file('thrower-add.js', THROWER), '--library', lib]);
    expect(added.code).toBe(1);
    expectEscaped(added);
    expectEscaped(await envforge(['library', 'rejections', '--library', lib]));
    expectEscaped(await envforge(['library', 'rejections', '--json', '--library', lib]));
  });

  it("run: an LLM's hostile spec and module, in the events on stderr and the report on stdout", {
    timeout: 120_000,
  }, async () => {
    const run = await envforge(
      [
        'run',
        '--base-url',
        server.baseUrl,
        '--model',
        'fake-model',
        '--target',
        '1',
        '--max-candidates',
        '1',
        '--repair-rounds',
        '0',
        '--concurrency',
        '1',
        '--no-review',
        '--kind',
        'single',
        '--library',
        lib,
      ],
      '',
      { OPENAI_API_KEY: 'sk-test' },
    );
    expect(run.code, run.out).toBe(0);
    expect(run.out).not.toMatch(RAW_CONTROL);
    expect(run.out).toContain('\\u001b');
  });

  it('nightly: revalidation retires the hostile environment, the batch meets the hostile LLM, and the report says so', {
    timeout: 240_000,
  }, async () => {
    const config = file(
      'nightly.json',
      JSON.stringify({
        target: 1,
        maxCandidates: 1,
        repairRounds: 0,
        concurrency: 1,
        llm: { baseUrl: server.baseUrl, model: 'fake-model' },
        export: { out: join(root, 'snapshots'), formats: ['jsonl'], perEnv: 2 },
      }),
    );
    const run = await envforge(['nightly', '--config', config, '--library', lib, '--night', 'hostile'], '', {
      OPENAI_API_KEY: 'sk-test',
    });
    expect(run.code, run.out).toBe(0);
    expect(run.out).not.toMatch(RAW_CONTROL);
    expect(run.out).toMatch(/hostile-title/);
  });

  it('an error message that names a path holding escapes', async () => {
    const run = await envforge(['validate', join(root, `nope-\u001b[31m${HOSTILE}.js`)]);
    expect(run.code).toBe(2);
    expectEscaped(run);
  });
});

describe('module paths must be regular files', () => {
  const secret = 'sk_live_0123456789abcdefSECRETTOKEN';
  const key =
    `-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7${secret}` +
    `\n-----END PRIVATE KEY-----\n`;

  it.each([
    ['validate', (p: string) => ['validate', p]],
    ['library add', (p: string) => ['library', 'add', p, '--library', lib]],
    ['sample', (p: string) => ['sample', p]],
    ['play', (p: string) => ['play', p]],
  ])(
    '%s refuses a symbolic link, a named pipe, a device and a directory with a usage error, reading nothing',
    async (_name, args) => {
      const dir = mkdtempSync(join(root, 'paths-'));
      const target = join(dir, 'token.txt');
      writeFileSync(target, secret);
      const link = join(dir, 'env.js');
      const { symlinkSync } = await import('node:fs');
      symlinkSync(target, link);
      const fifo = join(dir, 'pipe.js');
      await new Promise((resolve) => spawn('mkfifo', [fifo]).on('exit', resolve));
      const folder = join(dir, 'folder.js');
      mkdirSync(folder);
      for (const [path, words] of [
        [link, /symbolic link/],
        [fifo, /named pipe/],
        ['/dev/zero', /a device/],
        [folder, /a directory/],
      ] as const) {
        const run = await envforge(args(path));
        expect([run.code, run.out]).toEqual([2, expect.stringMatching(words)]);
        expect(run.out).not.toContain(secret);
      }
    },
  );

  it(
    'a file that is no module (a key, a token) is rejected without its text in the kept rejection; the error ' +
      'quotes at most a short excerpt',
    async () => {
      const keyFile = file('key.pem.js', key);
      const tokenFile = file('token.js', secret);
      const validated = await envforge(['validate', keyFile]);
      expect(validated.code).toBe(1);
      expect(validated.out).not.toContain('MIIEvQ');
      expect(validated.out).toMatch(/E_SYNTAX.*\[.*key\.pem\.js:\d+:\d+\]/);
      for (const path of [keyFile, tokenFile])
        expect((await envforge(['library', 'add', path, '--library', lib])).code).toBe(1);
      const library = SqliteLibrary.open(lib, { readonly: true });
      try {
        const kept = JSON.stringify(await library.rejections({ limit: 100 }));
        expect(kept).not.toContain('MIIEvQ');
        expect(kept).not.toContain(secret);
        expect(kept).not.toContain('sk_live');
      } finally {
        await library.close();
      }
    },
  );
});
