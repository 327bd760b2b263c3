// Each agent's prompt, rendered from its template in prompts/ (agents/prompt-files.ts loads, fills and
// hashes them) under a profile (standard, or compact for small open models): the architect's view of the
// library and its output budget, the generator's spec and examples, the validator report for repair, and
// the reviewer's samples. The contract and the examples come first, byte-identical across calls, so the
// providers' prompt caches can reuse them.
import type { Meta } from '../contract/schema.js';
import type { LibraryStats } from '../library/contract.js';
import type { SeedFile } from '../library/seeds.js';
import type { EnvKind } from '../kinds/contract.js';
import { kindNamed, kindOf, type KindName } from '../kinds/registry.js';
import { defaultExamples } from './examples.js';
import {
  describeProblems,
  describeSamples,
  describeStages,
  type ProblemLimits,
  type ReportPart,
  type ReviewSample,
} from './prompt-parts.js';
import {
  contractText,
  fence,
  PROMPT_NAMES,
  PromptError,
  render,
  type PromptName,
  type PromptOptions,
  type PromptProfile,
  type RenderedPrompt,
} from './prompt-files.js';
import { SKILL_TAXONOMY, specKind, taxonomySkills, type EnvSpec, type RunKind, type SkillTaxonomy } from './spec.js';

export {
  contractText,
  fillTemplate,
  loadPrompt,
  modelBillions,
  PROFILE_CHOICES,
  PROMPT_NAMES,
  PROMPT_PROFILES,
  PromptError,
  promptHash,
  resolveProfile,
  type ProfileChoice,
  type PromptName,
  type PromptOptions,
  type PromptProfile,
  type PromptVars,
  type RenderedPrompt,
} from './prompt-files.js';
export { defaultExamples, pickExamples, seedSkills } from './examples.js';
export type { ReviewSample } from './prompt-parts.js';

// ---- Architect ----

/** A skill the trainer finds hard: pass rate low but not zero is the capability frontier. */
export interface WeakSkill {
  skill: string;
  passRate: number;
  /** How many evaluations the pass rate comes from. */
  n?: number;
}

export interface ArchitectInput {
  stats: LibraryStats;
  taxonomy?: SkillTaxonomy;
  weakSkills?: readonly WeakSkill[];
  /** Skills the trainer has mastered: not worth new environments. */
  saturatedSkills?: readonly WeakSkill[];
  /**
   * This round's share for the weak skills: `slots` of the n specs must each train one of `skills` (most wanted first).
   */
  focus?: { skills: readonly string[]; slots: number };
  /** How many specs to ask for. */
  n: number;
  /** Which kinds of environment to propose; absent means 'single'. With 'mixed' the architect chooses by coverage. */
  kind?: RunKind;
  /**
   * Environments already in the library, so the architect avoids their names and ideas (listed up to a cap); kind
   * absent means single.
   */
  environments?: ReadonlyArray<{ name: string; skills: readonly string[]; kind?: KindName }>;
}

const MAX_LISTED_ENVIRONMENTS = 150;

/** Output tokens an architect reply spends around its specs (each kind's per spec is its plug's architectTokens). */
export const ARCHITECT_OVERHEAD_TOKENS = 300;
/** The architect's output cap per call: specs beyond what it holds are left to the next call. */
export const ARCHITECT_MAX_TOKENS: Record<PromptProfile, number> = { standard: 8192, compact: 4096 };

/** How many specs one architect call asks for, and its output cap: fewer specs when the kind mix would not fit. */
export function architectBudget(
  input: Pick<ArchitectInput, 'n' | 'kind' | 'environments'>,
  profile: PromptProfile = 'standard',
): { n: number; maxTokens: number; perSpec: string } {
  const kind = input.kind ?? 'single';
  const cap = ARCHITECT_MAX_TOKENS[profile];
  const [single, episodic] = [kindNamed('single').architectTokens, kindNamed('episodic').architectTokens];
  const per = (n: number) =>
    kind === 'mixed'
      ? episodicShare(input, n) * episodic + (n - episodicShare(input, n)) * single
      : n * kindNamed(kind).architectTokens;
  let n = Math.max(1, input.n);
  while (n > 1 && ARCHITECT_OVERHEAD_TOKENS + per(n) > cap) n--;
  const perSpec =
    kind === 'mixed'
      ? `${single} tokens per single-turn spec and ${episodic} per episodic one`
      : `${kindNamed(kind).architectTokens} tokens per spec`;
  return { n, maxTokens: Math.min(cap, ARCHITECT_OVERHEAD_TOKENS + per(n)), perSpec };
}

export function renderArchitect(input: ArchitectInput, options: PromptOptions = {}): RenderedPrompt {
  const taxonomy = input.taxonomy ?? SKILL_TAXONOMY;
  const covered = new Set(Object.keys(input.stats.bySkill));
  const uncovered = taxonomySkills(taxonomy).filter((s) => !covered.has(s));
  const budget = architectBudget(input, options.profile);
  const sized = { ...input, n: budget.n };
  return render(
    'architect',
    {
      n: sized.n,
      maxTokens: budget.maxTokens,
      perSpec: budget.perSpec,
      stats: describeStats(input.stats),
      environments: describeEnvironments(input.environments ?? []),
      taxonomy: Object.entries(taxonomy)
        .map(([area, skills]) => `- ${area}: ${skills.join(', ')}`)
        .join('\n'),
      uncovered: uncovered.length > 0 ? uncovered.join(', ') : '(every taxonomy skill has at least one environment)',
      weakSkills: describeWeakSkills(input.weakSkills ?? []),
      focus: describeFocus(sized),
      kinds: describeKinds(sized, taxonomy),
    },
    options,
  );
}

/** The taxonomy area whose skills episodic (tool-use) environments train. */
const EPISODIC_AREA = 'tool-use-and-planning';

/**
 * With 'mixed', how many of n specs should be episodic: half each, as the batch keeps each kind half of its target; the
 * odd one to the kind the library holds fewer of.
 */
function episodicShare(input: Pick<ArchitectInput, 'environments'>, n: number): number {
  const envs = input.environments ?? [];
  const episodic = envs.filter((e) => kindNamed(e.kind).rollouts).length;
  return episodic < envs.length - episodic ? Math.ceil(n / 2) : Math.floor(n / 2);
}

/** Which kinds to propose: one kind outright, or with 'mixed' the library's counts per kind and a suggested split. */
function describeKinds(input: ArchitectInput, taxonomy: SkillTaxonomy): string {
  const kind = input.kind ?? 'single';
  if (kind !== 'mixed') return kindNamed(kind).architectAsk;
  const envs = input.environments ?? [];
  const episodic = envs.filter((e) => kindNamed(e.kind).rollouts);
  const coveredByEpisodic = new Set(episodic.flatMap((e) => e.skills));
  const toolSkills = taxonomy[EPISODIC_AREA] ?? [];
  const uncovered = toolSkills.filter((s) => !coveredByEpisodic.has(s)).join(', ') || '(none)';
  return [
    'Choose each spec\'s kind by coverage (kind "single" with episodic null, or kind "episodic" ' +
      'with its episodic part).',
    `- The library holds ${envs.length - episodic.length} single-turn and ${episodic.length} episodic ` +
      `environment${episodic.length === 1 ? '' : 's'}.`,
    toolSkills.length > 0
      ? `- Skills of the ${EPISODIC_AREA} area with no episodic environment yet: ${uncovered}.`
      : '- The taxonomy has no tool-use area: aim episodic specs at skills that need several tool calls.',
    `- Make about ${episodicShare(input, input.n)} of the ${input.n} specs episodic and the rest ` +
      `single-turn, aiming each at the skills its kind trains least.`,
  ].join('\n');
}

function describeStats(stats: LibraryStats): string {
  const skills = Object.entries(stats.bySkill).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  return [
    `- Active environments: ${stats.byStatus['active'] ?? stats.environments} (${stats.environments} names, ` +
      `${stats.versions} versions in all).`,
    `- Difficulty levels per environment: ${stats.levels ? `${stats.levels.min} to ${stats.levels.max}` : 'none yet'}.`,
    `- Environments per skill: ${skills.length > 0 ? skills.map(([s, c]) => `${s} ${c}`).join(', ') : 'none yet'}.`,
  ].join('\n');
}

function describeEnvironments(envs: NonNullable<ArchitectInput['environments']>): string {
  if (envs.length === 0) return '(none listed)';
  const sorted = [...envs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lines = sorted
    .slice(0, MAX_LISTED_ENVIRONMENTS)
    .map((e) => `- ${e.name} [${e.skills.join(', ')}]${kindNamed(e.kind).rollouts ? ' (episodic)' : ''}`);
  if (sorted.length > MAX_LISTED_ENVIRONMENTS) lines.push(`- … and ${sorted.length - MAX_LISTED_ENVIRONMENTS} more`);
  return lines.join('\n');
}

function describeWeakSkills(weak: readonly WeakSkill[]): string {
  if (weak.length === 0) return '(no trainer feedback for this batch)';
  const sorted = [...weak].sort(
    (a, b) => a.passRate - b.passRate || (a.skill < b.skill ? -1 : a.skill > b.skill ? 1 : 0),
  );
  return sorted
    .map((w) => {
      const note = w.passRate === 0 ? ' (never solved: beyond the frontier, needs easier entry levels)' : '';
      return (
        `- ${w.skill}: pass rate ${(w.passRate * 100).toFixed(1)}%` +
        `${w.n === undefined ? '' : ` over ${w.n} samples`}${note}`
      );
    })
    .join('\n');
}

function describeFocus(input: ArchitectInput): string {
  const saturated = input.saturatedSkills ?? [];
  const lines = [];
  if (input.focus && input.focus.slots > 0) {
    lines.push(
      `This round's quota: at least ${Math.min(input.focus.slots, input.n)} of the ${input.n} specs must ` +
        `each train one of these weak skills (deal them round-robin, in this order): ` +
        `${input.focus.skills.join(', ')}.`,
    );
  }
  if (saturated.length > 0)
    lines.push(
      `Saturated skills (the model already solves them; aim no spec at them): ` +
        `${saturated.map((w) => `${w.skill} (${(w.passRate * 100).toFixed(0)}%)`).join(', ')}.`,
    );
  return lines.join('\n') || '(no quota for weak skills this round)';
}

/** A kind's template for one role (its plug's prompts), checked against the templates shipped in prompts/. */
function templateOf(kind: KindName, role: keyof EnvKind['prompts']): PromptName {
  const name = kindNamed(kind).prompts[role];
  if (!(PROMPT_NAMES as readonly string[]).includes(name))
    throw new PromptError(
      `the ${kind} kind's ${role} template "${name}" is not one of the prompt templates (${PROMPT_NAMES.join(', ')})`,
    );
  return name as PromptName;
}

// ---- Generator ----

export interface GeneratorInput {
  spec: EnvSpec;
  /** Few-shot examples; defaultExamples(spec, profile) when absent. */
  examples?: readonly SeedFile[];
}

/** The generator's prompt: the contract and examples of the spec's kind first (stable), then the task and the spec. */
export function renderGenerator(input: GeneratorInput, options: PromptOptions = {}): RenderedPrompt {
  const kind = specKind(input.spec);
  const examples = input.examples ?? defaultExamples(input.spec, options.profile);
  return render(
    templateOf(kind, 'generator'),
    {
      contract: contractText(kind, 'author', options),
      examples: examples
        .map((seed, i) => `### Example ${i + 1}: ${seed.name}.js\n\n${fence(seed.source.trimEnd(), 'js')}`)
        .join('\n\n'),
      spec: describeSpec(input.spec),
      specName: input.spec.name,
    },
    options,
  );
}

function describeSpec(spec: EnvSpec): string {
  return [
    `- name: ${spec.name}`,
    `- title: ${spec.title}`,
    `- skills: ${spec.skills.join(', ')}`,
    `- task idea: ${spec.taskIdea}`,
    `- ${spec.episodic ? 'how the agent acts and finishes' : 'answer format'}: ${spec.answerFormat}`,
    `- difficulty scaling: ${spec.difficultyScaling}`,
    `- why it is new: ${spec.whyNew}`,
    ...(spec.episodic ? describeEpisodic(spec.episodic) : []),
  ].join('\n');
}

function describeEpisodic(part: NonNullable<EnvSpec['episodic']>): string[] {
  const tools = part.tools.map((t) => {
    const params = t.parameters.map((p) => `${p.name} (${p.type}): ${p.description}`).join('; ');
    return (
      `  - ${t.name}(${t.parameters.map((p) => p.name).join(', ')}): ${t.description}` +
      `${params ? ` Parameters: ${params}` : ''}`
    );
  });
  return [
    `- world (the hidden state): ${part.world}`,
    '- tools:',
    ...tools,
    `- finishing tool: ${part.finishTool}`,
    `- policy the agent must follow: ${part.policy}`,
    `- goal checked on the final state: ${part.goal}`,
  ];
}

// ---- Repair ----

export interface RepairInput {
  source: string;
  report: ReportPart;
  /** The kind the module must be (its spec's); 'single' when absent. */
  kind?: KindName;
}

/** What a repair prompt shows of the report, per profile. */
const PROBLEM_LIMITS: Record<PromptProfile, ProblemLimits> = {
  standard: { problems: 20, evidenceChars: 1500 },
  compact: { problems: 8, evidenceChars: 400 },
};

export function renderRepair(input: RepairInput, options: PromptOptions = {}): RenderedPrompt {
  const kind = input.kind ?? 'single';
  return render(
    templateOf(kind, 'repair'),
    {
      contract: contractText(kind, 'author', options),
      source: fence(input.source.trimEnd(), 'js'),
      stages: describeStages(input.report.stages ?? []),
      problems: describeProblems(input.report.problems, PROBLEM_LIMITS[options.profile ?? 'standard']),
    },
    options,
  );
}

// ---- Reviewer ----

export interface ReviewerInput {
  source: string;
  meta: Meta;
  samples: readonly ReviewSample[];
}

/** Whether a candidate's meta is contract v2's: the reviewer then asks the episodic checklist. */
export const isEpisodicMeta = (meta: Meta): boolean => kindOf(meta).rollouts;

/**
 * The reviewer's prompt; an episodic candidate's samples show the reference's actions with the observations they got.
 */
export function renderReviewer(input: ReviewerInput, options: PromptOptions = {}): RenderedPrompt {
  const plug = kindOf(input.meta);
  const kind: KindName = plug.name;
  return render(
    templateOf(kind, 'reviewer'),
    {
      contract: contractText(kind, 'reviewer', options),
      source: fence(input.source.trimEnd(), 'js'),
      samples: describeSamples(input.samples, plug.rollouts, plug.sampleLimits[options.profile ?? 'standard']),
    },
    options,
  );
}
