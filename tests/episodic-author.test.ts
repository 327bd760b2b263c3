// The LLM author's episodic path without a sandbox: the episodic part of a spec and its messages, the
// architect's strict schema and its kind instructions (one kind, or mixed by coverage), the v2 generator
// prompt with two episodic seeds and the v2 contract, repair showing a failed probe and its action log,
// the v2 reviewer checklist for episodic candidates only, and the batch's check that a module is of its
// spec's kind.
import { describe, expect, it } from 'vitest';
import { FakeLlm, reply } from '../agents/llm/fake.js';
import { llmReviewer, proposeSpecs } from '../agents/llm-author.js';
import { toOutputSchema } from '../agents/llm/structured.js';
import {
  contractText,
  pickExamples,
  promptHash,
  renderArchitect,
  renderGenerator,
  renderRepair,
  renderReviewer,
  seedSkills,
} from '../agents/prompts.js';
import { ArchitectOutputSchema } from '../agents/architect-schema.js';
import { EnvSpecSchema, EPISODIC_REVIEW_CHECKS, REVIEW_CHECKS, type EnvSpec } from '../agents/spec.js';
import { EPISODIC_SEEDS_DIR } from '../contract/paths.js';
import { listSeeds } from '../library/seeds.js';
import { rejectWrongKind } from '../pipeline/kind-check.js';
import type { ValidationReport } from '../validators/report.js';
import { episodicReviewPasses, episodicSpec } from './helpers/episodic-spec.js';

const stats = {
  environments: 3,
  versions: 3,
  byStatus: { active: 3 },
  bySkill: { graphs: 2, 'tool-use': 1, planning: 1 },
  byAuthor: { seed: 3 },
  levels: { min: 8, max: 10 },
  rejections: 0,
};
const environments = [
  { name: 'graph-a', skills: ['graphs'], kind: 'single' as const },
  { name: 'graph-b', skills: ['graphs'], kind: 'single' as const },
  { name: 'warehouse-restock', skills: ['tool-use', 'planning'], kind: 'episodic' as const },
];
const single: EnvSpec = {
  name: 'shortest-path-length',
  title: 'Shortest path',
  skills: ['graphs'],
  taskIdea: 'Report the length of a shortest path.',
  answerFormat: 'One integer.',
  difficultyScaling: 'More nodes.',
  whyNew: 'New.',
};
const hotel = episodicSpec('hotel-checkin', ['list_arrivals', 'get_reservation', 'assign_room', 'finish_checkin']);
const issues = (value: unknown) =>
  EnvSpecSchema.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];

describe('an episodic spec', () => {
  it('needs its episodic part, with a message naming what it holds; single specs stay as they were', () => {
    expect(issues(single)).toEqual([]);
    expect(issues(hotel)).toEqual([]);
    const { episodic: _part, ...bare } = hotel;
    expect(issues(bare)).toEqual([
      "episodic: a spec of kind 'episodic' needs its episodic part: world, tools (with parameters), " +
        'policy, goal and finishTool',
    ]);
    expect(issues({ ...single, episodic: hotel.episodic })).toEqual([
      expect.stringMatching(/^episodic: only a spec of kind 'episodic' has an episodic part/),
    ]);
  });

  it('names a finishing tool among its tools, each tool once, in snake_case', () => {
    const part = hotel.episodic!;
    expect(issues({ ...hotel, episodic: { ...part, finishTool: 'close_desk' } })).toEqual([
      'episodic.finishTool: episodic.finishTool "close_desk" is not one of the tools (list_arrivals, ' +
        'get_reservation, assign_room, finish_checkin)',
    ]);
    expect(issues({ ...hotel, episodic: { ...part, tools: [...part.tools, part.tools[0]] } })).toEqual([
      'episodic.tools: the tool "list_arrivals" is declared twice',
    ]);
    expect(
      issues({
        ...hotel,
        episodic: { ...part, tools: [{ ...part.tools[0], name: 'List Arrivals' }, ...part.tools.slice(1)] },
      }).join('\n'),
    ).toMatch(/snake_case/);
  });
});

describe('the architect', () => {
  it(
    'asks with a schema OpenAI strict mode takes, every field described, and reads a reply ' +
      'without kind as single-turn',
    () => {
      const out = toOutputSchema(ArchitectOutputSchema);
      expect(out.strict).toBe(true);
      const item = (out.jsonSchema.properties as any).specs.items as {
        properties: Record<string, { description?: string; anyOf?: Array<{ description?: string }> }>;
      };
      for (const [field, schema] of Object.entries(item.properties))
        expect(schema.description ?? schema.anyOf?.[0]?.description, field).toBeTruthy();
      expect(ArchitectOutputSchema.parse({ specs: [single] }).specs[0]).toMatchObject({
        kind: 'single',
        episodic: null,
      });
    },
  );

  it(
    'is told the kind the batch asks for, and with mixed the counts per kind, the uncovered ' +
      'tool-use skills and a split',
    () => {
      expect(renderArchitect({ stats, n: 4, environments }).text).toContain('Propose single-turn specs only');
      expect(renderArchitect({ stats, n: 4, environments, kind: 'episodic' }).text).toContain(
        'Propose episodic specs only',
      );
      const mixed = renderArchitect({ stats, n: 4, environments, kind: 'mixed' }).text;
      expect(mixed).toContain('The library holds 2 single-turn and 1 episodic environment.');
      expect(mixed).toMatch(/no episodic environment yet: information-gathering, policy-following, .*web-navigation\./);
      expect(mixed).not.toMatch(/yet: [^\n]*\btool-use\b/);
      expect(mixed).toContain('Make about 2 of the 4 specs episodic'); // half each, as the batch shares its target
      // the odd one to the kind the library holds fewer of
      expect(renderArchitect({ stats, n: 5, environments, kind: 'mixed' }).text).toContain('Make about 3 of the 5');
      expect(mixed).toContain('- warehouse-restock [tool-use, planning] (episodic)');
      expect(
        renderArchitect({
          stats,
          n: 4,
          environments: [...environments, ...environments.slice(2), ...environments.slice(2)],
          kind: 'mixed',
        }).text,
      ).toContain('Make about 2 of the 4');
    },
  );

  it('re-asks an episodic spec without its episodic part, telling the model what the part holds', async () => {
    const { episodic: _part, ...bare } = hotel;
    const llm = new FakeLlm([reply.json({ specs: [bare] }), reply.json({ specs: [hotel] })]);
    const out = await proposeSpecs(llm, { stats, n: 1, kind: 'episodic' });
    expect(out.specs.map((s) => s.name)).toEqual(['hotel-checkin']);
    expect(llm.requests[1]?.messages.at(-1)?.content).toMatch(
      new RegExp(
        String.raw`a spec of kind 'episodic' needs its episodic part: world, tools \(with parameters\), policy, ` +
          'goal and finishTool',
      ),
    );
  });

  it('keeps only specs of the requested kind, saying why the others were dropped', async () => {
    const llm = new FakeLlm([reply.json({ specs: [single, hotel] })]);
    const out = await proposeSpecs(llm, { stats, n: 2, kind: 'episodic' });
    expect(out.specs.map((s) => [s.name, s.kind])).toEqual([['hotel-checkin', 'episodic']]);
    expect(out.specs[0]?.episodic?.finishTool).toBe('finish_checkin');
    expect(out.dropped).toEqual([
      { spec: { ...single, kind: 'single' }, reason: 'kind single, but the batch asked for episodic environments' },
    ]);
    expect(llm.requests[0]?.schema).toMatchObject({ name: 'architect_specs', strict: true });
    const mixed = await proposeSpecs(new FakeLlm([reply.json({ specs: [single, hotel] })]), {
      stats,
      n: 2,
      kind: 'mixed',
    });
    expect(mixed.specs.map((s) => s.kind)).toEqual(['single', 'episodic']);
  });
});

describe('the generator for an episodic spec', () => {
  const prompt = renderGenerator({ spec: hotel });

  it("uses its own template, the contract v2 text without v1, and the spec's world, tools, policy and goal", () => {
    expect(prompt.hash).toBe(promptHash('generator-episodic'));
    expect(prompt.text).toContain(contractText('episodic'));
    expect(contractText('episodic')).toContain('## Contract v2: episodic environments');
    expect(contractText('episodic')).not.toContain('export function verify(instance, response)');
    for (const line of [
      '- how the agent acts and finishes: One tool call per turn; finish_checkin ends the episode.',
      '- finishing tool: finish_checkin',
      '  - get_reservation(id): The get reservation tool. Parameters: id (string): A record id such as AB-1234.',
      `- policy the agent must follow: ${hotel.episodic!.policy}`,
      `- goal checked on the final state: ${hotel.episodic!.goal}`,
    ])
      expect(prompt.text).toContain(line);
  });

  it('shows two episodic seeds that share the most skills with the spec', () => {
    const examples = pickExamples(hotel, listSeeds(EPISODIC_SEEDS_DIR), { count: 2 });
    expect(examples).toHaveLength(2);
    for (const seed of examples) {
      expect(seedSkills(seed.source)).toEqual(expect.arrayContaining(['tool-use', 'policy-following']));
      expect(prompt.text).toContain(`: ${seed.name}.js`);
    }
    expect(prompt.text).not.toContain('### Example 3');
    expect(renderGenerator({ spec: single }).hash).toBe(promptHash('generator'));
  });
});

describe('repair of an episodic module', () => {
  it('shows the failed probe, where it ran, how it ended and the action log that exposed it', () => {
    const actions = JSON.stringify([
      { tool: 'list_arrivals', args: {} },
      { tool: 'assign_room', args: { code: 'R-4411', room: 204 } },
    ]);
    const text = renderRepair({
      kind: 'episodic',
      source: 'export const meta = {};',
      report: {
        problems: [
          {
            stage: 'hack',
            code: 'E_ACCEPTS_INCOMPLETE',
            message: 'the incomplete probe scores 1 (zero tolerance: below 0.1)',
            evidence: { family: 'incomplete', seed: 77, level: 2, score: 1, end: 'no-action', actions },
          },
        ],
      },
    }).text;
    expect(text).toContain(contractText('episodic'));
    expect(text).toContain('1. [hack] E_ACCEPTS_INCOMPLETE: ');
    expect(text).toContain('   failed probe: incomplete (seed 77, level 2): score 1, the episode ended by no-action');
    expect(text).toContain(`   the probe's action log (its first actions): ${actions}`);
    expect(text).toMatch(/`E_ACCEPTS_INCOMPLETE`: the last reference action is the finishing call/);
  });
});

describe('the reviewer', () => {
  const meta = {
    name: 'hotel-checkin',
    title: 'Hotel',
    description: 'Rooms.',
    skills: ['tool-use'],
    levels: 6,
    kind: 'episodic',
    maxTurns: 50,
    tools: [],
  } as never;
  const samples = [
    { seed: 1, level: 1, prompt: "Check in tonight's guests.", reference: '[{"tool":"finish_checkin","args":{}}]' },
  ];

  it('asks an episodic candidate the v2 checklist and a single-turn one the v1 checklist, unchanged', () => {
    const v2 = renderReviewer({ source: 'x', meta, samples });
    expect(v2.hash).toBe(promptHash('reviewer-episodic'));
    for (const check of EPISODIC_REVIEW_CHECKS) expect(v2.text).toContain(`- \`${check}\`: `);
    expect(v2.text).toContain('Reference action log (what act() did, as JSON):');
    const v1 = renderReviewer({
      source: 'x',
      meta: { ...(meta as object), kind: undefined, tools: undefined } as never,
      samples,
    });
    expect(v1.hash).toBe(promptHash('reviewer'));
    for (const check of REVIEW_CHECKS) expect(v1.text).toContain(`- \`${check}\`: `);
  });

  it('turns a failed v2 check into E_REVIEW, asking with the episodic schema', async () => {
    const failing = {
      checks: Object.fromEntries(
        EPISODIC_REVIEW_CHECKS.map((c) => [
          c,
          {
            ok: c !== 'scoresState',
            note: c === 'scoresState' ? 'score trusts the outcome argument of close_case' : 'fine',
          },
        ]),
      ),
    };
    const llm = new FakeLlm([reply.json(failing), episodicReviewPasses()]);
    const out = await llmReviewer(llm).review({ source: 'x', meta, samples });
    expect(out.ok).toBe(false);
    expect(out.problems).toEqual([
      {
        code: 'E_REVIEW',
        message: 'review check "scoresState" failed: score trusts the outcome argument of close_case',
        evidence: { check: 'scoresState' },
      },
    ]);
    expect(llm.requests[0]?.schema?.name).toBe('episodic_review_checklist');
    expect((await llmReviewer(llm).review({ source: 'x', meta, samples })).ok).toBe(true);
  });
});

describe('a module of another kind than its spec', () => {
  const admitted = (kind?: string): ValidationReport =>
    ({
      verdict: 'admit',
      problems: [],
      stages: [{ stage: 'static', ok: true, metrics: {}, problems: [], ms: 1 }],
      meta: { name: 'x', title: 'X', description: 'x', skills: ['x'], levels: 3, ...(kind ? { kind } : {}) },
    }) as unknown as ValidationReport;

  it('is rejected with E_WRONG_KIND in the static stage, either way round', () => {
    const report = admitted();
    rejectWrongKind(report, hotel);
    expect(report.verdict).toBe('reject');
    expect(report.problems).toEqual([
      {
        code: 'E_WRONG_KIND',
        stage: 'static',
        message:
          'the spec asks for an episodic (contract v2: reset, step, score, act) environment, but the module ' +
          'is single-turn (contract v1: generate, solve, verify)',
      },
    ]);
    expect(report.stages[0]).toMatchObject({ ok: false, problems: [{ code: 'E_WRONG_KIND' }] });
    const reverse = admitted('episodic');
    rejectWrongKind(reverse, { kind: 'single' });
    expect(reverse.problems.map((p) => p.code)).toEqual(['E_WRONG_KIND']);
  });

  it('is left alone when it matches, and a spec that names no kind is not checked', () => {
    for (const [report, spec] of [
      [admitted('episodic'), hotel],
      [admitted(), { kind: 'single' as const }],
      [admitted('episodic'), single],
      [admitted('episodic'), undefined],
    ] as const) {
      rejectWrongKind(report, spec);
      expect(report.verdict).toBe('admit');
    }
  });
});
