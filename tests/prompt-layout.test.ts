// What the prompts carry and where: the stable text (contract, instructions, examples) first and
// byte-identical across calls, its end marked for the providers' prompt caches; the reviewer's episodic
// samples with their observations; the architect's contract rules and output cap, sized for the kind
// mix; examples chosen by family; and the architect's schema carrying only the batch's kinds.
import { describe, expect, it } from 'vitest';
import { architectOutputSchema } from '../agents/architect-schema.js';
import { FakeLlm, reply } from '../agents/llm/fake.js';
import { toOutputSchema } from '../agents/llm/structured.js';
import { createAnthropicClient } from '../agents/llm/anthropic.js';
import { CostLedger } from '../agents/llm/cost.js';
import { llmReviewer, proposeSpecs } from '../agents/llm-author.js';
import {
  ARCHITECT_MAX_TOKENS,
  architectBudget,
  contractText,
  defaultExamples,
  pickExamples,
  renderArchitect,
  renderGenerator,
  renderRepair,
  renderReviewer,
} from '../agents/prompts.js';
import { EPISODIC_REVIEW_CHECKS, type EnvSpec } from '../agents/spec.js';
import { episodicSpec } from './helpers/episodic-spec.js';
import { startFakeAnthropic } from './helpers/fake-anthropic.js';

const single = (name: string, skills: string[]): EnvSpec => ({
  kind: 'single',
  name,
  title: name,
  skills,
  taskIdea: `The ${name} task.`,
  answerFormat: 'One integer as <answer>N</answer>.',
  difficultyScaling: 'Grows.',
  whyNew: 'New.',
});
const stats = {
  environments: 2,
  versions: 2,
  byStatus: { active: 2 },
  bySkill: { graphs: 2 },
  byAuthor: { seed: 2 },
  levels: { min: 5, max: 10 },
  rejections: 0,
};
const report = {
  problems: [{ stage: 'hack' as const, code: 'E_ANSWER_LEAK' as const, message: 'the answer is in the prompt' }],
};
const episodicMeta = {
  name: 'desk',
  title: 'Desk',
  description: 'D.',
  skills: ['tool-use'],
  levels: 5,
  kind: 'episodic',
  maxTurns: 40,
  tools: [],
} as never;

/** The longest common prefix of two texts. */
const shared = (a: string, b: string): number => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i;
};

describe('stable prefixes', () => {
  it('put the contract first and mark where the stable text ends: two specs of a kind share it byte for byte', () => {
    const a = renderGenerator({ spec: single('roman-total', ['arithmetic', 'parsing']) });
    const b = renderGenerator({ spec: single('coin-ways', ['dynamic-programming', 'counting']) });
    expect(a.text.startsWith(contractText('single'))).toBe(true);
    expect(a.cacheBreaks).toHaveLength(3);
    expect(a.cacheBreaks[0]).toBe(contractText('single').length);
    // Contract and instructions are stable; the examples (chosen per spec) and the spec come after them.
    expect(shared(a.text, b.text)).toBeGreaterThanOrEqual(a.cacheBreaks[1] as number);
    expect(a.text.slice(0, a.cacheBreaks[1])).toBe(b.text.slice(0, b.cacheBreaks[1]));
    expect(a.text.indexOf('- name: roman-total')).toBeGreaterThan(a.cacheBreaks[2] as number);
  });

  it("give repair the generator's contract prefix, and every review of a kind the same contract and checklist", () => {
    const spec = episodicSpec('desk-queue', ['list_items', 'set_item', 'finish']);
    const generator = renderGenerator({ spec });
    const repair = renderRepair({ source: 'export const meta = {};', report, kind: 'episodic' });
    expect(repair.text.slice(0, repair.cacheBreaks[0])).toBe(generator.text.slice(0, generator.cacheBreaks[0]));
    const one = renderReviewer({ source: 'export const a = 1;', meta: episodicMeta, samples: [] });
    const two = renderReviewer({ source: 'export const b = 2;', meta: episodicMeta, samples: [] });
    expect(one.cacheBreaks).toHaveLength(2);
    expect(one.text.slice(0, one.cacheBreaks[1])).toBe(two.text.slice(0, two.cacheBreaks[1]));
    expect(one.text.slice(0, one.cacheBreaks[1])).toContain('`policyEnforced`');
    expect(one.text.indexOf('export const a = 1;')).toBeGreaterThan(one.cacheBreaks[1] as number);
  });

  it(
    "let a second review of a kind read the contract and checklist from Anthropic's cache, and " +
      'the cost report count it',
    async () => {
      const server = await startFakeAnthropic();
      try {
        const ledger = new CostLedger();
        const client = createAnthropicClient({
          model: 'claude-sonnet-4-test',
          baseUrl: server.baseUrl,
          apiKey: 'k',
          ledger,
        });
        const pass = { checks: Object.fromEntries(EPISODIC_REVIEW_CHECKS.map((c) => [c, { ok: true, note: 'fine' }])) };
        server.push(reply.json(pass), reply.json(pass));
        await llmReviewer(client).review({ source: 'export const a = 1;', meta: episodicMeta, samples: [] });
        await llmReviewer(client).review({ source: 'export const b = 2;', meta: episodicMeta, samples: [] });
        const blocks = server.requests[1]?.body.messages[0].content as Array<{ cache_control?: unknown }>;
        expect(blocks.map((b) => b.cache_control !== undefined)).toEqual([true, true, false]);
        const { byPurpose } = ledger.snapshot();
        expect(byPurpose['reviewer']?.cacheWriteTokens).toBeGreaterThan(1024);
        expect(byPurpose['reviewer']?.cachedInputTokens).toBe(byPurpose['reviewer']?.cacheWriteTokens);
      } finally {
        await server.close();
      }
    },
  );

  it("are sent as the message's cache breaks", async () => {
    const llm = new FakeLlm([reply.text('```js\nexport const meta = {};\n```')]);
    const { generateModule } = await import('../agents/llm-author.js');
    await generateModule(llm, single('roman-total', ['arithmetic']));
    const sent = llm.requests[0]?.messages[0];
    expect(sent?.cacheBreaks).toEqual(renderGenerator({ spec: single('roman-total', ['arithmetic']) }).cacheBreaks);
  });
});

describe('the episodic reviewer', () => {
  const actions = [
    { tool: 'list_items', args: {} },
    { tool: 'set_item', args: { id: 'AB-1234', value: 'open' } },
    { tool: 'finish', args: {} },
  ];
  const sample = (over = {}) => ({
    seed: 7,
    level: 1,
    prompt: 'Set every item.',
    reference: JSON.stringify(actions),
    observations: ['Items: AB-1234.', 'AB-1234 is open.', 'Done.'],
    ...over,
  });

  it('sees each reference action with the observation it got back', () => {
    const text = renderReviewer({ source: 'x', meta: episodicMeta, samples: [sample()] }).text;
    expect(text).toContain('Reference episode (each action, then the observation it got):');
    expect(text).toContain(
      '1. list_items({})\n   -> Items: AB-1234.\n2. set_item({"id":"AB-1234","value":"open"})\n   -> AB-1234 ' +
        'is open.\n3. finish({})\n   -> Done.',
    );
  });

  it('sees long observations and long episodes clipped, and samples spread from level 1 to the top level', () => {
    const long = sample({ observations: ['x'.repeat(10_000), 'y', 'z'] });
    expect(renderReviewer({ source: 'x', meta: episodicMeta, samples: [long] }).text).toMatch(
      /-> x{300}… \(9700 more characters\)/,
    );
    const many = Array.from({ length: 6 }, (_, i) => sample({ level: i + 1, seed: i }));
    const shown = [
      ...renderReviewer({ source: 'x', meta: episodicMeta, samples: many }).text.matchAll(
        /### Sample \d+ \(level (\d+)/g,
      ),
    ].map((m) => Number(m[1]));
    expect(shown).toEqual([1, 3, 4, 6]);
  });

  it('without observations, still shows the action log', () => {
    const { observations: _none, ...bare } = sample();
    expect(renderReviewer({ source: 'x', meta: episodicMeta, samples: [bare] }).text).toContain(
      'Reference action log (what act() did, as JSON):',
    );
  });
});

describe('the architect', () => {
  it('is told the contract rules that shape a spec, and its output cap', () => {
    const text = renderArchitect({ stats, n: 4, kind: 'mixed' }).text;
    expect(text).toMatch(/Placeholders, not example answers\./);
    expect(text).toMatch(/Large id spaces\..*never by small positional ids shared by every instance \(W1\.\.Wn/);
    expect(text).toMatch(/A level 1 that beats guessing\./);
    expect(text).toMatch(
      new RegExp(
        String.raw`maxTurns for an agent that must discover\..*about 2\.5 times the reference's actions.*within ` +
          'about 40 tool calls',
      ),
    );
    expect(text).toMatch(/Every rule costs reward\./);
    expect(text).toMatch(/Lookup is fine, derived values are not\./);
    const { maxTokens } = architectBudget({ n: 4, kind: 'mixed' });
    expect(text).toContain(`Your reply is cut off at ${maxTokens} output tokens`);
  });

  it('asks for fewer specs per call when the kind mix would not fit its output cap, and sends that cap', async () => {
    expect(architectBudget({ n: 6, kind: 'single' })).toMatchObject({ n: 6 });
    expect(architectBudget({ n: 12, kind: 'episodic' })).toMatchObject({ n: 7, maxTokens: 7300 });
    expect(architectBudget({ n: 6, kind: 'episodic' }, 'compact')).toMatchObject({ n: 3 });
    for (const kind of ['single', 'episodic', 'mixed'] as const)
      expect(architectBudget({ n: 50, kind }).maxTokens).toBeLessThanOrEqual(ARCHITECT_MAX_TOKENS.standard);
    expect(renderArchitect({ stats, n: 12, kind: 'episodic' }).text).toContain('Reply with exactly 7 specs');
    const llm = new FakeLlm([reply.json({ specs: [episodicSpec('desk-queue', ['list_items', 'finish'])] })]);
    await proposeSpecs(llm, { stats, n: 12, kind: 'episodic' });
    expect(llm.requests[0]?.maxTokens).toBe(7300);
  });

  it("gets a schema that carries only the batch's kinds", () => {
    const properties = (kind: 'single' | 'episodic' | 'mixed') =>
      Object.keys((toOutputSchema(architectOutputSchema(kind)).jsonSchema.properties as any).specs.items.properties);
    expect(properties('single')).not.toContain('episodic');
    expect(properties('single')).not.toContain('kind');
    expect(properties('episodic')).toContain('episodic');
    expect(properties('episodic')).not.toContain('kind');
    expect(properties('mixed')).toEqual(expect.arrayContaining(['kind', 'episodic']));
    for (const kind of ['single', 'episodic', 'mixed'] as const)
      expect(toOutputSchema(architectOutputSchema(kind)).strict).toBe(true);
  });

  it('keeps a single-turn spec whose episodic part a sloppy model filled, dropping it with a warning', async () => {
    const sloppy = {
      ...episodicSpec('roman-total', ['read', 'finish']),
      kind: undefined,
      answerFormat: 'One integer as <answer>N</answer>.',
    };
    const llm = new FakeLlm([
      reply.json({ specs: [sloppy, { ...single('coin-ways', ['counting']), episodic: sloppy.episodic }] }),
    ]);
    const out = await proposeSpecs(llm, { stats, n: 2, kind: 'single' });
    expect(out.specs.map((s) => [s.name, s.kind, s.episodic])).toEqual([
      ['roman-total', 'single', undefined],
      ['coin-ways', 'single', undefined],
    ]);
    expect(out.warnings).toEqual([
      'spec "roman-total": dropped the episodic part of a single-turn spec',
      'spec "coin-ways": dropped the episodic part of a single-turn spec',
    ]);
    expect(llm.requests).toHaveLength(1);
  });
});

describe('examples', () => {
  it('are chosen by family: a web flow for a web spec, a world for exploration, records for a desk', () => {
    const names = (skills: string[], tools = ['look', 'finish']) =>
      defaultExamples(episodicSpec('spec-x', tools, { skills })).map((s) => s.name);
    expect(names(['tool-use', 'web-navigation'])).toContain('rail-ticket-site');
    expect(names(['tool-use', 'exploration'])).toEqual(['package-routing', 'parcel-depot-grid']);
    // No skill says it, the tools do: click and view_page are a web site's.
    expect(names(['tool-use'], ['view_page', 'click'])).toContain('rail-ticket-site');
    const records = names(['tool-use', 'policy-following'], ['list_items', 'set_item', 'finish']);
    expect(records).not.toContain('rail-ticket-site');
    expect(records).not.toContain('parcel-depot-grid');
  });

  it("for a single-turn spec, prefer the spec's taxonomy area when no seed shares a skill", () => {
    // No seed trains shortest paths; topological-order is the seed of the graphs area.
    expect(
      pickExamples(single('shortest-path-length', ['shortest-paths']), undefined, { count: 1 }).map((s) => s.name),
    ).toEqual(['topological-order']);
  });
});
