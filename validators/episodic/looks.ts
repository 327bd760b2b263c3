// The looks (redteam-trust16 Q5): every call a policy can make without naming an entity, so what it can see: a tool
// whose required arguments are none (its optional ones left out, then each given the values its schema allows one at
// a time), and a tool whose required arguments take only such values (an enum's values, a boolean, small integers
// 1..3 for a page or a number), each value tried once beside the others' first, within a budget.
import type { Action } from './adversaries.js';

/** At most this many looks a pass (the calls beyond it are dropped, the tools' order kept). */
export const LOOKS_BUDGET = 16;

/** The small integers a page or a count is tried at, within the schema's bounds. */
const SMALL = [1, 2, 3];

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}
interface ToolSchema {
  name: string;
  parameters: { properties?: object; required?: readonly string[] };
}

const typed = (s: Schema, t: string) => (Array.isArray(s.type) ? s.type.includes(t) : s.type === t);

/** The values a policy can give argument `s` without naming an entity; null where it takes free text or any number. */
export function choicesOf(s: Schema): unknown[] | null {
  if (Array.isArray(s.enum)) return s.enum.length > 0 ? s.enum : null;
  if (typed(s, 'boolean')) return [true, false];
  if (typed(s, 'integer') || typed(s, 'number')) {
    const ok = (n: number) =>
      (s.minimum === undefined || n >= s.minimum) &&
      (s.maximum === undefined || n <= s.maximum) &&
      (s.exclusiveMinimum === undefined || n > s.exclusiveMinimum) &&
      (s.exclusiveMaximum === undefined || n < s.exclusiveMaximum);
    const small = SMALL.filter(ok);
    return small.length > 0 ? small : null;
  }
  return null;
}

/** The looks of one tool: its base call (no optional argument), then each argument's other values one at a time. */
function looksOfTool(t: ToolSchema): Action[] {
  const props = Object.entries((t.parameters.properties ?? {}) as Record<string, Schema>);
  const required = new Set(t.parameters.required ?? []);
  const choices = props.map(([k, s]) => [k, choicesOf(s)] as const);
  if (choices.some(([k, c]) => required.has(k) && c === null)) return [];
  const base = Object.fromEntries(choices.flatMap(([k, c]) => (required.has(k) && c ? [[k, c[0]]] : [])));
  const looks: Action[] = [{ tool: t.name, args: base }];
  for (const [k, c] of choices) {
    for (const v of c ?? []) if (base[k] !== v) looks.push({ tool: t.name, args: { ...base, [k]: v } });
  }
  return looks;
}

/** The looks a policy can make with `tools` (the finish aside), the bare calls first, at most `budget`. */
export function looksOf(tools: readonly ToolSchema[], finish: string, budget = LOOKS_BUDGET): Action[] {
  const each = tools.filter((t) => t.name !== finish).map(looksOfTool);
  const bare = each.flatMap((l) => l.slice(0, 1));
  return [...bare, ...each.flatMap((l) => l.slice(1))].slice(0, budget);
}

/** The tools a policy can list with (no arguments at all), the finish aside, called bare. */
export const listingsOf = (tools: readonly ToolSchema[], finish: string): Action[] =>
  tools
    .filter((t) => t.name !== finish && Object.keys(t.parameters.properties ?? {}).length === 0)
    .map((t): Action => ({ tool: t.name, args: {} }));
