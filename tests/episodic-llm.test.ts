// The LLM author writes episodic environments end to end, through the real openai SDK against the fake
// OpenAI-compatible server on 127.0.0.1: the stand-in model proposes episodic specs and writes v2 modules
// (fixtures standing in for its code); one first reply pays the `incomplete` probe, its repair prompt shows
// that probe and its action log, and the repaired module is admitted; the v2 reviewer is asked. Then
// `envforge run --kind episodic` asks the architect for episodic specs only and admits what it wrote.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply, type FakeReply } from '../agents/llm/fake.js';
import { CostLedger } from '../agents/llm/cost.js';
import { createOpenAiClient } from '../agents/llm/openai.js';
import { REVIEW_CHECKS, type EnvSpec } from '../agents/spec.js';
import { runCli } from '../cli/program.js';
import { SqliteLibrary } from '../library/sqlite/store.js';
import { DEFAULT_BATCH_OPTIONS, runBatch } from '../pipeline/batch.js';
import { SandboxPool } from '../sandbox/pool.js';
import { fixture } from './helpers/batch-script.js';
import { episodicFixture, episodicReviewPasses, episodicSpec, withoutFinishCheck } from './helpers/episodic-spec.js';
import { startFakeOpenAi, type FakeOpenAiServer } from './helpers/fake-openai.js';

const hotel = episodicSpec('hotel-checkin', [
  'list_arrivals',
  'get_reservation',
  'list_rooms',
  'assign_room',
  'finish_checkin',
]);
const payroll = episodicSpec('payroll-overtime', [
  'list_employees',
  'get_timesheet',
  'get_rate',
  'set_pay',
  'hold_timesheet',
  'submit_payroll',
]);
const claims = episodicSpec('insurance-claims', [
  'list_claims',
  'get_claim',
  'get_policy',
  'approve',
  'deny',
  'close_batch',
]);
const payrollSource = episodicFixture('good-payroll-overtime.js');
const brokenPayroll = withoutFinishCheck(payrollSource, /^ {2}if \(!state\.submitted\) return .*$/m);
/** A good single-turn module: the wrong kind for an episodic spec. */
const singleTurn = fixture('good-roman-sum.js');

type Body = {
  messages: Array<{ role: string; content: string }>;
  response_format?: { json_schema?: { name: string; strict?: boolean } };
};
const fenced = (source: string): FakeReply => reply.text(`\`\`\`js\n${source}\n\`\`\``);
const userText = (body: Body) =>
  body.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');

/**
 * The stand-in model: the architect's specs per round, a module per spec (first a single-turn one for hotel and a
 * broken payroll), a passing v2 review.
 */
function standIn(rounds: EnvSpec[][]) {
  let round = 0;
  return (body: Body): FakeReply => {
    const schema = body.response_format?.json_schema?.name;
    if (schema === 'architect_specs') return reply.json({ specs: rounds[Math.min(round++, rounds.length - 1)] });
    if (schema === 'episodic_review_checklist') return episodicReviewPasses();
    // The module of the wrong kind passes the validator's stages, v1 review included, before the batch checks its kind.
    if (schema === 'review_checklist')
      return reply.json({ checks: Object.fromEntries(REVIEW_CHECKS.map((c) => [c, { ok: true, note: 'fine' }])) });
    const text = userText(body);
    if (text.includes('# Your task: repair'))
      return fenced(
        text.includes("name: 'roman-numeral-sum'") ? episodicFixture('good-hotel-checkin.js') : payrollSource,
      );
    if (text.includes('- name: hotel-checkin')) return fenced(singleTurn);
    if (text.includes('- name: payroll-overtime')) return fenced(brokenPayroll);
    if (text.includes('- name: insurance-claims')) return fenced(episodicFixture('good-insurance-claims.js'));
    return reply.text('no module for that');
  };
}

const root = mkdtempSync(join(tmpdir(), 'envforge-episodic-llm-'));
const libraryDir = join(root, 'library');
const pool = new SandboxPool();
let server: FakeOpenAiServer;
beforeAll(async () => {
  server = await startFakeOpenAi({ script: standIn([[hotel, payroll], [hotel]]) });
});
afterAll(async () => {
  await pool.close();
  await server?.close();
});

describe('a batch with an LLM that writes episodic environments', () => {
  it(
    'admits them, repairing a module of the wrong kind and one whose score paid the incomplete probe, and ' +
      'reviews them with the v2 checklist',
    async () => {
      const library = SqliteLibrary.open(libraryDir, { create: true });
      const ledger = new CostLedger({ batchId: 'ep1' });
      const llm = createOpenAiClient({ baseUrl: server.baseUrl, model: 'fake-model', ledger, cache: false });
      const options = {
        ...DEFAULT_BATCH_OPTIONS,
        batchId: 'ep1',
        kind: 'episodic' as const,
        target: 2,
        maxCandidates: 2,
        concurrency: 2,
        repairRounds: 1,
        review: true,
      };
      const report = await runBatch({ library, pool, llm, ledger }, options);
      expect(report.admitted.map((a) => [a.name, a.attempts]).sort()).toEqual([
        ['hotel-checkin', 2],
        ['payroll-overtime', 2],
      ]);
      expect(report.rejections.map((r) => [r.spec, r.attempt, r.codes]).sort()).toEqual([
        ['hotel-checkin', 1, ['E_WRONG_KIND']],
        ['payroll-overtime', 1, ['E_ACCEPTS_INCOMPLETE']],
      ]);
      const admitted = await library.get('payroll-overtime');
      expect(admitted?.meta).toMatchObject({ kind: 'episodic' });
      expect(admitted?.lineage).toMatchObject({
        author: 'openai:fake-model',
        parent: 'payroll-overtime#0',
        spec: { kind: 'episodic', episodic: { finishTool: 'submit_payroll' } },
      });
      await library.close();

      const bodies = server.requests.map((r) => r.body as Body);
      const architect = bodies.find((b) => b.response_format?.json_schema?.name === 'architect_specs') as Body;
      expect(architect.response_format?.json_schema?.strict).toBe(true);
      expect(userText(architect)).toContain('Propose episodic specs only');
      const generator = bodies.find(
        (b) => userText(b).includes('- name: payroll-overtime') && !userText(b).includes('# Your task: repair'),
      ) as Body;
      expect(userText(generator)).toContain('## Contract v2: episodic environments');
      expect(userText(generator)).toContain('- finishing tool: submit_payroll');
      const repairs = bodies
        .filter((b) => userText(b).includes('You are repairing an envforge episodic environment'))
        .map(userText);
      expect(repairs).toHaveLength(2);
      expect(repairs.find((t) => t.includes(singleTurn.trimEnd()))).toMatch(
        new RegExp(
          String.raw`1\. \[static\] E_WRONG_KIND: .*\n {3}message: the spec asks for an episodic \(contract v2: ` +
            String.raw`reset, step, score, act\) environment, but the module is single-turn`,
        ),
      );
      const repair = repairs.find((t) => t.includes(brokenPayroll.trimEnd())) as string;
      expect(repair).toMatch(
        new RegExp(
          String.raw`\d+\. \[hack\] E_ACCEPTS_INCOMPLETE: .*\n {3}message: \d+ incomplete probes? reach the ` +
            String.raw`ceiling 0.1 .*Worst: "incomplete \(seed \d+, level \d+\)" scores 1`,
        ),
      );
      expect(repair).toMatch(/ {3}failed probe: incomplete \(seed \d+, level \d+\): score 1, the episode ended by /);
      // Calls are logged in their canonical form (keys sorted: args before tool).
      expect(repair).toMatch(
        / {3}the probe's action log \(its first actions\): \[\{"args":\{"page":1\},"tool":"list_employees"\}/,
      );
      const reviews = bodies.filter((b) => b.response_format?.json_schema?.name === 'episodic_review_checklist');
      expect(reviews).toHaveLength(2);
      expect(userText(reviews[0] as Body)).toContain('`scoresState`');
      expect(userText(reviews[0] as Body)).toContain('`policyEnforced`');
      // The reviewer sees what the agent saw: each reference action with the observation it got back.
      expect(userText(reviews[0] as Body)).toMatch(
        /Reference episode \(each action, then the observation it got\):\n`{3,}text\n1\. [a-z_]+\(\{.*\}\)\n {3}-> \S/,
      );
    },
  );
});

// Runs after the batch above, on its library (already holding two episodic environments: no seeding).
describe('envforge run --kind episodic with an LLM', () => {
  it('asks the architect for episodic specs only and admits the episodic module it writes', async () => {
    const config = join(root, 'empty.config.json');
    writeFileSync(config, '{}');
    server.push(reply.json({ specs: [claims] }));
    const before = server.requests.length;
    const out: string[] = [];
    const err: string[] = [];
    const args = [
      'run',
      '--config',
      config,
      '--base-url',
      server.baseUrl,
      '--model',
      'fake-model',
      '--kind',
      'episodic',
      '--target',
      '1',
      '--max-candidates',
      '1',
      '--repair-rounds',
      '0',
      '--concurrency',
      '1',
      '--no-review',
      '--library',
      libraryDir,
      '--json',
    ];
    const code = await runCli(args, { out: (line) => out.push(line), err: (line) => err.push(line) });
    expect(code, err.join('\n')).toBe(0);
    expect(JSON.parse(out.join('\n')).admitted.map((a: { name: string }) => a.name)).toEqual(['insurance-claims']);
    const architect = server.requests
      .slice(before)
      .map((r) => r.body as Body)
      .find((b) => b.response_format?.json_schema?.name === 'architect_specs') as Body;
    expect(userText(architect)).toContain('Propose episodic specs only');
    expect(userText(architect)).toContain('- hotel-checkin [tool-use, policy-following, assignment] (episodic)');
  });
});
