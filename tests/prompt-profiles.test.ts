// The prompt profiles: which of the environment contract's rules each prompt of each profile carries (the
// standard profile quotes the contract verbatim, the compact one its digest), the compact prompts' size
// (under 20k characters besides the module they quote), and how auto picks a profile by the model's name.
import { describe, expect, it } from 'vitest';
import {
  defaultExamples,
  modelBillions,
  PROMPT_PROFILES,
  renderArchitect,
  renderGenerator,
  renderRepair,
  renderReviewer,
  resolveProfile,
  type PromptProfile,
} from '../agents/prompts.js';
import { COMPACT_EXAMPLE_CHARS, examplePool } from '../agents/examples.js';
import type { EnvSpec } from '../agents/spec.js';
import type { ValidationReport } from '../validators/report.js';
import { EPISODIC_RULES, missingRules, SINGLE_RULES, type ContractRule } from './helpers/contract-rules.js';
import { episodicSpec } from './helpers/episodic-spec.js';

const single: EnvSpec = {
  kind: 'single',
  name: 'interval-merge-count',
  title: 'Count intervals after merging',
  skills: ['intervals', 'sorting'],
  taskIdea:
    'Given closed integer intervals, count how many remain after merging every pair that overlaps or touches. '.repeat(
      3,
    ),
  answerFormat: 'One integer inside <answer>N</answer>.',
  difficultyScaling: 'Level 1 has 6 intervals over 0..50; level 10 has 400 intervals over 0..100000, many nested.',
  whyNew: 'No environment trains interval merging.',
};
const tools = ['list_requests', 'get_request', 'check_stock', 'approve', 'reject', 'escalate', 'note', 'close_desk'];
const episodic = (skills: string[]): EnvSpec =>
  episodicSpec('returns-triage', tools, {
    skills,
    taskIdea:
      'Work through the returns queue with the desk tools, applying the stated policy to every request. '.repeat(3),
  });
const families = {
  records: episodic(['tool-use', 'policy-following']),
  web: episodic(['tool-use', 'web-navigation']),
  world: episodic(['tool-use', 'exploration']),
};
const meta = (kind?: 'episodic') =>
  ({
    name: 'x',
    title: 'X',
    description: 'X.',
    skills: ['tool-use'],
    levels: 5,
    ...(kind ? { kind, maxTurns: 40, tools: [] } : {}),
  }) as never;
const report: Pick<ValidationReport, 'problems'> = {
  problems: Array.from({ length: 25 }, (_, i) => ({
    stage: 'hack' as const,
    code: 'E_ACCEPTS_PERTURBED' as const,
    message: `probe ${i} was paid`,
    evidence: { response: 'x'.repeat(5000) },
  })),
};
const samples = Array.from({ length: 6 }, (_, i) => ({
  seed: i,
  level: i + 1,
  prompt: 'A long prompt. '.repeat(300),
  reference: JSON.stringify(
    Array.from({ length: 40 }, (_, t) => ({ tool: 'get_request', args: { id: `R-${1000 + t}` } })),
  ),
  observations: Array.from({ length: 40 }, () => 'An observation line. '.repeat(40)),
}));

/** Every prompt that quotes the contract, rendered for one profile. */
function prompts(
  profile: PromptProfile,
  source = 'export const meta = {};',
): Array<{ prompt: string; rules: ContractRule[]; text: string; quoted: number }> {
  const o = { profile };
  return [
    { prompt: 'generator', rules: SINGLE_RULES, text: renderGenerator({ spec: single }, o).text, quoted: 0 },
    { prompt: 'repair', rules: SINGLE_RULES, text: renderRepair({ source, report }, o).text, quoted: source.length },
    {
      prompt: 'reviewer',
      rules: SINGLE_RULES,
      text: renderReviewer({ source, meta: meta(), samples }, o).text,
      quoted: source.length,
    },
    ...Object.entries(families).map(([family, spec]) => ({
      prompt: `generator-episodic (${family})`,
      rules: EPISODIC_RULES,
      text: renderGenerator({ spec }, o).text,
      quoted: 0,
    })),
    {
      prompt: 'repair-episodic',
      rules: EPISODIC_RULES,
      text: renderRepair({ source, report, kind: 'episodic' }, o).text,
      quoted: source.length,
    },
    {
      prompt: 'reviewer-episodic',
      rules: EPISODIC_RULES,
      text: renderReviewer({ source, meta: meta('episodic'), samples }, o).text,
      quoted: source.length,
    },
  ];
}

/**
 * What each profile's prompts leave out of the contract's rules: the standard episodic reviewer is not told what the
 * automated checks (which passed) test.
 */
const LEFT_OUT: Record<PromptProfile, Record<string, string[]>> = {
  standard: { 'reviewer-episodic': ['validator-probes', 'episode-grows-with-level'] },
  compact: {},
};

describe.each(PROMPT_PROFILES)('the %s profile', (profile) => {
  it.each(prompts(profile).map((p) => [p.prompt, p] as const))(
    "%s carries the contract's rules",
    (name, { text, rules }) => {
      const expected = LEFT_OUT[profile][name] ?? [];
      expect(missingRules(text, rules), `${profile} ${name} lacks rules`).toEqual(expected);
      expect(expected.every((id) => rules.find((r) => r.id === id)?.authorOnly)).toBe(true);
      // The rules each prompt carries, for the record: all of its kind's but those left out.
      expect(rules.map((r) => r.id).filter((id) => !expected.includes(id))).toHaveLength(
        rules.length - expected.length,
      );
    },
  );
});

describe('the compact profile', () => {
  it(
    'keeps every prompt under 20k characters besides the module it quotes, with the largest ' +
      'example module as that module',
    () => {
      const largest = [...examplePool('single'), ...examplePool('episodic')].reduce((a, b) =>
        b.source.length > a.source.length ? b : a,
      ).source;
      for (const { prompt, text, quoted } of prompts('compact', largest))
        expect(text.length - quoted, prompt).toBeLessThan(20_000);
      const architect = renderArchitect(
        {
          stats: { environments: 0, versions: 0, byStatus: {}, bySkill: {}, byAuthor: {}, levels: null, rejections: 0 },
          n: 6,
          kind: 'mixed',
          environments: examplePool('single').map((s) => ({ name: s.name, skills: ['a', 'b'] })),
        },
        { profile: 'compact' },
      );
      expect(architect.text.length).toBeLessThan(20_000);
    },
  );

  it("is much shorter than the standard profile, and shows one short example of the spec's family", () => {
    for (const [i, { text }] of prompts('compact').entries())
      expect(text.length).toBeLessThan((prompts('standard')[i]?.text.length ?? 0) * 0.75);
    expect(defaultExamples(families.web, 'compact').map((s) => s.name)).toEqual(['rail-ticket-site']);
    expect(defaultExamples(families.world, 'compact').map((s) => s.name)).toEqual(['parcel-depot-grid']);
    expect(defaultExamples(families.records, 'compact').map((s) => s.name)).toEqual(['returns-desk']);
    for (const spec of [single, ...Object.values(families)])
      for (const seed of defaultExamples(spec, 'compact'))
        expect(seed.source.length).toBeLessThanOrEqual(COMPACT_EXAMPLE_CHARS);
  });
});

describe('auto', () => {
  it.each([
    ['qwen2.5-coder:7b', 7, 'compact'],
    ['Qwen/Qwen2.5-32B-Instruct', 32, 'compact'],
    ['Qwen3-30B-A3B', 30, 'compact'],
    ['mixtral-8x7b-instruct', 7, 'compact'],
    ['meta-llama/Llama-3.3-70B-Instruct', 70, 'standard'],
    ['deepseek-r1:671b', 671, 'standard'],
    ['gpt-4.1-mini', undefined, 'standard'],
    ['claude-sonnet-4-5', undefined, 'standard'],
  ])('reads %s as %s billion parameters: the %s profile', (model, billions, profile) => {
    expect(modelBillions(model)).toBe(billions);
    expect(resolveProfile('auto', model)).toBe(profile);
  });

  it('never overrides a profile chosen outright', () => {
    expect(resolveProfile('standard', 'qwen2.5-coder:7b')).toBe('standard');
    expect(resolveProfile('compact', 'gpt-4.1')).toBe('compact');
  });
});
