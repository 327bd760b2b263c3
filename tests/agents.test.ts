// The batch's LLM agents over a scripted client: the architect's specs are checked and de-duplicated
// against the library, modules are pulled out of replies (or the failure is data), repair sees the
// validator's problems, and the reviewer turns failed checklist items into E_REVIEW rejections.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { FakeLlm, reply } from '../agents/llm/fake.js';
import { REVIEW_CHECKS, type EnvSpec } from '../agents/spec.js';
import { listSeeds } from '../library/seeds.js';
import { generateModule, llmReviewer, proposeSpecs, repairModule } from '../agents/llm-author.js';
import { SandboxPool } from '../sandbox/pool.js';
import { validateCandidate } from '../validators/validate.js';
import { CostLedger } from '../agents/llm/cost.js';

const spec = (name: string, taskIdea = `Task ${name}: compute something distinctive about ${name}.`): EnvSpec => ({
  name,
  title: `The ${name} task`,
  skills: ['counting'],
  taskIdea,
  answerFormat: 'One integer N as <answer>N</answer>.',
  difficultyScaling: 'Inputs grow with the level.',
  whyNew: 'No environment trains this yet.',
});
const stats = {
  environments: 1,
  versions: 1,
  byStatus: { active: 1 },
  bySkill: { graphs: 1 },
  byAuthor: { seed: 1 },
  levels: { min: 10, max: 10 },
  rejections: 0,
};
const good = readFileSync(new URL('./fixtures/candidates/good-roman-sum.js', import.meta.url), 'utf8');
const pool = new SandboxPool({ workers: 2 });
afterAll(() => pool.close());

describe('the architect', () => {
  it('returns schema-checked specs minus duplicates of the library and each other, with its prompt hash', async () => {
    const ledger = new CostLedger();
    const llm = new FakeLlm(
      [reply.json({ specs: [spec('coin-paths'), spec('topological-order'), spec('coin-paths'), spec('bit-puzzle')] })],
      { ledger },
    );
    const out = await proposeSpecs(llm, {
      stats,
      n: 3,
      environments: [{ name: 'topological-order', skills: ['graphs'] }],
    });
    expect(out.specs.map((s) => s.name)).toEqual(['coin-paths', 'bit-puzzle']);
    expect(out.dropped.map((d) => d.spec.name)).toEqual(['topological-order', 'coin-paths']);
    expect(out.promptHash).toMatch(/^[0-9a-f]{64}$/);
    expect(ledger.snapshot().byPurpose.architect?.calls).toBe(1);
  });

  it('re-asks when the specs break the schema, then succeeds', async () => {
    const llm = new FakeLlm([
      reply.json({ specs: [{ ...spec('x'), name: 'not.kebab!' }] }),
      reply.json({ specs: [spec('fine-name')] }),
    ]);
    const out = await proposeSpecs(llm, { stats, n: 1 });
    expect(out.specs.map((s) => s.name)).toEqual(['fine-name']);
    expect(llm.requests).toHaveLength(2);
  });
});

describe('the generator and repair', () => {
  it('pull the one module out of a fenced reply', async () => {
    const llm = new FakeLlm([reply.text(`Here is the environment:\n\n\`\`\`js\n${good}\n\`\`\`\n`)]);
    const out = await generateModule(llm, spec('roman-numeral-sum'), { candidateId: 'c1' });
    expect(out.source?.trim()).toBe(good.trim());
    expect(out.problem).toBeUndefined();
  });

  it.each([
    ['no module at all', reply.text('I cannot do that.'), /no/i],
    ['a truncated reply', reply.truncated('```js\nexport const meta = {'), /cut off/],
    ['two modules', reply.text('```js\nexport const a = 1;\n```\n```js\nexport const b = 2;\n```'), /2 ```js blocks/],
  ])('report %s as a problem, not a crash', async (_name, answer, message) => {
    const out = await generateModule(new FakeLlm([answer]), spec('anything'));
    expect(out.source).toBeNull();
    expect(out.problem).toMatch(message);
  });

  it('repair shows the model the validator problems and the code', async () => {
    const broken = `// broken-marker: verify pays for anything\n${envWithAlwaysOne}`;
    const report = await validateCandidate(envWithAlwaysOne, { pool });
    const llm = new FakeLlm([reply.text(`\`\`\`js\n${good}\n\`\`\``)]);
    const out = await repairModule(llm, broken, report);
    expect(out.source?.trim()).toBe(good.trim());
    const sent = JSON.stringify(llm.requests[0]);
    expect(sent).toContain('E_ACCEPTS_EMPTY');
    expect(sent).toContain('broken-marker');
  });
});

const envWithAlwaysOne = good.replace(
  /export function verify\(instance, response\) \{/,
  'export function verify(instance, response) { return 1;',
);

describe('the reviewer as the validator review stage', () => {
  const checks = (failing?: string) =>
    Object.fromEntries(
      REVIEW_CHECKS.map((c) => [
        c,
        { ok: c !== failing, note: c === failing ? 'the prompt does not say which order to use' : 'fine' },
      ]),
    );
  const seed = listSeeds()[0] as { source: string };

  it('admits when every check passes', async () => {
    const llm = new FakeLlm([reply.json({ checks: checks() })]);
    const report = await validateCandidate(seed.source, { pool, reviewer: llmReviewer(llm) });
    expect(report.verdict).toBe('admit');
    expect(report.stages.find((s) => s.stage === 'review')).toMatchObject({ ok: true });
  });

  it('shows the reviewer samples spread over the levels, level 1 and the top level among them', async () => {
    const llm = new FakeLlm([reply.json({ checks: checks() })]);
    await validateCandidate(seed.source, { pool, reviewer: llmReviewer(llm) });
    const prompt = llm.requests[0]?.messages.map((m) => m.content).join('\n') ?? '';
    const levels = [...prompt.matchAll(/### Sample \d+ \(level (\d+), seed \d+\)/g)].map((m) => Number(m[1]));
    expect(levels).toHaveLength(6);
    expect(levels[0]).toBe(1);
    expect(levels.at(-1)).toBe(10);
    expect(new Set(levels).size).toBe(6);
  });

  it('rejects with E_REVIEW naming the failed check and its note', async () => {
    const llm = new FakeLlm([reply.json({ checks: checks('promptUnambiguous') })]);
    const report = await validateCandidate(seed.source, { pool, reviewer: llmReviewer(llm) });
    expect(report.verdict).toBe('reject');
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'E_REVIEW',
        stage: 'review',
        message: expect.stringMatching(/promptUnambiguous.*which order/),
      }),
    ]);
  });

  it('is not asked when an earlier stage already failed (no LLM spend on a rejected candidate)', async () => {
    const llm = new FakeLlm([]);
    const report = await validateCandidate(envWithAlwaysOne, { pool, reviewer: llmReviewer(llm) });
    expect(report.verdict).toBe('reject');
    expect(llm.requests).toHaveLength(0);
  });
});
