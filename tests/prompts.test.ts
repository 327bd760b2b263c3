// The agents' prompts and specs: templates render deterministically with the contract and seeds in them,
// rendering fails loudly on a bad variable, hashes version the templates, model replies yield one module,
// and spec schemas, the taxonomy and spec dedupe behave.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LibraryStats } from '../library/contract.js';
import { PROMPTS_DIR } from '../contract/paths.js';
import { listSeeds } from '../library/seeds.js';
import {
  contractText,
  fillTemplate,
  loadPrompt,
  pickExamples,
  PROMPT_NAMES,
  PromptError,
  promptHash,
  renderArchitect,
  renderGenerator,
  renderRepair,
  renderReviewer,
  seedSkills,
} from '../agents/prompts.js';
import { extractModule } from '../agents/module-text.js';
import { ArchitectOutputSchema } from '../agents/architect-schema.js';
import {
  EnvSpecSchema,
  failedChecks,
  REVIEW_CHECKS,
  ReviewSchema,
  SKILL_TAXONOMY,
  taxonomySkills,
  type EnvSpec,
} from '../agents/spec.js';
import { dedupeSpecs } from '../agents/spec-dedupe.js';
import type { ValidationReport } from '../validators/report.js';

const spec = (over: Partial<EnvSpec> = {}): EnvSpec => ({
  name: 'shortest-path-length',
  title: 'Length of a shortest path',
  skills: ['graphs', 'shortest-paths'],
  taskIdea:
    'Given a weighted directed graph as an edge list, report the length of a shortest path from node A to node B.',
  answerFormat: 'One integer inside <answer>…</answer>.',
  difficultyScaling: 'Level 1 has 5 nodes; level 10 has 60 nodes with many near-optimal detours.',
  whyNew: 'No environment trains weighted shortest paths.',
  ...over,
});

const stats: LibraryStats = {
  environments: 12,
  versions: 13,
  byStatus: { active: 12 },
  bySkill: { 'dynamic-programming': 3, graphs: 1, strings: 1 },
  byAuthor: { seed: 12 },
  levels: { min: 10, max: 10 },
  rejections: 4,
};

const report: Pick<ValidationReport, 'problems' | 'stages'> = {
  stages: [
    { stage: 'static', ok: true, metrics: {}, problems: [], ms: 1 },
    { stage: 'hack', ok: false, metrics: {}, problems: [], ms: 3 },
    { stage: 'diversity', ok: false, skipped: 'an earlier stage failed', metrics: {}, problems: [], ms: 0 },
  ],
  problems: [
    {
      stage: 'hack',
      code: 'E_ACCEPTS_PERTURBED',
      message: 'verify scored 1 for the reference with 7 changed to 8',
      evidence: { seed: 3, level: 2, response: '<answer>8</answer>', score: 1 },
    },
    { stage: 'hack', code: 'E_ANSWER_LEAK', message: 'the answer appears in the prompt' },
  ],
};

const reviewerInput = () => ({
  source: listSeeds()[0]!.source,
  meta: {
    name: 'dice-probability',
    title: 'Dice',
    description: 'Probability of dice sums.',
    skills: ['probability'],
    levels: 10,
  },
  samples: [
    { seed: 1, level: 1, prompt: 'Roll two dice… Answer as <answer>p/q</answer>.', reference: '<answer>1/6</answer>' },
  ],
});

describe('rendered prompts', () => {
  it('include the environment contract verbatim in the generator, repair and reviewer prompts', () => {
    const contract = contractText();
    expect(contract).toContain('export function verify(instance, response)');
    expect(renderGenerator({ spec: spec() }).text).toContain(contract);
    expect(renderRepair({ source: 'export const meta = {};', report }).text).toContain(contract);
    expect(renderReviewer(reviewerInput()).text).toContain(contract);
  });

  it(
    'tell the generator how the difficulty stage measures levels, and that a ±1 change that is ' +
      'still valid may be accepted',
    () => {
      const text = renderGenerator({ spec: spec() }).text.replace(/\s+/g, ' ');
      expect(text).toMatch(
        /rank correlation of the level with the instance's size .* reference work .* magnitude of the numbers/,
      );
      expect(text).toMatch(/small dip between two adjacent levels is fine/);
      expect(text).toMatch(/changed by ±1 .* judged against chance .* still a correct answer .* accepting it is right/);
    },
  );

  it("include the chosen seeds in full as the generator's examples, preferring seeds that share a skill", () => {
    const seeds = listSeeds();
    const examples = pickExamples(spec({ skills: ['dynamic-programming'] }));
    expect(examples).toHaveLength(2);
    for (const seed of examples) expect(seedSkills(seed.source)).toContain('dynamic-programming');
    const text = renderGenerator({ spec: spec({ skills: ['dynamic-programming'] }) }).text;
    for (const seed of examples) expect(text).toContain(seed.source.trimEnd());
    const given = renderGenerator({ spec: spec(), examples: seeds.slice(0, 2) }).text;
    expect(given).toContain(seeds[0]!.source.trimEnd());
    expect(given).toContain(seeds[1]!.source.trimEnd());
  });

  it('include the spec, its name as the required meta.name, and ask for one js block', () => {
    const text = renderGenerator({ spec: spec() }).text;
    expect(text).toContain('shortest-path-length');
    expect(text).toContain(spec().taskIdea);
    expect(text).toMatch(
      new RegExp(
        'ONE complete JavaScript module, whose `meta.name` is exactly `shortest-path-length`, in a ' +
          'single ```js fenced block',
      ),
    );
  });

  it("give the repair model each problem's code, stage, meaning, message and evidence JSON", () => {
    const text = renderRepair({ source: 'export const meta = { name: "x" };', report }).text;
    expect(text).toContain('[hack] E_ACCEPTS_PERTURBED: verify rewards perturbed references');
    expect(text).toContain('message: verify scored 1 for the reference with 7 changed to 8');
    expect(text).toContain('evidence: {"seed":3,"level":2,"response":"<answer>8</answer>","score":1}');
    expect(text).toContain('E_ANSWER_LEAK: the answer can be read off the prompt');
    expect(text).toContain('- diversity: not run (an earlier stage failed)');
    expect(text).toContain('export const meta = { name: "x" };');
  });

  it('cut long evidence to a bounded length', () => {
    // Measured against the same report with tiny evidence: the prompt's own text (the contract) grows with the
    // validator.
    const withEvidence = (response: string) => ({
      ...report,
      problems: [{ stage: 'hack' as const, code: 'E_ACCEPTS_HUGE' as const, message: 'huge', evidence: { response } }],
    });
    const base = renderRepair({ source: 'export {}', report: withEvidence('x') }).text.length;
    expect(
      renderRepair({ source: 'export {}', report: withEvidence('x'.repeat(100_000)) }).text.length - base,
    ).toBeLessThan(2_000);
  });

  it('steer the architect with stats, uncovered skills, weak skills and N', () => {
    const text = renderArchitect({
      stats,
      n: 4,
      weakSkills: [
        { skill: 'probability', passRate: 0.12, n: 200 },
        { skill: 'logic', passRate: 0 },
      ],
    }).text;
    expect(text).toContain('Reply with exactly 4 specs');
    expect(text).toContain('dynamic-programming 3, graphs 1, strings 1');
    expect(text).toContain('10 to 10');
    expect(text).toMatch(/no environment yet: [^\n]*shortest-paths/);
    expect(text).not.toMatch(/no environment yet: [^\n]*\bgraphs,/);
    expect(text).toContain('- probability: pass rate 12.0% over 200 samples');
    expect(text).toContain('- logic: pass rate 0.0% (never solved');
    expect(renderArchitect({ stats, n: 2 }).text).toContain('(no trainer feedback for this batch)');
  });

  it('ask the reviewer every check of the review schema, with the samples', () => {
    const text = renderReviewer(reviewerInput()).text;
    for (const check of REVIEW_CHECKS) expect(text).toContain(`\`${check}\``);
    expect(text).toContain('<answer>1/6</answer>');
  });

  it('are deterministic: same inputs, same text and hash', () => {
    const render = () => [
      renderGenerator({ spec: spec() }),
      renderArchitect({ stats, n: 3, weakSkills: [{ skill: 'logic', passRate: 0.2 }] }),
      renderRepair({ source: 'export {}', report }),
      renderReviewer(reviewerInput()),
    ];
    expect(render()).toEqual(render());
    expect(pickExamples(spec()).map((s) => s.name)).toEqual(pickExamples(spec()).map((s) => s.name));
  });
});

describe('fillTemplate', () => {
  it.each([
    ['a placeholder without a value', '{{a}} and {{b}}', { a: '1' }, /missing variable "b"/],
    ['a value without a placeholder', '{{a}}', { a: '1', c: '2' }, /no placeholder for "c"/],
    ['a malformed placeholder', '{{a}} {{ not valid }}', { a: '1' }, /malformed placeholder \{\{ not valid \}\}/],
  ])('rejects %s', (_what, template, vars, message) => {
    expect(() => fillTemplate('t', template, vars)).toThrow(message);
    expect(() => fillTemplate('t', template, vars)).toThrow(PromptError);
  });

  it('fills every placeholder once and never re-scans inserted text', () => {
    expect(fillTemplate('t', '{{a}}-{{a}}-{{b}}', { a: '{{b}}', b: 2 })).toBe('{{b}}-{{b}}-2');
  });

  it('throws for a missing variable of a real template', () => {
    expect(() =>
      fillTemplate('generator', loadPrompt('generator'), { contract: 'c', examples: 'e', spec: 's' }),
    ).toThrow(/missing variable "specName"/);
  });

  it('throws for an unknown prompt name', () => {
    expect(() => loadPrompt('nope' as 'architect')).toThrow(/unknown prompt "nope"/);
  });
});

describe('promptHash', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('is the stable sha256 of the template, and changes when the template changes', () => {
    dir = mkdtempSync(join(tmpdir(), 'envforge-prompts-'));
    cpSync(PROMPTS_DIR, dir, { recursive: true });
    for (const name of PROMPT_NAMES) {
      expect(promptHash(name)).toMatch(/^[0-9a-f]{64}$/);
      expect(promptHash(name, { dir })).toBe(promptHash(name));
    }
    const before = promptHash('repair', { dir });
    writeFileSync(join(dir, 'repair.md'), `${loadPrompt('repair')}\nOne more instruction.\n`);
    expect(promptHash('repair', { dir })).not.toBe(before);
    expect(promptHash('generator', { dir })).toBe(promptHash('generator'));
    expect(renderRepair({ source: 'export {}', report }, { dir }).hash).toBe(promptHash('repair', { dir }));
  });
});

describe('extractModule', () => {
  const mod = 'export const meta = {};\nexport function generate(rng, level) { return { prompt: `a ``` b` }; }\n';

  it.each([
    ['a ```js block with prose around it', `Here it is:\n\`\`\`js\n${mod}\`\`\`\nDone.`],
    ['a ```javascript block', `\`\`\`javascript\n${mod}\`\`\``],
    ['a ```JS block after a ```json block', `\`\`\`json\n{"a":1}\n\`\`\`\n\`\`\`JS\n${mod}\`\`\``],
    ['a single unlabelled block holding exports', `\`\`\`\n${mod}\`\`\``],
    ['a bare module', mod],
    ['a bare module that opens with comments', `// Trains counting.\n/* more */\n${mod}`],
  ])('takes %s', (_what, reply) => {
    expect(extractModule(reply)).toBe(reply.startsWith('//') ? `// Trains counting.\n/* more */\n${mod}` : mod);
  });

  it.each([
    [
      'two js blocks (ambiguous: the prompt asks for one)',
      `\`\`\`js\n${mod}\`\`\`\n\`\`\`js\nconsole.log(1)\n\`\`\``,
      /2 ```js blocks/,
    ],
    ['no block and no export', 'Sorry, I cannot help with that.', /no JavaScript module/],
    ['a truncated js block', `\`\`\`js\n${mod}export function solve(`, /not closed/],
    ['only a non-js block', '```python\nprint(1)\n```', /no JavaScript module/],
  ])('rejects %s', (_what, reply, message) => {
    expect(() => extractModule(reply)).toThrow(message);
  });
});

describe('spec schemas', () => {
  it('accept a good spec and an architect output of specs', () => {
    expect(EnvSpecSchema.parse(spec())).toEqual(spec());
    expect(ArchitectOutputSchema.parse({ specs: [spec(), spec({ name: 'other' })] }).specs).toHaveLength(2);
  });

  it.each(['shortest.path', '-path', 'path-', 'a--b', '1path', '', 'x'.repeat(65)])('reject the name %j', (name) => {
    expect(EnvSpecSchema.safeParse(spec({ name })).success).toBe(false);
  });

  it.each([
    ['no skills', { skills: [] }],
    ['six skills', { skills: ['a', 'b', 'c', 'd', 'e', 'f'] }],
    ['six distinct skills after normalising', { skills: ['a', 'B', 'c', 'd', 'e', 'f '] }],
    ['a non-kebab skill', { skills: ['graphs!'] }],
    ['an empty task idea', { taskIdea: '   ' }],
  ])('reject %s', (_what, over) => {
    expect(EnvSpecSchema.safeParse(spec(over as Partial<EnvSpec>)).success).toBe(false);
  });

  it('normalise what is safe before judging: surrounding whitespace, case, word gaps, repeated tags', () => {
    const sloppy = EnvSpecSchema.parse(
      spec({ name: ' Shortest_Path ', skills: ['Graphs', 'graphs ', 'Shortest Paths', 'graphs', 'shortest-paths'] }),
    );
    expect(sloppy).toEqual(spec({ name: 'shortest-path', skills: ['graphs', 'shortest-paths'] }));
  });

  it('check reviews and list failed checks in checklist order', () => {
    const checks = Object.fromEntries(
      REVIEW_CHECKS.map((c) => [c, { ok: c !== 'noLeak' && c !== 'formatStated', note: 'n' }]),
    );
    const review = ReviewSchema.parse({ checks });
    expect(failedChecks(review)).toEqual(['formatStated', 'noLeak']);
    expect(ReviewSchema.safeParse({ checks: { ...checks, noLeak: { ok: 'yes', note: '' } } }).success).toBe(false);
  });
});

describe('SKILL_TAXONOMY', () => {
  it("covers every seed's skills, in kebab-case, each skill in one area", async () => {
    const skills = taxonomySkills();
    expect(skills.length).toBeGreaterThanOrEqual(30);
    expect(new Set(skills).size).toBe(skills.length);
    for (const skill of skills) expect(EnvSpecSchema.shape.name.safeParse(skill).success, skill).toBe(true);
    for (const seed of listSeeds()) {
      const { meta } = (await import(seed.file)) as { meta: { skills: string[] } };
      expect(seedSkills(seed.source)).toEqual(meta.skills);
      for (const skill of meta.skills) expect(skills, `${seed.name}: ${skill}`).toContain(skill);
    }
    expect(Object.keys(SKILL_TAXONOMY).length).toBeGreaterThanOrEqual(8);
  });
});

describe('dedupeSpecs', () => {
  const idea = (name: string, taskIdea: string, skills = ['graphs']) => spec({ name, taskIdea, skills });

  it('drops specs whose name is in the library', () => {
    const { kept, dropped } = dedupeSpecs([spec({ name: 'knapsack-value' }), spec()], ['knapsack-value']);
    expect(kept.map((s) => s.name)).toEqual(['shortest-path-length']);
    expect(dropped).toEqual([{ spec: spec({ name: 'knapsack-value' }), reason: 'name exists in the library' }]);
  });

  it('keeps the first of two specs with the same name', () => {
    const a = idea('same', 'Count the islands in a grid of land and water.');
    const b = idea('same', 'Sort a deck of cards by suit and rank, then report the position of a card.');
    const { kept, dropped } = dedupeSpecs([a, b], []);
    expect(kept).toEqual([a]);
    expect(dropped[0]?.reason).toBe('duplicates spec "same" (same name)');
  });

  it('drops near-identical task ideas (token Jaccard ≥ 0.8 after normalisation) and keeps different ones', () => {
    const a = idea('a', 'Given a weighted directed graph, report the length of the shortest path from S to T.');
    const b = idea('b', 'given a WEIGHTED, directed graph: report the length of the shortest path from s to t!');
    const c = idea('c', 'Given a weighted directed graph, report the number of shortest paths from S to T.');
    const d = idea('d', 'Count the islands in a grid of land and water.');
    const { kept, dropped } = dedupeSpecs([a, b, c, d], []);
    expect(kept.map((s) => s.name)).toEqual(['a', 'c', 'd']);
    expect(dropped.map((x) => [x.spec.name, x.reason])).toEqual([
      ['b', 'duplicates spec "a" (task idea similarity 1.00)'],
    ]);
  });

  it('among duplicates keeps the one adding most uncovered skills, and is order-independent in it', () => {
    const old = idea('old-skills', 'Report the length of the shortest path in a weighted graph.', ['graphs']);
    const fresh = idea('new-skills', 'Report the length of the shortest path in a weighted graph.', [
      'graphs',
      'shortest-paths',
    ]);
    expect(dedupeSpecs([old, fresh], [], ['graphs']).kept).toEqual([fresh]);
    expect(dedupeSpecs([fresh, old], [], ['graphs']).kept).toEqual([fresh]);
    expect(dedupeSpecs([old, fresh], []).kept).toEqual([fresh]);
    expect(dedupeSpecs([old, fresh], [], ['graphs', 'shortest-paths']).kept).toEqual([old]);
  });

  it('is deterministic', () => {
    const specs = [spec(), spec({ name: 'x' }), idea('y', 'Something else entirely about strings.')];
    expect(dedupeSpecs(specs, ['z'], ['graphs'])).toEqual(dedupeSpecs(specs, ['z'], ['graphs']));
  });
});
