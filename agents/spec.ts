// An environment spec is the architect's proposal for one new environment: what to build and why it is
// new. This module holds the spec and reviewer schemas and the skill taxonomy (spec dedupe is spec-dedupe.ts,
// the architect's reply schemas are in architect-schema.ts).
import { KIND_NAMES, kindNamed, type KindName } from '../kinds/registry.js';
import { z } from 'zod';
import { CONTRACT_LIMITS, NAME_PATTERN } from '../contract/schema.js';

/**
 * What is safe to normalise in a model's name or tag before judging it: surrounding whitespace, case, and
 * spaces or underscores between words ("Dynamic Programming " is "dynamic-programming"). Nothing else.
 */
export function normaliseTag(value: unknown): unknown {
  return typeof value === 'string'
    ? value
        .trim()
        .toLowerCase()
        .replace(/[\s_]+/g, '-')
    : value;
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
      .regex(
        NAME_PATTERN,
        `${what} must be kebab-case: lowercase letters and digits in words joined by single hyphens, ` +
          `starting with a letter (e.g. "interval-merge-count")`,
      ),
  );

const text = (what: string, max: number) =>
  z.string().trim().min(1, `${what} must not be empty`).max(max, `${what} must be at most ${max} characters`);

/**
 * What a batch asks its authors for: one kind (kinds/contract.ts KIND_NAMES), or `mixed` (the architect chooses by
 * coverage).
 */
export const RUN_KINDS = [...KIND_NAMES, 'mixed'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/**
 * Tool and parameter names as contract v2 accepts them (contract/episodic.ts checks the module's meta the same way).
 */
const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** The parameter types of the JSON-Schema subset contract v2 allows (objects nest only inside the module's schema). */
export const TOOL_PARAMETER_TYPES = ['string', 'integer', 'number', 'boolean', 'array'] as const;

const ToolParameterSpecSchema = z.object({
  name: z
    .string()
    .regex(PARAMETER_NAME, 'a parameter name must match /^[A-Za-z_][A-Za-z0-9_]{0,63}$/ (e.g. "item_id")')
    .describe('The argument\'s name, e.g. "sku".'),
  type: z.enum(TOOL_PARAMETER_TYPES).describe("The argument's JSON type."),
  description: text('a parameter description', 300).describe(
    'What the value is and which values are allowed (an enum, a range, an id format).',
  ),
});

const ToolSpecSchema = z.object({
  name: z
    .string()
    .regex(
      TOOL_NAME,
      'a tool name must be snake_case: a lowercase letter, then lowercase letters, digits or _ (at most 64)',
    )
    .describe('snake_case tool name, e.g. "list_items".'),
  description: text('a tool description', 1024).describe('What the tool shows or changes, as the agent will read it.'),
  parameters: z
    .array(ToolParameterSpecSchema)
    .max(32, 'a tool takes at most 32 parameters')
    .describe('Every argument the tool takes; empty for none. All are required unless the description says otherwise.'),
});

/** The episodic part of a spec (kind 'episodic'): the world behind the tools, the tools, the policy and the goal. */
/** What an episodic spec's part holds, for the message that says it is missing. */
export const MISSING_PART =
  "a spec of kind 'episodic' needs its episodic part: world, tools (with parameters), policy, goal and finishTool";

const episodicPart = (params?: { error?: (issue: { input?: unknown }) => string | undefined }) =>
  z
    .object(
      {
        world: text('episodic.world', 1500).describe(
          'What the hidden state holds: the records, their fields and ids, and what varies with the seed. ' +
            'None of it is in the prompt; the agent finds it through the tools.',
        ),
        tools: z
          .array(ToolSpecSchema)
          .min(2, 'an episodic spec needs at least two tools: one to look, one that finishes')
          .max(32, 'at most 32 tools')
          .describe(
            'Every tool the agent may call, with its parameters: the tools that read the world, those that ' +
              'change it, and the finishing tool.',
          ),
        policy: text('episodic.policy', 1500).describe(
          'The rules the agent must follow, stated in the prompt (e.g. "order from the preferred supplier ' +
            'unless it is on hold; never reorder discontinued items").',
        ),
        goal: text('episodic.goal', 1000).describe(
          'What score() checks on the final state for a reward of 1 (every required change made, no ' +
            'forbidden change), never a claim made by the agent.',
        ),
        finishTool: z
          .string()
          .regex(TOOL_NAME, 'episodic.finishTool must name a snake_case tool')
          .describe('The tool that ends the episode; it is one of the tools, and calling it alone never pays.'),
      },
      params,
    )
    .superRefine((part, ctx) => {
      const names = part.tools.map((t) => t.name);
      for (const name of new Set(names.filter((n, i) => names.indexOf(n) !== i)))
        ctx.addIssue({ code: 'custom', path: ['tools'], message: `the tool "${name}" is declared twice` });
      if (!names.includes(part.finishTool))
        ctx.addIssue({
          code: 'custom',
          path: ['finishTool'],
          message: `episodic.finishTool "${part.finishTool}" is not one of the tools (${names.join(', ')})`,
        });
      part.tools.forEach((tool, i) => {
        const params = tool.parameters.map((p) => p.name);
        if (new Set(params).size !== params.length)
          ctx.addIssue({
            code: 'custom',
            path: ['tools', i, 'parameters'],
            message: `the tool "${tool.name}" declares a parameter name twice`,
          });
      });
    });
export const EpisodicSpecSchema = episodicPart();
/** The part where it is required: a reply without it is told what it holds. */
export const RequiredEpisodicPart = episodicPart({
  error: (issue) => (issue.input === undefined || issue.input === null ? MISSING_PART : undefined),
});
export type EpisodicSpec = z.infer<typeof EpisodicSpecSchema>;

/** The fields every spec has, whatever its kind. */
export const specFields = {
  name: kebab('name').describe(
    'kebab-case name of the task, e.g. "interval-merge-count"; never a name already in the library.',
  ),
  title: text('title', CONTRACT_LIMITS.maxTitleChars).describe('A short human title.'),
  skills: z
    .preprocess(
      normaliseTags,
      z
        .array(kebab('each skill'))
        .min(CONTRACT_LIMITS.minSkills, 'skills needs at least one tag')
        .max(CONTRACT_LIMITS.maxSkills, `skills allows at most ${CONTRACT_LIMITS.maxSkills} tags`),
    )
    .describe('1 to 5 kebab-case skill tags, from the taxonomy whenever one fits.'),
  /** What an instance contains and what is asked, in a few sentences. */
  taskIdea: text('taskIdea', 1500).describe(
    'Two to four sentences: what an instance (or episode) contains and exactly what is asked.',
  ),
  /** Single: exactly what goes inside <answer>…</answer>. Episodic: how the agent acts and ends the episode. */
  answerFormat: text('answerFormat', 600).describe(
    'Single-turn: exactly what goes inside the final <answer>…</answer> tag and which equivalent forms are ' +
      'accepted. Episodic: how the agent acts (one tool call per turn) and which call ends the episode.',
  ),
  /** What grows with the level, from level 1 to the top level. */
  difficultyScaling: text('difficultyScaling', 800).describe(
    'What grows with the level, with level 1 and the top level made concrete (episodic: more records, more ' +
      'rules in play, longer plans).',
  ),
  /** Which skill or reasoning pattern it adds that the library does not train yet. */
  whyNew: text('whyNew', 800).describe(
    'Which skill or reasoning pattern this adds that the library does not train yet.',
  ),
};

export const needsEpisodicPart = (spec: { kind?: KindName | undefined; episodic?: unknown }, ctx: z.RefinementCtx) => {
  const rollouts = spec.kind !== undefined && kindNamed(spec.kind).rollouts;
  if (rollouts && !spec.episodic) ctx.addIssue({ code: 'custom', path: ['episodic'], message: MISSING_PART });
  if (!rollouts && spec.episodic)
    ctx.addIssue({
      code: 'custom',
      path: ['episodic'],
      message: "only a spec of kind 'episodic' has an episodic part; set kind to 'episodic' or leave the part out",
    });
};

export const EnvSpecSchema = z
  .object({
    /** The kind of environment to write; absent means 'single' (specs written before contract v2). */
    kind: z.enum(KIND_NAMES).optional(),
    ...specFields,
    /** The world, tools, policy and goal of an episodic spec; required when kind is 'episodic'. */
    episodic: EpisodicSpecSchema.optional(),
  })
  .superRefine(needsEpisodicPart);
export type EnvSpec = z.infer<typeof EnvSpecSchema>;

/** The kind a spec asks for ('single' when it names none). */
export const specKind = (spec: Pick<EnvSpec, 'kind'>): KindName => spec.kind ?? 'single';

/** The reviewer's checklist, in the order the reviewer prompt asks it. */
export const REVIEW_CHECKS = [
  'promptUnambiguous',
  'formatStated',
  'verifierConsistent',
  'acceptsAllValid',
  'noLeak',
  'noShortcut',
] as const;
export type ReviewCheck = (typeof REVIEW_CHECKS)[number];

const check = z.object({ ok: z.boolean(), note: z.string().max(1000) });

export const ReviewSchema = z.object({
  checks: z.object({
    promptUnambiguous: check,
    formatStated: check,
    verifierConsistent: check,
    acceptsAllValid: check,
    noLeak: check,
    noShortcut: check.describe(
      'verify checks every requirement the prompt states, and nothing cheaper than solving pays (a constant, ' +
        'every option listed, a small-range guess).',
    ),
  }),
});
export type Review = z.infer<typeof ReviewSchema>;

/** The checks a review failed, in checklist order; empty when the review passes. */
export function failedChecks<C extends string = ReviewCheck>(
  review: { checks: Record<C, { ok: boolean }> },
  checklist: readonly C[] = REVIEW_CHECKS as readonly string[] as readonly C[],
): C[] {
  return checklist.filter((name) => !review.checks[name].ok);
}

/** The reviewer's checklist for an episodic (contract v2) candidate, in the order its prompt asks it. */
export const EPISODIC_REVIEW_CHECKS = [
  'goalStated',
  'toolsDescribed',
  'onlyThroughTools',
  'scoresState',
  'policyEnforced',
  'noLeak',
] as const;
export type EpisodicReviewCheck = (typeof EPISODIC_REVIEW_CHECKS)[number];

export const EpisodicReviewSchema = z.object({
  checks: z.object({
    goalStated: check.describe('The prompt states the goal, the policy, which tool finishes and the turn limit.'),
    toolsDescribed: check.describe('Every tool and every parameter is described well enough to call it right.'),
    onlyThroughTools: check.describe(
      'The goal is reachable only through the tools: the facts it needs are not in the prompt.',
    ),
    scoresState: check.describe('score() checks the final state, never a claim of success in an argument.'),
    policyEnforced: check.describe(
      'Every stated rule lowers the score when broken (a skipped read or rule never scores 1), and ' +
        'no cheaper strategy pays.',
    ),
    noLeak: check.describe(
      'No observation reveals the reward, whether the goal is met, or a value the agent must derive (copied ' +
        'ids and stored values are fine).',
    ),
  }),
});
export type EpisodicReview = z.infer<typeof EpisodicReviewSchema>;

/** Skills by area: what the architect steers toward. Every seed's skills are here; each skill is in one area. */
export const SKILL_TAXONOMY = {
  'arithmetic-and-numbers': [
    'arithmetic',
    'number-theory',
    'modular-arithmetic',
    'primes',
    'fractions',
    'base-conversion',
    'bit-manipulation',
  ],
  'algebra-and-sequences': ['sequences', 'linear-algebra', 'polynomials', 'equation-solving', 'recurrences'],
  'counting-and-probability': ['combinatorics', 'counting', 'probability', 'expected-value', 'inclusion-exclusion'],
  'geometry-and-grids': ['geometry', 'coordinate-geometry', 'grids', 'spatial-reasoning'],
  graphs: [
    'graphs',
    'graph-traversal',
    'shortest-paths',
    'topological-sort',
    'trees',
    'connectivity',
    'matching',
    'network-flow',
  ],
  algorithms: [
    'dynamic-programming',
    'greedy',
    'sorting',
    'search',
    'binary-search',
    'backtracking',
    'divide-and-conquer',
    'optimization',
  ],
  'intervals-and-scheduling': ['intervals', 'scheduling', 'date-arithmetic', 'resource-allocation'],
  'data-structures': [
    'data-structure-simulation',
    'caching',
    'stacks-and-queues',
    'heaps',
    'hashing',
    'state-tracking',
  ],
  'strings-and-languages': ['strings', 'parsing', 'pattern-matching', 'edit-distance', 'encoding', 'formal-languages'],
  'logic-and-constraints': ['logic', 'constraint-satisfaction', 'boolean-satisfiability', 'deduction', 'puzzles'],
  'simulation-and-programs': ['simulation', 'state-machines', 'program-tracing', 'cellular-automata', 'game-theory'],
  // What multi-turn tool-use (episodic) environments train.
  'tool-use-and-planning': [
    'tool-use',
    'information-gathering',
    'policy-following',
    'multi-step-state-changes',
    'tool-error-recovery',
    'asking-before-acting',
    'planning',
    'exploration',
    'web-navigation',
  ],
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
