// The reward service's request bodies as zod schemas, and parsing that turns a bad body into a 400 naming
// the field and the item index.
import { z } from 'zod';
import { CONTRACT_LIMITS } from '../contract/schema.js';
import { SELECTABLE_KINDS } from '../library/select.js';
import { ServeError } from './options.js';

const required = (what: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? 'is required' : `must be ${what}`;
const EnvName = z
  .string({ error: required('a string (an environment name)') })
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters');
const Seed = z
  .number({ error: required('a number (a non-negative integer)') })
  .int('must be an integer')
  .min(0, 'must be a non-negative integer')
  .max(Number.MAX_SAFE_INTEGER, 'must be a safe integer');
const Level = z
  .number({ error: required(`a number (an integer level from 1 to ${CONTRACT_LIMITS.maxLevels})`) })
  .int('must be an integer')
  .min(1, 'must be at least 1')
  .max(CONTRACT_LIMITS.maxLevels, `must be at most ${CONTRACT_LIMITS.maxLevels}`);
const Version = z
  .number({ error: required('a number (a positive integer version)') })
  .int('must be an integer')
  .min(1, 'must be at least 1');
const Text = (what: string) => z.string({ error: required(what) });

export const Identity = z.object(
  { env: EnvName, version: Version.optional(), seed: Seed, level: Level },
  { error: 'must be an object { env, version?, seed, level }' },
);
export type InstanceIdentity = z.infer<typeof Identity>;
export const IdentityItem = Identity.extend({ response: Text('a string') });
export const GroundTruthItem = z.object({
  ground_truth: Text('a string (the identity JSON)'),
  response: Text('a string'),
});
export const ItemsBody = z.object(
  { items: z.array(z.unknown(), { error: required('an array') }) },
  { error: 'the body must be a JSON object' },
);
export const SampleBody = z.object(
  {
    items: z.array(z.unknown(), { error: required('an array') }).optional(),
    select: z
      .object(
        {
          env: EnvName.optional(),
          skills: z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' }).optional(),
          kind: z
            .enum(SELECTABLE_KINDS, { error: `must be one of ${SELECTABLE_KINDS.map((k) => `"${k}"`).join(', ')}` })
            .optional(),
          levels: z
            .tuple([Level, Level], { error: 'must be [min, max]' })
            .refine(([lo, hi]) => lo <= hi, 'must be [min, max] with min <= max')
            .optional(),
          level: z
            .literal('auto', { error: 'must be "auto" (levels near a 0.5 pass rate of the scores trainers asked for)' })
            .optional(),
          n: z
            .number({ error: required('a number (how many instances)') })
            .int('must be an integer')
            .min(1, 'must be at least 1'),
          seed: Seed.optional(),
        },
        { error: 'must be an object { env?, skills?, kind?, levels?, level?, n, seed? }' },
      )
      .optional(),
    reveal: z.boolean({ error: 'must be true or false' }).optional(),
  },
  { error: 'the body must be a JSON object' },
);
export const RewardBody = z.object(
  {
    query: z.array(Text('a string'), { error: required('an array of strings') }),
    prompts: z.array(Text('a string'), { error: required('an array of strings') }),
    labels: z.array(Text('a string'), { error: required('an array of strings') }),
  },
  { error: 'the body must be a JSON object { query, prompts, labels }' },
);

/** A tool call of an episode: { tool, args?, turn? } (turn: the turn this action makes, for idempotent retries). */
export const StepBody = z.object(
  {
    tool: z
      .string({ error: required("a string (the name of one of the environment's tools)") })
      .min(1, 'must not be empty')
      .max(200, 'must be at most 200 characters'),
    args: z.record(z.string(), z.unknown(), { error: "must be an object (the tool's arguments)" }).optional(),
    turn: z
      .number({ error: 'must be a number (the turn this action makes: 1 for the first step)' })
      .int('must be an integer')
      .min(1, 'must be at least 1')
      .optional(),
  },
  { error: 'the body must be a JSON object { tool, args?, turn? }' },
);
export const ScoreBody = Identity.extend({
  actions: z.array(z.unknown(), { error: required('an array of actions ({ tool, args })') }),
});

function pathText(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : `${out ? '.' : ''}${String(part)}`;
  return out;
}

/** Parses with zod, or throws a 400 whose message names the field (with the item index as a prefix). */
export function parse<T>(schema: z.ZodType<T>, value: unknown, prefix: Array<string | number> = []): T {
  const result = schema.safeParse(value);
  if (!result.success && value === undefined && prefix.length === 0)
    throw new ServeError(
      400,
      'E_BAD_REQUEST',
      'the request body is empty: send a JSON object (content-type: application/json)',
    );
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 5).map((issue) => {
    const where = pathText([...prefix, ...issue.path]);
    return where ? `${where}: ${issue.message}` : issue.message;
  });
  throw new ServeError(400, 'E_BAD_REQUEST', issues.join('; '));
}

export function checkCount(field: string, count: number, max: number): void {
  if (count > max)
    throw new ServeError(
      413,
      'E_TOO_MANY_ITEMS',
      `${field} has ${count} entries; at most ${max} are allowed per request`,
    );
}

/** An identity JSON string (an export's ground truth or an OpenRLHF label). */
export function parseIdentity(text: string, prefix: Array<string | number>): InstanceIdentity {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ServeError(
      400,
      'E_BAD_REQUEST',
      `${pathText(prefix)}: is not valid JSON; expected an identity like ` +
        `{"env":"name","version":1,"seed":123,"level":4}`,
    );
  }
  return parse(Identity, value, prefix);
}

/** One item of a POST /v1/sample answer. */
export interface SampledItem {
  env: string;
  version: number;
  seed: number;
  level: number;
  prompt?: string;
  ground_truth: string;
  hidden?: Record<string, unknown>;
  reference?: string;
  error?: { code: string; message: string };
  /** Episodic items (contract v2): the episode's start; play it with POST /v1/episodes. */
  kind?: 'episodic';
  tools?: unknown[];
  maxTurns?: number;
  /** Revealed episodic items: the reference rollout turn by turn, and its score. */
  referenceTurns?: Array<{ action: unknown; observation: string }>;
  referenceScore?: number;
}
