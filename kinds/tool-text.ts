// A tool's call shape in one line of text, for people: `place_order {"sku": string, "packs": integer 1–50}`,
// the form `envforge play` reads, with optional parameters marked `?`; `sample`, `play` and the dashboard show it.
import type { Tool } from '../contract/episodic.js';

type Schema = Record<string, unknown>;
const isObject = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A parameter's type in words: `integer 1–50`, `string`, `"a" | "b"`, `[string]`, `{…}`. */
export function schemaText(schema: unknown, depth = 0): string {
  if (!isObject(schema)) return 'any';
  if (Array.isArray(schema.enum))
    return (
      schema.enum
        .slice(0, 8)
        .map((v) => JSON.stringify(v))
        .join(' | ') + (schema.enum.length > 8 ? ' | …' : '')
    );
  const type = typeof schema.type === 'string' ? schema.type : 'any';
  if (type === 'integer' || type === 'number') {
    const lo = typeof schema.minimum === 'number' ? schema.minimum : undefined;
    const hi = typeof schema.maximum === 'number' ? schema.maximum : undefined;
    return lo !== undefined && hi !== undefined
      ? `${type} ${lo}–${hi}`
      : lo !== undefined
        ? `${type} ≥ ${lo}`
        : hi !== undefined
          ? `${type} ≤ ${hi}`
          : type;
  }
  if (type === 'array') return `[${schemaText(schema.items, depth + 1)}]`;
  if (type === 'object') return depth >= 2 ? '{…}' : argsText(schema, depth + 1);
  return type;
}

/** An object schema's properties as a JSON-like template, required ones first. */
function argsText(schema: Schema, depth: number): string {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [],
  );
  const names = Object.keys(properties).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  if (names.length === 0) return '{}';
  return `{${names.map((n) => `"${n}"${required.has(n) ? '' : '?'}: ${schemaText(properties[n], depth)}`).join(', ')}}`;
}

/** One line per tool: its call shape, then its description. */
export function toolUsageLines(tools: readonly Tool[]): string {
  return tools.map((t) => `${t.name} ${schemaText(t.parameters)}\n    ${t.description}`).join('\n');
}
