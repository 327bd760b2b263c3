// The LLM author writes a code environment end to end (contract v3), through the real openai SDK against the
// fake OpenAI-compatible server on 127.0.0.1: a code batch's architect is asked for code specs only, the
// generator is shown contract v3, a first module of the wrong kind is sent back through the code repair
// prompt, and the repaired module (a code seed standing in for the model's program) is admitted as code.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, type FakeReply } from '../agents/llm/fake.js';
import { CostLedger } from '../agents/llm/cost.js';
import { createOpenAiClient } from '../agents/llm/openai.js';
import type { EnvSpec } from '../agents/spec.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { DEFAULT_BATCH_OPTIONS, runBatch } from '../pipeline/batch.js';
import { SandboxPool } from '../sandbox/pool.js';
import { fixture } from './helpers/batch-script.js';
import { startFakeOpenAi, type FakeOpenAiServer } from './helpers/fake-openai.js';

const WINDOWS = readFileSync(new URL('../seeds/code/window-averages.js', import.meta.url), 'utf8');
const { kind: _kind, ...SPEC } = {
  kind: 'code',
  name: 'window-averages',
  title: 'Moving averages over a window',
  skills: ['sliding-window', 'arithmetic'],
  taskIdea: 'Write a function that returns the mean of every window of k consecutive readings.',
  answerFormat: 'A JavaScript function windowAverages(readings, k) in one fenced block.',
  difficultyScaling: 'Longer series and wider windows.',
  whyNew: 'No code environment trains sliding windows.',
} satisfies EnvSpec;

type Body = {
  messages: Array<{ role: string; content: string }>;
  response_format?: { json_schema?: { name: string } };
};
const userText = (body: Body) =>
  body.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
const fenced = (source: string): FakeReply => reply.text(`\`\`\`js\n${source}\n\`\`\``);

/** The stand-in model: one code spec; first a single-turn module, then on repair the code module. */
function standIn(body: Body): FakeReply {
  if (body.response_format?.json_schema?.name === 'architect_specs') return reply.json({ specs: [SPEC] });
  const text = userText(body);
  if (text.includes('# Your task: repair')) return fenced(WINDOWS);
  if (text.includes('- name: window-averages')) return fenced(fixture('good-roman-sum.js'));
  return reply.text('no module for that');
}

const pool = new SandboxPool({ workers: 2 });
let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAi({ script: standIn });
});
afterAll(async () => {
  await pool.close();
  await server?.close();
});

describe('a batch with an LLM that writes code environments', () => {
  it('asks for code specs, shows contract v3, repairs a module of the wrong kind with the code repair prompt ' +
    'and admits the code module', async () => {
    const library = SqliteLibrary.open(join(mkdtempSync(join(tmpdir(), 'envforge-code-llm-')), 'library'), {
      create: true,
    });
    const ledger = new CostLedger({ batchId: 'code1' });
    const llm = createOpenAiClient({ baseUrl: server.baseUrl, model: 'fake-model', ledger, cache: false });
    const report = await runBatch(
      { library, pool, llm, ledger },
      {
        ...DEFAULT_BATCH_OPTIONS,
        batchId: 'code1',
        kind: 'code',
        target: 1,
        maxCandidates: 1,
        concurrency: 1,
        repairRounds: 1,
        review: false,
      },
    );
    expect(report.admitted.map((a) => [a.name, a.attempts])).toEqual([['window-averages', 2]]);
    expect(report.rejections.map((r) => [r.spec, r.codes])).toEqual([['window-averages', ['E_WRONG_KIND']]]);
    const admitted = await library.get('window-averages');
    expect(admitted?.meta).toMatchObject({ kind: 'code', entry: 'windowAverages' });
    expect(admitted?.lineage).toMatchObject({ author: 'openai:fake-model', spec: { kind: 'code' } });
    await library.close();

    const bodies = server.requests.map((r) => r.body as Body);
    expect(userText(bodies.find((b) => b.response_format?.json_schema?.name === 'architect_specs') as Body)).toContain(
      'Propose code specs only',
    );
    const texts = bodies.map(userText);
    expect(texts.find((t) => t.includes('- name: window-averages') && !t.includes('# Your task: repair'))).toContain(
      '## Contract v3: code environments',
    );
    expect(texts.find((t) => t.includes('# Your task: repair'))).toMatch(
      /You are repairing an envforge code environment \(contract v3\)[\s\S]*E_WRONG_KIND/,
    );
  }, 240_000);
});
