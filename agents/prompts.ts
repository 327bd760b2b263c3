// Prompts are files: templates in prompts/ with {{placeholders}}, rendered here with the contract text,
// seed examples, specs and validator reports; each template's content hash goes into lineage.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODES } from '../contract/codes.js';
import { EnvforgeError } from '../contract/errors.js';
import type { Meta } from '../contract/schema.js';
import type { LibraryStats } from '../library/contract.js';
import { PACKAGE_ROOT, PROMPTS_DIR } from '../contract/paths.js';
import { listSeeds, type SeedFile } from '../library/seeds.js';
import type { ValidationReport } from '../validators/report.js';
import { SKILL_TAXONOMY, taxonomySkills, type EnvSpec, type RunKind, type SkillTaxonomy } from './spec.js';

export const PROMPT_NAMES = ['architect', 'generator', 'repair', 'reviewer'] as const;
export type PromptName = (typeof PROMPT_NAMES)[number];

const CONTRACT_FILE = join(PACKAGE_ROOT, 'docs', 'environment-contract.md');

/** A prompt template that cannot be read or rendered, or model output without a module in it. */
export class PromptError extends EnvforgeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('E_PROMPT', message, options);
  }
}

export interface PromptOptions {
  /** The folder holding the templates; prompts/ of the package by default. */
  dir?: string;
}

export interface RenderedPrompt {
  name: PromptName;
  text: string;
  /** promptHash of the template this text was rendered from. */
  hash: string;
}

export type PromptVars = Readonly<Record<string, string | number>>;

export function loadPrompt(name: PromptName, options: PromptOptions = {}): string {
  if (!(PROMPT_NAMES as readonly string[]).includes(name)) throw new PromptError(`unknown prompt "${String(name)}"; expected one of ${PROMPT_NAMES.join(', ')}`);
  const file = join(options.dir ?? PROMPTS_DIR, `${name}.md`);
  try {
    return readFileSync(file, 'utf8');
  } catch (cause) {
    throw new PromptError(`cannot read prompt template ${file}: ${(cause as Error).message}`, { cause });
  }
}

/** SHA-256 (hex) of the template file's content: the prompt version recorded in lineage. */
export function promptHash(name: PromptName, options: PromptOptions = {}): string {
  return sha256(loadPrompt(name, options));
}

const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const IDENTIFIER = /^[a-zA-Z][a-zA-Z0-9_]*$/;

/** Single pass over the template only: text inside values is never scanned for placeholders. */
export function fillTemplate(name: string, template: string, vars: PromptVars): string {
  const used = new Set<string>();
  const text = template.replace(PLACEHOLDER, (whole, key: string) => {
    if (!IDENTIFIER.test(key)) throw new PromptError(`prompt "${name}": malformed placeholder ${whole}; placeholders look like {{name}}`);
    if (!Object.hasOwn(vars, key)) throw new PromptError(`prompt "${name}": missing variable "${key}" for placeholder {{${key}}}`);
    used.add(key);
    return String(vars[key]);
  });
  const unknown = Object.keys(vars).filter((key) => !used.has(key));
  if (unknown.length > 0) throw new PromptError(`prompt "${name}": the template has no placeholder for ${unknown.map((k) => `"${k}"`).join(', ')}`);
  return text;
}

function render(name: PromptName, vars: PromptVars, options: PromptOptions): RenderedPrompt {
  const template = loadPrompt(name, options);
  return { name, text: fillTemplate(name, template, vars), hash: sha256(template) };
}

/** The environment contract, verbatim, as every generator and repair prompt includes it. */
export function contractText(): string {
  return readFileSync(CONTRACT_FILE, 'utf8').trim();
}

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
  /** Environments already in the library, so the architect avoids their names and ideas (listed up to a cap). */
  environments?: ReadonlyArray<{ name: string; skills: readonly string[] }>;
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
  }, options);
}

function describeStats(stats: LibraryStats): string {
  const skills = Object.entries(stats.bySkill).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  return [
    `- Active environments: ${stats.byStatus['active'] ?? stats.environments} (${stats.environments} names, ${stats.versions} versions in all).`,
    `- Difficulty levels per environment: ${stats.levels ? `${stats.levels.min} to ${stats.levels.max}` : 'none yet'}.`,
    `- Environments per skill: ${skills.length > 0 ? skills.map(([s, c]) => `${s} ${c}`).join(', ') : 'none yet'}.`,
  ].join('\n');
}

function describeEnvironments(envs: ReadonlyArray<{ name: string; skills: readonly string[] }>): string {
  if (envs.length === 0) return '(none listed)';
  const sorted = [...envs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lines = sorted.slice(0, MAX_LISTED_ENVIRONMENTS).map((e) => `- ${e.name} [${e.skills.join(', ')}]`);
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
  /** Few-shot seed environments; pickExamples(spec) when absent. */
  examples?: readonly SeedFile[];
}

export function renderGenerator(input: GeneratorInput, options: PromptOptions = {}): RenderedPrompt {
  const examples = input.examples ?? pickExamples(input.spec);
  return render('generator', {
    contract: contractText(),
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
    `- answer format: ${spec.answerFormat}`,
    `- difficulty scaling: ${spec.difficultyScaling}`,
    `- why it is new: ${spec.whyNew}`,
  ].join('\n');
}

// ---- Repair ----

export interface RepairInput {
  source: string;
  report: Pick<ValidationReport, 'problems'> & Partial<Pick<ValidationReport, 'stages'>>;
}

const MAX_PROBLEMS = 20;
const MAX_EVIDENCE_CHARS = 1500;

export function renderRepair(input: RepairInput, options: PromptOptions = {}): RenderedPrompt {
  return render('repair', {
    contract: contractText(),
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
    if (p.evidence !== undefined) parts.push(`   evidence: ${evidenceJson(p.evidence)}`);
    return parts.join('\n');
  });
  if (problems.length > MAX_PROBLEMS) lines.push(`… and ${problems.length - MAX_PROBLEMS} more problems not shown.`);
  return lines.join('\n');
}

/** Evidence as one line of JSON, cut to a bounded length (it may quote megabyte responses). */
function evidenceJson(evidence: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(evidence) ?? 'null';
  } catch {
    json = '"(evidence is not JSON-serialisable)"';
  }
  return json.length <= MAX_EVIDENCE_CHARS ? json : `${json.slice(0, MAX_EVIDENCE_CHARS)}… (${json.length - MAX_EVIDENCE_CHARS} more characters)`;
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

export function renderReviewer(input: ReviewerInput, options: PromptOptions = {}): RenderedPrompt {
  return render('reviewer', {
    contract: contractText(),
    meta: fence(JSON.stringify(input.meta, null, 2), 'json'),
    source: fence(input.source.trimEnd(), 'js'),
    samples: describeSamples(input.samples),
  }, options);
}

function describeSamples(samples: readonly ReviewSample[]): string {
  if (samples.length === 0) return '(no samples)';
  return samples
    .slice(0, MAX_SAMPLES)
    .map((s, i) => [`### Sample ${i + 1} (level ${s.level}, seed ${s.seed})`, 'Prompt:', fence(clip(s.prompt), 'text'), 'Reference response:', fence(clip(s.reference), 'text')].join('\n'))
    .join('\n\n');
}

function clip(text: string): string {
  return text.length <= MAX_SAMPLE_CHARS ? text : `${text.slice(0, MAX_SAMPLE_CHARS)}\n… (${text.length - MAX_SAMPLE_CHARS} more characters)`;
}

// ---- Helpers ----

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A fenced block whose fence is longer than any backtick run inside, so the content cannot close it. */
function fence(content: string, lang: string): string {
  let longest = 0;
  for (const run of content.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const ticks = '`'.repeat(Math.max(3, longest + 1));
  return `${ticks}${lang}\n${content}\n${ticks}`;
}
