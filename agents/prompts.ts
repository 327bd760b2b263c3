// Each agent's prompt, rendered from its template in prompts/ (agents/prompt-files.ts loads, fills and
// hashes them): the architect's view of the library, the generator's spec and seed examples, the validator
// report for repair, and the reviewer's samples. Episodic specs and candidates get their own templates.
import { CODES } from '../contract/codes.js';
import { EPISODIC_SEEDS_DIR } from '../contract/paths.js';
import type { Meta } from '../contract/schema.js';
import type { LibraryStats } from '../library/contract.js';
import { listSeeds, type SeedFile } from '../library/seeds.js';
import type { ValidationReport } from '../validators/report.js';
import { contractText, fence, render, sha256, type PromptOptions, type RenderedPrompt } from './prompt-files.js';
import { SKILL_TAXONOMY, specKind, taxonomySkills, type EnvKind, type EnvSpec, type RunKind, type SkillTaxonomy } from './spec.js';

export {
  contractText, fillTemplate, loadPrompt, PROMPT_NAMES, PromptError, promptHash,
  type PromptName, type PromptOptions, type PromptVars, type RenderedPrompt,
} from './prompt-files.js';

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
  /** This round's share for the weak skills: `slots` of the n specs must each train one of `skills` (most wanted first). */
  focus?: { skills: readonly string[]; slots: number };
  /** How many specs to ask for. */
  n: number;
  /** Which kinds of environment to propose; absent means 'single'. With 'mixed' the architect chooses by coverage. */
  kind?: RunKind;
  /** Environments already in the library, so the architect avoids their names and ideas (listed up to a cap); kind absent means single. */
  environments?: ReadonlyArray<{ name: string; skills: readonly string[]; kind?: EnvKind }>;
}

const MAX_LISTED_ENVIRONMENTS = 150;

export function renderArchitect(input: ArchitectInput, options: PromptOptions = {}): RenderedPrompt {
  const taxonomy = input.taxonomy ?? SKILL_TAXONOMY;
  const covered = new Set(Object.keys(input.stats.bySkill));
  const uncovered = taxonomySkills(taxonomy).filter((s) => !covered.has(s));
  return render('architect', {
    n: input.n,
    stats: describeStats(input.stats),
    environments: describeEnvironments(input.environments ?? []),
    taxonomy: Object.entries(taxonomy).map(([area, skills]) => `- ${area}: ${skills.join(', ')}`).join('\n'),
    uncovered: uncovered.length > 0 ? uncovered.join(', ') : '(every taxonomy skill has at least one environment)',
    weakSkills: describeWeakSkills(input.weakSkills ?? []),
    focus: describeFocus(input),
    kinds: describeKinds(input, taxonomy),
  }, options);
}

/** The taxonomy area whose skills episodic (tool-use) environments train. */
const EPISODIC_AREA = 'tool-use-and-planning';

/** Which kinds to propose: one kind outright, or with 'mixed' the library's counts per kind and a suggested split. */
function describeKinds(input: ArchitectInput, taxonomy: SkillTaxonomy): string {
  const kind = input.kind ?? 'single';
  if (kind === 'single') return 'Propose single-turn specs only: every spec has kind "single" and episodic null.';
  if (kind === 'episodic') return 'Propose episodic specs only: every spec has kind "episodic" and its episodic part filled in.';
  const envs = input.environments ?? [];
  const episodic = envs.filter((e) => e.kind === 'episodic');
  const single = envs.length - episodic.length;
  const coveredByEpisodic = new Set(episodic.flatMap((e) => e.skills));
  const toolSkills = taxonomy[EPISODIC_AREA] ?? [];
  const uncovered = toolSkills.filter((s) => !coveredByEpisodic.has(s));
  // Half each (the batch keeps each kind's share of its target); the odd one to the kind the library holds fewer of.
  const wanted = episodic.length < single ? Math.ceil(input.n / 2) : Math.floor(input.n / 2);
  return [
    'Choose each spec\'s kind by coverage (kind "single" with episodic null, or kind "episodic" with its episodic part).',
    `- The library holds ${single} single-turn and ${episodic.length} episodic environment${episodic.length === 1 ? '' : 's'}.`,
    `- ${toolSkills.length > 0 ? `Skills of the ${EPISODIC_AREA} area with no episodic environment yet: ${uncovered.length > 0 ? uncovered.join(', ') : '(none)'}.` : 'The taxonomy has no tool-use area: aim episodic specs at skills that need several tool calls.'}`,
    `- Make about ${wanted} of the ${input.n} specs episodic and the rest single-turn, aiming each at the skills its kind trains least.`,
  ].join('\n');
}

function describeStats(stats: LibraryStats): string {
  const skills = Object.entries(stats.bySkill).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  return [
    `- Active environments: ${stats.byStatus['active'] ?? stats.environments} (${stats.environments} names, ${stats.versions} versions in all).`,
    `- Difficulty levels per environment: ${stats.levels ? `${stats.levels.min} to ${stats.levels.max}` : 'none yet'}.`,
    `- Environments per skill: ${skills.length > 0 ? skills.map(([s, c]) => `${s} ${c}`).join(', ') : 'none yet'}.`,
  ].join('\n');
}

function describeEnvironments(envs: NonNullable<ArchitectInput['environments']>): string {
  if (envs.length === 0) return '(none listed)';
  const sorted = [...envs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lines = sorted.slice(0, MAX_LISTED_ENVIRONMENTS).map((e) => `- ${e.name} [${e.skills.join(', ')}]${e.kind === 'episodic' ? ' (episodic)' : ''}`);
  if (sorted.length > MAX_LISTED_ENVIRONMENTS) lines.push(`- … and ${sorted.length - MAX_LISTED_ENVIRONMENTS} more`);
  return lines.join('\n');
}

function describeWeakSkills(weak: readonly WeakSkill[]): string {
  if (weak.length === 0) return '(no trainer feedback for this batch)';
  const sorted = [...weak].sort((a, b) => a.passRate - b.passRate || (a.skill < b.skill ? -1 : a.skill > b.skill ? 1 : 0));
  return sorted
    .map((w) => {
      const note = w.passRate === 0 ? ' (never solved: beyond the frontier, needs easier entry levels)' : '';
      return `- ${w.skill}: pass rate ${(w.passRate * 100).toFixed(1)}%${w.n === undefined ? '' : ` over ${w.n} samples`}${note}`;
    })
    .join('\n');
}

function describeFocus(input: ArchitectInput): string {
  const saturated = input.saturatedSkills ?? [];
  const lines = [];
  if (input.focus && input.focus.slots > 0) {
    lines.push(`This round's quota: at least ${input.focus.slots} of the ${input.n} specs must each train one of these weak skills (deal them round-robin, in this order): ${input.focus.skills.join(', ')}.`);
  }
  if (saturated.length > 0) lines.push(`Saturated skills (the model already solves them; aim no spec at them): ${saturated.map((w) => `${w.skill} (${(w.passRate * 100).toFixed(0)}%)`).join(', ')}.`);
  return lines.join('\n') || '(no quota for weak skills this round)';
}

// ---- Generator ----

export interface GeneratorInput {
  spec: EnvSpec;
  /** Few-shot seed environments; defaultExamples(spec) when absent. */
  examples?: readonly SeedFile[];
}

/** Episodic seeds are 11–15 kB each: two examples keep the prompt near 12k tokens with the v2 contract. */
const EPISODIC_EXAMPLES = 2;

/** The seeds a spec's generator sees: three v1 seeds, or two episodic seeds for an episodic spec. */
export function defaultExamples(spec: EnvSpec): SeedFile[] {
  return specKind(spec) === 'episodic' ? pickExamples(spec, listSeeds(EPISODIC_SEEDS_DIR), EPISODIC_EXAMPLES) : pickExamples(spec);
}

/** The generator's prompt: contract, examples and spec of the spec's kind. */
export function renderGenerator(input: GeneratorInput, options: PromptOptions = {}): RenderedPrompt {
  const kind = specKind(input.spec);
  const examples = input.examples ?? defaultExamples(input.spec);
  return render(kind === 'episodic' ? 'generator-episodic' : 'generator', {
    contract: contractText(kind),
    examples: examples.map((seed, i) => `### Example ${i + 1}: ${seed.name}.js\n\n${fence(seed.source.trimEnd(), 'js')}`).join('\n\n'),
    spec: describeSpec(input.spec),
    specName: input.spec.name,
  }, options);
}

/**
 * Seeds as few-shot examples: the ones sharing the most skills with the spec first; ties are broken by a
 * hash of spec and seed names, so different specs see different examples while each choice is reproducible.
 */
export function pickExamples(spec: Pick<EnvSpec, 'name' | 'skills'>, seeds: readonly SeedFile[] = listSeeds(), count = 3): SeedFile[] {
  const wanted = new Set(spec.skills);
  const ranked = seeds.map((seed) => ({
    seed,
    shared: seedSkills(seed.source).filter((s) => wanted.has(s)).length,
    tie: sha256(`${spec.name}\n${seed.name}`),
  }));
  ranked.sort((a, b) => b.shared - a.shared || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0));
  return ranked.slice(0, count).map((r) => r.seed);
}

/** meta.skills read from a seed's source text (seeds are trusted and written in one shape; nothing is run). */
export function seedSkills(source: string): string[] {
  const list = /\bskills\s*:\s*\[([^\]]*)\]/.exec(source)?.[1] ?? '';
  return [...list.matchAll(/['"]([a-z0-9-]+)['"]/g)].map((m) => m[1] as string);
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
    return `  - ${t.name}(${t.parameters.map((p) => p.name).join(', ')}): ${t.description}${params ? ` Parameters: ${params}` : ''}`;
  });
  return [`- world (the hidden state): ${part.world}`, '- tools:', ...tools, `- finishing tool: ${part.finishTool}`, `- policy the agent must follow: ${part.policy}`, `- goal checked on the final state: ${part.goal}`];
}

// ---- Repair ----

export interface RepairInput {
  source: string;
  report: Pick<ValidationReport, 'problems'> & Partial<Pick<ValidationReport, 'stages'>>;
  /** The kind the module must be (its spec's); 'single' when absent. */
  kind?: EnvKind;
}

const MAX_PROBLEMS = 20;
const MAX_EVIDENCE_CHARS = 1500;

export function renderRepair(input: RepairInput, options: PromptOptions = {}): RenderedPrompt {
  const kind = input.kind ?? 'single';
  return render(kind === 'episodic' ? 'repair-episodic' : 'repair', {
    contract: contractText(kind),
    source: fence(input.source.trimEnd(), 'js'),
    stages: describeStages(input.report.stages ?? []),
    problems: describeProblems(input.report.problems),
  }, options);
}

function describeStages(stages: NonNullable<RepairInput['report']['stages']>): string {
  if (stages.length === 0) return '(no stage summary)';
  return stages
    .map((s) => `- ${s.stage}: ${s.skipped !== undefined ? `not run (${s.skipped})` : s.ok ? 'passed' : `FAILED (${s.problems.length} problem${s.problems.length === 1 ? '' : 's'})`}`)
    .join('\n');
}

function describeProblems(problems: RepairInput['report']['problems']): string {
  if (problems.length === 0) return '(the report lists no problems)';
  const lines = problems.slice(0, MAX_PROBLEMS).map((p, i) => {
    const parts = [`${i + 1}. [${p.stage}] ${p.code}: ${CODES[p.code] ?? 'no description'}`, `   message: ${p.message}`];
    if (p.evidence !== undefined) parts.push(...describeEvidence(p.evidence));
    return parts.join('\n');
  });
  if (problems.length > MAX_PROBLEMS) lines.push(`… and ${problems.length - MAX_PROBLEMS} more problems not shown.`);
  return lines.join('\n');
}

/** What an episodic hack probe reports (validators/episodic/hack.ts): the probe and the action log it replayed. */
interface ProbeEvidence {
  family: string;
  seed: number;
  level: number;
  score: number | null;
  end: string | null;
  actions: string;
}

const isProbeEvidence = (e: unknown): e is ProbeEvidence =>
  e !== null && typeof e === 'object' && typeof (e as ProbeEvidence).family === 'string' && typeof (e as ProbeEvidence).actions === 'string';

/** Evidence lines: a probe as the episode it played (which probe, where, how it ended, its actions); anything else as JSON. */
function describeEvidence(evidence: unknown): string[] {
  if (!isProbeEvidence(evidence)) return [`   evidence: ${evidenceJson(evidence)}`];
  const e = evidence;
  const outcome = e.score === null ? 'the rollout failed before a score' : `score ${e.score}, the episode ended by ${e.end ?? 'an unknown cause'}`;
  return [`   failed probe: ${e.family} (seed ${e.seed}, level ${e.level}): ${outcome}`, `   the probe's action log (its first actions): ${clipLine(e.actions)}`];
}

const clipLine = (text: string): string => (text.length <= MAX_EVIDENCE_CHARS ? text : `${text.slice(0, MAX_EVIDENCE_CHARS)}… (${text.length - MAX_EVIDENCE_CHARS} more characters)`);

/** Evidence as one line of JSON, cut to a bounded length (it may quote megabyte responses). */
function evidenceJson(evidence: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(evidence) ?? 'null';
  } catch {
    json = '"(evidence is not JSON-serialisable)"';
  }
  return clipLine(json);
}

// ---- Reviewer ----

/** One sampled instance as the reviewer sees it: what the policy sees and what a perfect answer is. */
export interface ReviewSample {
  seed: number;
  level: number;
  prompt: string;
  reference: string;
}

export interface ReviewerInput {
  source: string;
  meta: Meta;
  samples: readonly ReviewSample[];
}

const MAX_SAMPLES = 6;
const MAX_SAMPLE_CHARS = 4000;

/** Whether a candidate's meta is contract v2's: the reviewer then asks the episodic checklist. */
export const isEpisodicMeta = (meta: Meta): boolean => (meta as { kind?: unknown }).kind === 'episodic';

/** The reviewer's prompt; an episodic candidate's samples show its reference action log as the reference. */
export function renderReviewer(input: ReviewerInput, options: PromptOptions = {}): RenderedPrompt {
  const kind: EnvKind = isEpisodicMeta(input.meta) ? 'episodic' : 'single';
  return render(kind === 'episodic' ? 'reviewer-episodic' : 'reviewer', {
    contract: contractText(kind),
    meta: fence(JSON.stringify(input.meta, null, 2), 'json'),
    source: fence(input.source.trimEnd(), 'js'),
    samples: describeSamples(input.samples, kind === 'episodic' ? 'Reference action log (what act() did, as JSON):' : 'Reference response:'),
  }, options);
}

function describeSamples(samples: readonly ReviewSample[], referenceLabel: string): string {
  if (samples.length === 0) return '(no samples)';
  return samples
    .slice(0, MAX_SAMPLES)
    .map((s, i) => [`### Sample ${i + 1} (level ${s.level}, seed ${s.seed})`, 'Prompt:', fence(clip(s.prompt), 'text'), referenceLabel, fence(clip(s.reference), 'text')].join('\n'))
    .join('\n\n');
}

function clip(text: string): string {
  return text.length <= MAX_SAMPLE_CHARS ? text : `${text.slice(0, MAX_SAMPLE_CHARS)}\n… (${text.length - MAX_SAMPLE_CHARS} more characters)`;
}
