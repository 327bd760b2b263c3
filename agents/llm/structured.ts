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
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, { unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
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

export type Parsed<T> = { ok: true; value: T; raw?: unknown } | { ok: false; problem: string };

/** Places in a reply where one JSON value may start, tried in order: at most this many. */
const MAX_JSON_STARTS = 32;

/**
 * Model text to JSON: the whole reply, else a fenced block (```json or bare), else the first balanced
 * object or array in the prose around it, else the span from the first to the last bracket.
 */
export function parseJsonText(text: string): Parsed<unknown> {
  const found = jsonCandidates(text);
  return found.values.length > 0 ? { ok: true, value: found.values[0] } : { ok: false, problem: found.problem };
}

/** Every JSON value the reply may mean, most likely first (see parseJsonText), or why there is none. */
export function jsonCandidates(text: string): { values: unknown[]; problem: string } {
  const fenced = [...text.matchAll(/```[a-z]*[ \t]*\r?\n?([\s\S]*?)```/gi)].map((m) => m[1]?.trim());
  const spans = [text.trim(), ...fenced, ...balancedSpans(text), outermost(text)].filter((c): c is string => !!c);
  const values: unknown[] = [];
  let problem = 'the reply is empty';
  for (const span of new Set(spans)) {
    try {
      values.push(JSON.parse(span) as unknown);
    } catch (error) {
      problem = `the reply is not valid JSON (${(error as Error).message})`;
    }
  }
  return { values, problem };
}

/** Bracket-balanced spans starting at a `{` or `[` (strings skipped), in order: prose may hold stray brackets. */
function balancedSpans(text: string): string[] {
  const spans: string[] = [];
  const opening = /[[{]/g;
  for (let tried = 0, m = opening.exec(text); m && tried < MAX_JSON_STARTS; tried++, m = opening.exec(text)) {
    const end = matchingClose(text, m.index);
    if (end > m.index) spans.push(text.slice(m.index, end + 1));
  }
  return spans;
}

/** Deeper than any reply a model means as JSON: a run of open brackets stops the scan here, not at the end. */
const MAX_JSON_DEPTH = 512;

/** Index of the bracket closing the one at `start`, or -1. */
function matchingClose(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i] as string;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') {
      if (stack.push(c === '{' ? '}' : ']') > MAX_JSON_DEPTH) return -1;
    } else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}

function outermost(text: string): string | undefined {
  const start = text.search(/[[{]/);
  if (start < 0) return undefined;
  const end = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
  return end > start ? text.slice(start, end + 1) : undefined;
}

export function checkValue<T>(schema: z.ZodType<T>, raw: unknown, wrapped: boolean): Parsed<T> {
  const candidate =
    wrapped && raw && typeof raw === 'object' && 'value' in raw ? (raw as { value: unknown }).value : raw;
  const result = schema.safeParse(candidate);
  if (result.success) return { ok: true, value: result.data, raw: candidate };
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
