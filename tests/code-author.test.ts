// Authors of code environments (contract v3): the architect of a code batch proposes code specs only, the
// LLM author's prompts for a code spec quote contract v3 and show code seeds, the episodic contract no
// longer runs into v3, and the offline author proposes and writes code modules that the code kind claims,
// the same ones for the same seed.
import { describe, expect, it } from 'vitest';
import { createOfflineAuthor } from '../agents/offline/author.js';
import { contractText } from '../agents/prompt-files.js';
import { renderArchitect, renderGenerator, renderRepair } from '../agents/prompts.js';
import { architectLeftovers, architectOutputSchema, toEnvSpec } from '../agents/architect-schema.js';
import type { EnvSpec } from '../agents/spec.js';
import { parseCodeMeta } from '../contract/code.js';
import { kindOf } from '../kinds/registry.js';

const SPEC: EnvSpec = {
  kind: 'code',
  name: 'merge-intervals-code',
  title: 'Merge intervals',
  skills: ['intervals', 'sorting'],
  taskIdea: 'Write a function that merges overlapping closed intervals.',
  answerFormat: 'A JavaScript function mergeIntervals(intervals).',
  difficultyScaling: 'More and longer intervals.',
  whyNew: 'No code environment trains intervals.',
};
const EMPTY_STATS = {
  environments: 0,
  versions: 0,
  byStatus: {},
  bySkill: {},
  byAuthor: {},
  levels: null,
  rejections: 0,
} as never;

describe('the LLM author for code environments', () => {
  it('writes from the code generator prompt: contract v3, code seeds as examples, the spec', () => {
    const prompt = renderGenerator({ spec: SPEC });
    expect(prompt.name).toBe('generator-code');
    expect(prompt.text).toContain('## Contract v3: code environments');
    expect(prompt.text).not.toContain('## Contract v2: episodic environments');
    expect(prompt.text).toMatch(/kind: 'code'/);
    expect(prompt.text).toContain('merge-intervals-code');
    expect(prompt.text).toMatch(/### Example 1: (count-inversions|longest-rising-run|window-averages)\.js/);
  });

  it('repairs from the code repair prompt, and the compact profile has both', () => {
    const report = {
      verdict: 'reject',
      problems: [{ code: 'E_WEAK_TESTS', stage: 'hack', message: 'mutants survive' }],
      stages: [],
    } as never;
    expect(renderRepair({ source: 'export const meta = {};', report, kind: 'code' }).name).toBe('repair-code');
    expect(renderGenerator({ spec: SPEC }, { profile: 'compact' }).text).toContain('Contract v3');
    expect(renderRepair({ source: 'x', report, kind: 'code' }, { profile: 'compact' }).text).toContain('E_WEAK_TESTS');
  });

  it(
    'asks the architect for code specs only in a code batch: a spec without a kind is code, one of another ' +
      'kind is dropped with why',
    () => {
      expect(renderArchitect({ stats: EMPTY_STATS, n: 2, kind: 'code' }).text).toContain('Propose code specs only');
      expect(renderArchitect({ stats: EMPTY_STATS, n: 2, kind: 'code' }).text).not.toContain('episodic environment');
      const { kind: _kind, ...plain } = SPEC;
      const reply = { specs: [plain, { ...plain, name: 'tool-desk', kind: 'episodic' }] };
      const parsed = architectOutputSchema('code').parse(reply);
      expect(parsed.specs.map((s) => toEnvSpec(s, 'code'))).toEqual([SPEC]);
      expect(architectLeftovers(reply, 'code').warnings).toEqual([
        'spec "tool-desk": dropped: kind episodic, but the batch asked for code environments',
      ]);
    },
  );

  it('quotes contract v2 for episodic authors without the v3 section after it', () => {
    const episodic = contractText('episodic');
    expect(episodic).toContain('## Contract v2');
    expect(episodic).not.toContain('## Contract v3');
  });
});

describe('the offline author for code environments', () => {
  it('proposes code specs and writes modules the code kind claims, the same for the same seed', async () => {
    const write = async (seed: number) => {
      const author = createOfflineAuthor({ seed });
      const { specs } = await author.propose({ stats: EMPTY_STATS, n: 3, kind: 'code' });
      return Promise.all(specs.map(async (spec) => ({ spec, source: (await author.write(spec)).source })));
    };
    const first = await write(5);
    expect(first).toHaveLength(3);
    for (const { spec, source } of first) {
      expect(spec.kind).toBe('code');
      const meta = /export const meta = (\{[\s\S]*?\n\});/.exec(source ?? '')?.[1];
      const parsed = parseCodeMeta(JSON.parse(meta ?? 'null'));
      expect(parsed?.name).toBe(spec.name);
      expect(kindOf(parsed).name).toBe('code');
    }
    expect((await write(5)).map((m) => m.source)).toEqual(first.map((m) => m.source));
    expect(new Set(first.map((m) => m.source)).size).toBe(3);
  });
});
