// The Author contract (agents/author.ts), run on every author agents/authors.ts registers: the LLM author
// over a scripted fake model, and the offline author. An author proposes schema-valid specs that keep
// clear of the library's names and train skills it can train, writes and repairs modules that load in the
// sandbox under the spec's name (or says why not, never throwing), and reports lineage and accounting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Author } from '../agents/author.js';
import { AUTHORS, type AuthorName } from '../agents/authors.js';
import { FakeLlm, reply } from '../agents/llm/fake.js';
import type { WireRequest } from '../agents/llm/contract.js';
import type { ArchitectInput } from '../agents/prompts.js';
import { EnvSpecSchema, type EnvSpec } from '../agents/spec.js';
import { MetaSchema } from '../contract/schema.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { ValidationReport } from '../validators/report.js';
import { envSource } from './helpers/env-source.js';

const EXISTING = { name: 'existing-env', skills: ['counting'] };
const INPUT: ArchitectInput = {
  n: 3,
  stats: {
    environments: 1,
    versions: 1,
    byStatus: { active: 1 },
    bySkill: { counting: 1 },
    byAuthor: { seed: 1 },
    levels: { min: 3, max: 3 },
    rejections: 0,
  },
  environments: [EXISTING],
};

const specOf = (name: string, skills = ['arithmetic']): EnvSpec => ({
  name,
  title: `The ${name} task`,
  skills,
  taskIdea: `Task ${name}: add ${name.length} to a number and report the sum.`,
  answerFormat: 'One integer N as <answer>N</answer>.',
  difficultyScaling: 'The numbers grow with the level.',
  whyNew: 'Nothing in the library asks for it.',
});

/**
 * A fake model that plays each agent: specs for the architect (one of them a library duplicate), a module named as the
 * prompt asks.
 */
function scriptedModel(): FakeLlm {
  return new FakeLlm((request: WireRequest) => {
    if (request.schema?.name === 'architect_specs')
      return reply.json({ specs: [specOf('fresh-sum'), specOf(EXISTING.name, ['counting']), specOf('another-sum')] });
    const text = request.messages.map((m) => m.content).join('\n');
    const name =
      /meta\.name` is exactly `([a-z0-9-]+)`/.exec(text)?.[1] ??
      /"name":\s*"([a-z0-9-]+)"/.exec(text)?.[1] ??
      'unnamed-env';
    const meta = { name, title: 'Sum', description: 'Add one to a number.', skills: ['arithmetic'], levels: 3 };
    return reply.text(`Here it is:\n\n\`\`\`js\n${envSource({ meta: JSON.stringify(meta) })}\n\`\`\`\n`);
  });
}

/** How each registered author is made for the contract. */
const FIXTURES: Record<AuthorName, () => Author> = {
  llm: () => AUTHORS.llm({ llm: scriptedModel() }),
  offline: () => AUTHORS.offline({ seed: 11 }),
};

const rejection = (source: string): ValidationReport =>
  ({
    verdict: 'reject',
    problems: [{ code: 'E_UNSOLVED', stage: 'solvability', message: 'verify gives the reference 0' }],
    stages: [],
    hash: '',
    name: null,
    meta: null,
    curve: [],
    ms: 0,
    validatorVersion: 'test',
    validationSeed: 1,
    source,
  }) as unknown as ValidationReport;

describe('authors', () => {
  it('every registered author has a fixture, so none skips the contract', () => {
    expect(Object.keys(FIXTURES).sort()).toEqual(Object.keys(AUTHORS).sort());
  });
});

for (const name of Object.keys(AUTHORS) as AuthorName[]) {
  describe(`${name} (Author contract)`, () => {
    let pool: SandboxPool;
    let author: Author;
    let specs: EnvSpec[] = [];
    beforeAll(() => {
      pool = new SandboxPool({ workers: 1 });
      author = FIXTURES[name]();
    });
    afterAll(() => pool.close());

    /**
     * A written module: a source that loads with meta.name = the spec's name, or no source and a reason. A repair
     * may be another design, named after what it is (issue 31: a name says what the module is), so it only loads.
     */
    async function expectModuleFor(
      spec: EnvSpec,
      written: { source: string | null; problem?: string; promptHash: string; costUsd: number; model: string },
      sameName = true,
    ): Promise<void> {
      expect(written.promptHash).toEqual(expect.any(String));
      expect(written.costUsd).toBeGreaterThanOrEqual(0);
      expect(written.model.length).toBeGreaterThan(0);
      if (written.source === null) {
        expect(written.problem?.length).toBeGreaterThan(0);
        return;
      }
      const load = await pool.load(written.source);
      expect(load.ok, JSON.stringify(load)).toBe(true);
      const name = load.ok ? MetaSchema.parse(load.meta).name : '';
      if (sameName) expect(name).toBe(spec.name);
      else expect(name.length).toBeGreaterThan(0);
    }

    it('says who it is, for the batch options and every lineage', () => {
      expect(author.identity.provider.length).toBeGreaterThan(0);
      expect(author.lineageAuthor({ model: 'some-model' }).length).toBeGreaterThan(0);
    });

    it(
      'proposes at most n schema-valid specs, none under a name the library holds, each ' +
        'training a skill it can train',
      async () => {
        const proposed = await author.propose(INPUT);
        specs = proposed.specs;
        expect(specs.length).toBeGreaterThan(0);
        expect(specs.length).toBeLessThanOrEqual(INPUT.n);
        for (const spec of specs) {
          expect(EnvSpecSchema.safeParse(spec).success, spec.name).toBe(true);
          expect(spec.name).not.toBe(EXISTING.name);
          if (author.canTrain) expect(spec.skills.some((s) => author.canTrain?.(s))).toBe(true);
        }
        for (const dropped of proposed.dropped) expect(dropped.reason.length).toBeGreaterThan(0);
        expect(proposed.promptHash.length).toBeGreaterThan(0);
        expect(proposed.costUsd).toBeGreaterThanOrEqual(0);
      },
    );

    it('writes, for each of its specs, a module that loads under the spec name', async () => {
      for (const spec of specs) {
        const written = await author.write(spec);
        expect(written.source, written.problem).not.toBeNull();
        await expectModuleFor(spec, written);
      }
    });

    it('repairs a rejected module into another module for the same spec, or says why it cannot', async () => {
      const spec = specs[0] as EnvSpec;
      const first = await author.write(spec);
      await expectModuleFor(
        spec,
        await author.repair(spec, first.source ?? '', rejection(first.source ?? ''), 1),
        false,
      );
    });

    it('answers a spec it did not propose with a module or a reason, never an exception', async () => {
      const foreign = specOf('foreign-spec');
      await expectModuleFor(foreign, await author.write(foreign));
      // A repair sees the module written for the spec before (the LLM author's repair prompt gets no spec).
      const before = envSource({
        meta: JSON.stringify({
          name: foreign.name,
          title: 'Sum',
          description: 'Add one.',
          skills: ['arithmetic'],
          levels: 3,
        }),
        verify: 'return 0;',
      });
      await expectModuleFor(foreign, await author.repair(foreign, before, rejection(before), 1));
    });

    it('offers the review stage only as a Reviewer', () => {
      if (author.reviewer) expect(typeof author.reviewer().review).toBe('function');
    });
  });
}
