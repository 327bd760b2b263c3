// An environment spec is the architect's proposal for one new environment: what to build and why it is
// new. This module holds the agents' structured-output schemas, the skill taxonomy and spec dedupe.
import { z } from 'zod';
import { CONTRACT_LIMITS, NAME_PATTERN } from '../contract/schema.js';

/**
 * What is safe to normalise in a model's name or tag before judging it: surrounding whitespace, case, and
 * spaces or underscores between words ("Dynamic Programming " is "dynamic-programming"). Nothing else.
 */
export function normaliseTag(value: unknown): unknown {
  return typeof value === 'string' ? value.trim().toLowerCase().replace(/[\s_]+/g, '-') : value;
}

/** A tag list as a sloppy model may write it: each tag normalised, repeats dropped (keeping the first). */
function normaliseTags(value: unknown): unknown {
  return Array.isArray(value) ? [...new Set(value.map(normaliseTag))] : value;
}

const kebab = (what: string) =>
  z.preprocess(
    normaliseTag,
    z
      .string()
      .max(CONTRACT_LIMITS.maxNameChars, `${what} must be at most ${CONTRACT_LIMITS.maxNameChars} characters`)
      .regex(NAME_PATTERN, `${what} must be kebab-case: lowercase letters and digits in words joined by single hyphens, starting with a letter (e.g. "interval-merge-count")`),
  );

const text = (what: string, max: number) => z.string().trim().min(1, `${what} must not be empty`).max(max, `${what} must be at most ${max} characters`);

/** The environment kinds an author writes: one prompt and one answer, or a multi-turn tool-use episode (contract v2). */
export const ENV_KINDS = ['single', 'episodic'] as const;
export type EnvKind = (typeof ENV_KINDS)[number];
/** What a batch asks its authors for: one kind, or `mixed` (the architect chooses by coverage). */
export const RUN_KINDS = [...ENV_KINDS, 'mixed'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export const EnvSpecSchema = z.object({
  /** The kind of environment to write; absent means 'single' (specs written before contract v2). */
  kind: z.enum(ENV_KINDS).optional(),
  name: kebab('name'),
  title: text('title', CONTRACT_LIMITS.maxTitleChars),
  skills: z.preprocess(
    normaliseTags,
    z
      .array(kebab('each skill'))
      .min(CONTRACT_LIMITS.minSkills, 'skills needs at least one tag')
      .max(CONTRACT_LIMITS.maxSkills, `skills allows at most ${CONTRACT_LIMITS.maxSkills} tags`),
  ),
  /** What an instance contains and what is asked, in a few sentences. */
  taskIdea: text('taskIdea', 1500),
  /** Exactly what goes inside <answer>…</answer>, and which equivalent forms the verifier accepts. */
  answerFormat: text('answerFormat', 600),
  /** What grows with the level, from level 1 to the top level. */
  difficultyScaling: text('difficultyScaling', 800),
  /** Which skill or reasoning pattern it adds that the library does not train yet. */
  whyNew: text('whyNew', 800),
});
export type EnvSpec = z.infer<typeof EnvSpecSchema>;

/** The kind a spec asks for ('single' when it names none). */
export const specKind = (spec: Pick<EnvSpec, 'kind'>): EnvKind => spec.kind ?? 'single';

export const ArchitectOutputSchema = z.object({ specs: z.array(EnvSpecSchema).min(1, 'propose at least one spec') });

/** The reviewer's checklist, in the order the reviewer prompt asks it. */
export const REVIEW_CHECKS = ['promptUnambiguous', 'formatStated', 'verifierConsistent', 'acceptsAllValid', 'noLeak'] as const;
export type ReviewCheck = (typeof REVIEW_CHECKS)[number];

const check = z.object({ ok: z.boolean(), note: z.string().max(1000) });

export const ReviewSchema = z.object({
  checks: z.object({
    promptUnambiguous: check,
    formatStated: check,
    verifierConsistent: check,
    acceptsAllValid: check,
    noLeak: check,
  }),
});
export type Review = z.infer<typeof ReviewSchema>;

/** The checks a review failed, in checklist order; empty when the review passes. */
export function failedChecks(review: Review): ReviewCheck[] {
  return REVIEW_CHECKS.filter((name) => !review.checks[name].ok);
}

/** Skills by area: what the architect steers toward. Every seed's skills are here; each skill is in one area. */
export const SKILL_TAXONOMY = {
  'arithmetic-and-numbers': ['arithmetic', 'number-theory', 'modular-arithmetic', 'primes', 'fractions', 'base-conversion', 'bit-manipulation'],
  'algebra-and-sequences': ['sequences', 'linear-algebra', 'polynomials', 'equation-solving', 'recurrences'],
  'counting-and-probability': ['combinatorics', 'counting', 'probability', 'expected-value', 'inclusion-exclusion'],
  'geometry-and-grids': ['geometry', 'coordinate-geometry', 'grids', 'spatial-reasoning'],
  graphs: ['graphs', 'graph-traversal', 'shortest-paths', 'topological-sort', 'trees', 'connectivity', 'matching', 'network-flow'],
  algorithms: ['dynamic-programming', 'greedy', 'sorting', 'search', 'binary-search', 'backtracking', 'divide-and-conquer', 'optimization'],
  'intervals-and-scheduling': ['intervals', 'scheduling', 'date-arithmetic', 'resource-allocation'],
  'data-structures': ['data-structure-simulation', 'caching', 'stacks-and-queues', 'heaps', 'hashing', 'state-tracking'],
  'strings-and-languages': ['strings', 'parsing', 'pattern-matching', 'edit-distance', 'encoding', 'formal-languages'],
  'logic-and-constraints': ['logic', 'constraint-satisfaction', 'boolean-satisfiability', 'deduction', 'puzzles'],
  'simulation-and-programs': ['simulation', 'state-machines', 'program-tracing', 'cellular-automata', 'game-theory'],
  // What multi-turn tool-use (episodic) environments train.
  'tool-use-and-planning': ['tool-use', 'information-gathering', 'policy-following', 'multi-step-state-changes', 'tool-error-recovery', 'asking-before-acting', 'planning', 'exploration', 'web-navigation'],
} as const satisfies Record<string, readonly string[]>;
export type SkillTaxonomy = Readonly<Record<string, readonly string[]>>;

/** Every taxonomy skill, in taxonomy order. */
export function taxonomySkills(taxonomy: SkillTaxonomy = SKILL_TAXONOMY): string[] {
  return Object.values(taxonomy).flat();
}

export interface DroppedSpec {
  spec: EnvSpec;
  /** Why it was dropped, e.g. 'name exists in the library' or 'duplicates spec "x" (task idea similarity 0.86)'. */
  reason: string;
}

export interface DedupeResult {
  /** The specs to write code for, in their input order. */
  kept: EnvSpec[];
  dropped: DroppedSpec[];
}

/** Task ideas at or above this token Jaccard similarity are the same idea. */
const IDEA_SIMILARITY = 0.8;

const STOPWORDS = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'for', 'from', 'given', 'in', 'is', 'it', 'its', 'of', 'on', 'or', 'that', 'the', 'their', 'then', 'this', 'to', 'with']);

/** Lowercased, accent-free word tokens of a task idea, without the commonest function words. */
export function ideaTokens(idea: string): Set<string> {
  const words = idea.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return new Set(words.filter((w) => !STOPWORDS.has(w)));
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  for (const token of a) if (b.has(token)) shared++;
  return shared / (a.size + b.size - shared);
}

/**
 * Drops specs whose name is already in the library, and specs that duplicate each other (same name, or
 * task ideas with token Jaccard ≥ 0.8). Among duplicates the spec adding the most skills outside
 * `existingSkills` wins, then the earlier one. Deterministic: depends only on the inputs and their order.
 */
export function dedupeSpecs(specs: readonly EnvSpec[], existingNames: Iterable<string>, existingSkills: Iterable<string> = []): DedupeResult {
  const names = new Set(existingNames);
  const covered = new Set(existingSkills);
  const tokens = specs.map((s) => ideaTokens(s.taskIdea));
  const newSkills = specs.map((s) => s.skills.filter((k) => !covered.has(k)).length);
  const dropped = new Map<number, string>();
  const order = specs.map((_, i) => i).sort((a, b) => (newSkills[b] as number) - (newSkills[a] as number) || a - b);
  const keptIndices: number[] = [];
  for (const i of order) {
    const spec = specs[i] as EnvSpec;
    if (names.has(spec.name)) {
      dropped.set(i, 'name exists in the library');
      continue;
    }
    const reason = duplicateReason(i, keptIndices, specs, tokens);
    if (reason) dropped.set(i, reason);
    else keptIndices.push(i);
  }
  return {
    kept: specs.filter((_, i) => !dropped.has(i)),
    dropped: [...dropped].sort(([a], [b]) => a - b).map(([i, reason]) => ({ spec: specs[i] as EnvSpec, reason })),
  };
}

function duplicateReason(i: number, kept: number[], specs: readonly EnvSpec[], tokens: Set<string>[]): string | undefined {
  const spec = specs[i] as EnvSpec;
  for (const j of kept) {
    const other = specs[j] as EnvSpec;
    if (other.name === spec.name) return `duplicates spec "${other.name}" (same name)`;
    const similarity = jaccard(tokens[i] as Set<string>, tokens[j] as Set<string>);
    if (similarity >= IDEA_SIMILARITY) return `duplicates spec "${other.name}" (task idea similarity ${similarity.toFixed(2)})`;
  }
  return undefined;
}
