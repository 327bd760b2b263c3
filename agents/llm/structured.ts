// Structured output helpers: a zod schema as the JSON schema providers accept, model text parsed back
// to JSON, checked by zod, and the re-ask message that tells the model what was wrong.
import { z } from 'zod';

export interface OutputSchema {
  jsonSchema: Record<string, unknown>;
  /** Providers want an object at the root: other roots are wrapped as `{ value: … }` and unwrapped on parse. */
  wrapped: boolean;
  /** Whether OpenAI's strict mode can take it (every property required, no extra properties). */
  strict: boolean;
}

export function toOutputSchema(schema: z.ZodType): OutputSchema {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, { unrepresentable: 'any' }) as Record<string, unknown>;
  const wrapped = jsonSchema['type'] !== 'object';
  const root = wrapped
    ? { type: 'object', properties: { value: jsonSchema }, required: ['value'], additionalProperties: false }
    : jsonSchema;
  return { jsonSchema: root, wrapped, strict: isStrictCompatible(root) };
}

function isStrictCompatible(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(isStrictCompatible);
  if (!node || typeof node !== 'object') return true;
  const n = node as Record<string, unknown>;
  if (n['type'] === 'object' || n['properties'] !== undefined) {
    const keys = Object.keys((n['properties'] as object | undefined) ?? {});
    const required = new Set((n['required'] as string[] | undefined) ?? []);
    if (n['additionalProperties'] !== false || !keys.every((k) => required.has(k))) return false;
  }
  return Object.values(n).every(isStrictCompatible);
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Model text to JSON: tolerates code fences and prose around one JSON object or array. */
export function parseJsonText(text: string): Parsed<unknown> {
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text)?.[1];
  const candidates = [text.trim(), fenced?.trim(), outermost(text)].filter((c): c is string => !!c);
  let problem = 'the reply is empty';
  for (const candidate of candidates) {
    try {
      return { ok: true, value: JSON.parse(candidate) as unknown };
    } catch (error) {
      problem = `the reply is not valid JSON (${(error as Error).message})`;
    }
  }
  return { ok: false, problem };
}

function outermost(text: string): string | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  return end > start ? text.slice(start, end + 1) : undefined;
}

export function checkValue<T>(schema: z.ZodType<T>, raw: unknown, wrapped: boolean): Parsed<T> {
  const candidate = wrapped && raw && typeof raw === 'object' && 'value' in raw ? (raw as { value: unknown }).value : raw;
  const result = schema.safeParse(candidate);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problem: `the JSON does not match the schema:\n${z.prettifyError(result.error)}` };
}

/** Appended to the system prompt when the provider has no native mode (or refused it). */
export function schemaInstruction(name: string, jsonSchema: Record<string, unknown>): string {
  return [
    `Reply with only one JSON value named "${name}" that matches this JSON schema, with no prose and no code fences:`,
    JSON.stringify(jsonSchema),
  ].join('\n');
}

export function reaskMessage(problem: string, truncated: boolean): string {
  const cut = truncated ? ' The reply was cut off at the output token limit: make it shorter.' : '';
  return `Your previous reply could not be used: ${problem}.${cut}\nReply again with only the corrected JSON.`;
}
