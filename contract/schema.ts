// The environment contract v1 as zod schemas: meta, instances, reference responses and verify results,
// with messages a person (and a repair prompt) can act on.
import { z } from 'zod';

export const NAME_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

export const CONTRACT_LIMITS = {
  maxNameChars: 64,
  minLevels: 3,
  maxLevels: 20,
  minSkills: 1,
  maxSkills: 5,
  maxTitleChars: 120,
  maxDescriptionChars: 2000,
  maxPromptChars: 16_000,
  maxInstanceChars: 256 * 1024,
  maxReferenceChars: 64 * 1024,
  maxFeedbackChars: 2000,
} as const;

const kebab = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .max(CONTRACT_LIMITS.maxNameChars, `${what} must be at most ${CONTRACT_LIMITS.maxNameChars} characters`)
    .regex(
      NAME_PATTERN,
      `${what} must be kebab-case: lowercase letters and digits in words joined by single hyphens, starting ` +
        `with a letter (e.g. "interval-merge-count")`,
    );

export const MetaSchema = z.object({
  name: kebab('meta.name'),
  title: z
    .string({ error: 'meta.title must be a string' })
    .trim()
    .min(1, 'meta.title must not be empty')
    .max(CONTRACT_LIMITS.maxTitleChars),
  description: z
    .string({ error: 'meta.description must be a string' })
    .trim()
    .min(1, 'meta.description must not be empty')
    .max(CONTRACT_LIMITS.maxDescriptionChars),
  skills: z
    .array(kebab('each skill'), { error: 'meta.skills must be an array of kebab-case tags' })
    .min(CONTRACT_LIMITS.minSkills, 'meta.skills needs at least one tag')
    .max(CONTRACT_LIMITS.maxSkills, `meta.skills allows at most ${CONTRACT_LIMITS.maxSkills} tags`)
    .refine((skills) => new Set(skills).size === skills.length, 'meta.skills must not repeat a tag'),
  levels: z
    .number({ error: 'meta.levels must be a number' })
    .int('meta.levels must be an integer')
    .min(CONTRACT_LIMITS.minLevels, `meta.levels must be at least ${CONTRACT_LIMITS.minLevels}`)
    .max(CONTRACT_LIMITS.maxLevels, `meta.levels must be at most ${CONTRACT_LIMITS.maxLevels}`),
});
export type Meta = z.infer<typeof MetaSchema>;

/** An instance: a plain JSON object whose `prompt` is the only field the policy sees. */
export const InstanceSchema = z.looseObject(
  {
    prompt: z
      .string({ error: 'instance.prompt must be a string (the text the policy model sees)' })
      .refine((p) => p.trim().length > 0, 'instance.prompt must not be empty')
      .refine(
        (p) => p.length <= CONTRACT_LIMITS.maxPromptChars,
        `instance.prompt must be at most ${CONTRACT_LIMITS.maxPromptChars} characters`,
      ),
  },
  { error: 'generate must return an object with a string prompt' },
);
export type Instance = z.infer<typeof InstanceSchema>;

export const ReferenceSchema = z
  .string({ error: 'solve must return the reference response as a string' })
  .refine((r) => r.trim().length > 0, 'solve returned an empty string')
  .refine(
    (r) => r.length <= CONTRACT_LIMITS.maxReferenceChars,
    `solve must return at most ${CONTRACT_LIMITS.maxReferenceChars} characters`,
  );

const score = z
  .number({ error: 'score must be a number' })
  .refine(Number.isFinite, 'score must be finite')
  .min(0, 'score must be at least 0')
  .max(1, 'score must be at most 1');

export const VerifyResultSchema = z.union(
  [score, z.object({ score, feedback: z.string().max(CONTRACT_LIMITS.maxFeedbackChars).optional() })],
  { error: 'verify must return a number in [0, 1] or { score, feedback }' },
);
export type VerifyResult = z.infer<typeof VerifyResultSchema>;

export interface Verdict {
  score: number;
  feedback?: string;
}

/** Normalises a verify result to { score, feedback }; throws a ZodError when it breaks the contract. */
export function toVerdict(value: unknown): Verdict {
  const parsed = VerifyResultSchema.parse(value);
  return typeof parsed === 'number'
    ? { score: parsed }
    : parsed.feedback === undefined
      ? { score: parsed.score }
      : parsed;
}

/** One readable line per contract violation, e.g. "meta.levels: meta.levels must be at least 3". */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.join('.');
    return path && !issue.message.includes(path) ? `${path}: ${issue.message}` : issue.message;
  });
}
