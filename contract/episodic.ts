// The environment contract v2 (episodic) as zod schemas: meta with maxTurns and tools, and the JSON Schema
// subset a tool's parameters may use. Schemas are untrusted guest data: they are checked here and then
// interpreted (sandbox/episodic-runtime.js), never compiled into code.
import { z } from 'zod';
import type { ProblemCode } from './codes.js';
import { MetaSchema } from './schema.js';
import { metaTextProblems } from './text.js';

export const EPISODIC_LIMITS = {
  maxTurns: 100,
  /** Bad actions that end an episode (a host setting, not the module's). */
  maxErrors: 3,
  maxTools: 32,
  maxToolNameChars: 64,
  maxToolDescriptionChars: 1_024,
  maxSchemaDepth: 4,
  maxProperties: 32,
  maxEnumValues: 100,
  /** Canonical JSON of one action's args. */
  maxArgsChars: 4_096,
  /** Canonical JSON of the state the host holds. */
  maxStateChars: 256 * 1024,
  maxObservationChars: 16_000,
  /** meta as a whole, tools included. */
  maxMetaChars: 64 * 1024,
} as const;

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** The keywords each type may use besides type, description and enum. */
const KEYWORDS: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength'],
  integer: ['minimum', 'maximum'],
  number: ['minimum', 'maximum'],
  boolean: [],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties', 'required', 'additionalProperties'],
};
const ENUM_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const ofType = (type: string, v: unknown) =>
  type === 'string'
    ? typeof v === 'string'
    : type === 'boolean'
      ? typeof v === 'boolean'
      : type === 'integer'
        ? Number.isSafeInteger(v)
        : typeof v === 'number' && Number.isFinite(v);

/** Problems of a parameter schema outside the documented subset (empty when it is inside). */
export function schemaProblems(schema: unknown, path: string, depth = 0): string[] {
  if (!isObject(schema)) return [`${path} must be an object schema`];
  if (depth > EPISODIC_LIMITS.maxSchemaDepth)
    return [`${path} is nested deeper than ${EPISODIC_LIMITS.maxSchemaDepth} levels`];
  const type = schema.type;
  if (typeof type !== 'string' || !Object.hasOwn(KEYWORDS, type))
    return [`${path}.type must be one of ${Object.keys(KEYWORDS).join(', ')}`];
  const out: string[] = [];
  const allowed = new Set(['type', 'description', 'enum', ...(KEYWORDS[type] ?? [])]);
  for (const key of Object.keys(schema))
    if (!allowed.has(key))
      out.push(`${path}.${key.slice(0, 40)} is not in the supported JSON Schema subset for type ${type}`);
  if (
    'description' in schema &&
    (typeof schema.description !== 'string' || schema.description.length > EPISODIC_LIMITS.maxToolDescriptionChars)
  ) {
    out.push(`${path}.description must be a string of at most ${EPISODIC_LIMITS.maxToolDescriptionChars} characters`);
  }
  if ('enum' in schema) {
    const values = schema.enum;
    const ok =
      Array.isArray(values) &&
      values.length >= 1 &&
      values.length <= EPISODIC_LIMITS.maxEnumValues &&
      ENUM_TYPES.has(type) &&
      values.every((v) => ofType(type, v) && (typeof v !== 'string' || v.length <= 200));
    if (!ok) out.push(`${path}.enum must list 1 to ${EPISODIC_LIMITS.maxEnumValues} values of type ${type}`);
  }
  for (const [lo, hi, valid] of [
    ['minimum', 'maximum', Number.isFinite],
    ['minLength', 'maxLength', isCount],
    ['minItems', 'maxItems', isCount],
  ] as const) {
    if (lo in schema && !valid(schema[lo] as number))
      out.push(`${path}.${lo} must be ${lo === 'minimum' ? 'a finite number' : 'a non-negative integer'}`);
    if (hi in schema && !valid(schema[hi] as number))
      out.push(`${path}.${hi} must be ${hi === 'maximum' ? 'a finite number' : 'a non-negative integer'}`);
    if (lo in schema && hi in schema && (schema[lo] as number) > (schema[hi] as number))
      out.push(`${path}.${lo} is above ${hi}`);
  }
  if (type === 'array') {
    if (!('items' in schema)) out.push(`${path}.items is required for arrays`);
    else out.push(...schemaProblems(schema.items, `${path}.items`, depth + 1));
  }
  if (type === 'object') out.push(...objectProblems(schema, path, depth));
  return out;
}

function objectProblems(schema: Record<string, unknown>, path: string, depth: number): string[] {
  const out: string[] = [];
  if ('additionalProperties' in schema && schema.additionalProperties !== false)
    out.push(`${path}.additionalProperties may only be false (undeclared arguments are always rejected)`);
  const properties = schema.properties ?? {};
  if (!isObject(properties)) return [...out, `${path}.properties must be an object`];
  const names = Object.keys(properties);
  if (names.length > EPISODIC_LIMITS.maxProperties)
    return [...out, `${path} declares ${names.length} properties, over the limit of ${EPISODIC_LIMITS.maxProperties}`];
  for (const name of names) {
    if (!PROPERTY_NAME.test(name) || FORBIDDEN_KEYS.has(name))
      out.push(
        `${path}.properties: "${name.slice(0, 40)}" is not an allowed property name (letters, digits, _; not ` +
          `__proto__, constructor or prototype)`,
      );
    else out.push(...schemaProblems(properties[name], `${path}.properties.${name}`, depth + 1));
  }
  const required = schema.required;
  if (
    required !== undefined &&
    (!Array.isArray(required) ||
      new Set(required).size !== required.length ||
      !required.every((r) => typeof r === 'string' && Object.hasOwn(properties, r)))
  ) {
    out.push(`${path}.required must list declared properties, each once`);
  }
  return out;
}

export const ToolSchema = z.strictObject(
  {
    name: z
      .string({ error: 'a tool name must be a string' })
      .regex(
        TOOL_NAME,
        'a tool name must be snake_case: a lowercase letter, then lowercase letters, digits or _ (at most 64)',
      ),
    description: z
      .string({ error: 'a tool description must be a string' })
      .trim()
      .min(1, 'a tool description must not be empty')
      .max(
        EPISODIC_LIMITS.maxToolDescriptionChars,
        `a tool description must be at most ${EPISODIC_LIMITS.maxToolDescriptionChars} characters`,
      ),
    parameters: z.unknown(),
  },
  { error: 'a tool is { name, description, parameters } (OpenAI function format) and nothing else' },
);
export type Tool = { name: string; description: string; parameters: Record<string, unknown> };

export const EpisodicMetaSchema = MetaSchema.extend({
  kind: z.literal('episodic', { error: "meta.kind must be 'episodic' for a v2 module" }),
  maxTurns: z
    .number({ error: 'meta.maxTurns must be a number' })
    .int('meta.maxTurns must be an integer')
    .min(1, 'meta.maxTurns must be at least 1')
    .max(EPISODIC_LIMITS.maxTurns, `meta.maxTurns must be at most ${EPISODIC_LIMITS.maxTurns}`),
  tools: z
    .array(ToolSchema, { error: 'meta.tools must be an array of tools' })
    .min(1, 'meta.tools needs at least one tool')
    .max(EPISODIC_LIMITS.maxTools, `meta.tools allows at most ${EPISODIC_LIMITS.maxTools} tools`)
    .refine(
      (tools) => new Set(tools.map((t) => t.name)).size === tools.length,
      'meta.tools must not declare a tool name twice',
    ),
});
export type EpisodicMeta = Omit<z.infer<typeof EpisodicMetaSchema>, 'tools'> & { tools: Tool[] };

/**
 * The problems of an episodic meta, each with its code: E_TOO_LARGE, E_META, E_CONTROL_CHARS (contract/text.ts) or
 * E_TOOL_SCHEMA.
 */
export function episodicMetaProblems(meta: unknown): Array<{ code: ProblemCode; message: string }> {
  const size = JSON.stringify(meta)?.length ?? 0;
  if (size > EPISODIC_LIMITS.maxMetaChars)
    return [
      {
        code: 'E_TOO_LARGE',
        message: `meta serialises to ${size} characters, over the limit of ${EPISODIC_LIMITS.maxMetaChars}`,
      },
    ];
  const parsed = EpisodicMetaSchema.safeParse(meta);
  if (!parsed.success)
    return parsed.error.issues
      .slice(0, 10)
      .map((issue) => ({ code: 'E_META' as const, message: `${issue.path.join('.') || 'meta'}: ${issue.message}` }));
  const text = metaTextProblems(meta);
  if (text.length > 0) return text;
  return parsed.data.tools.flatMap((tool) => {
    const problems =
      isObject(tool.parameters) && tool.parameters.type === 'object'
        ? schemaProblems(tool.parameters, `${tool.name}.parameters`)
        : [`${tool.name}.parameters must be an object schema ({ type: 'object', properties })`];
    return problems.slice(0, 5).map((message) => ({ code: 'E_TOOL_SCHEMA' as const, message }));
  });
}

/** The parsed meta of an episodic module, or null when it breaks the contract. */
export function parseEpisodicMeta(meta: unknown): EpisodicMeta | null {
  return episodicMetaProblems(meta).length === 0 ? (EpisodicMetaSchema.parse(meta) as EpisodicMeta) : null;
}

/** One action as the agent sends it: a tool call. */
export interface Action {
  tool: string;
  args: Record<string, unknown>;
}
