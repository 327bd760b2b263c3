// The looks (redteam-trust16 Q5): every call a policy can make without naming an entity, so what it can see: a tool
// whose required arguments are none (its optional ones left out, then each given the values its schema allows one at
// a time), and a tool whose required arguments take only such values (an enum's values, a boolean, small integers
// 1..3 for a page or a number) or values the episode shows that fit them (a date, the desk the prompt names:
// look-values.ts, redteam-trust17 R6), each value tried once beside the others' first, within a budget.
import type { RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from './adversaries.js';
import { shownValues, type StringSchema } from './look-values.js';

/** At most this many looks a pass (the calls beyond it are dropped, the tools' order kept). */
export const LOOKS_BUDGET = 16;

/** The small integers a page or a count is tried at, within the schema's bounds. */
const SMALL = [1, 2, 3];

interface Schema extends StringSchema {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}
interface ToolSchema {
  name: string;
  description?: string;
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

/**
 * What a look fills a required free string argument from: the texts the episode shows (the prompt, the reference's
 * replies), for a tool the reference's plan never calls (its own calls show what the tool answers it).
 */
export interface Shown {
  texts: readonly string[];
  called: ReadonlySet<string>;
}

/** The values of `t`'s required free string arguments the episode shows, by argument (none fits: an empty list). */
function shownChoices(t: ToolSchema, props: ReadonlyArray<[string, Schema]>, shown: Shown | undefined) {
  const required = new Set(t.parameters.required ?? []);
  const free = props.filter(([k, s]) => required.has(k) && choicesOf(s) === null);
  if (!shown || shown.called.has(t.name)) return new Map<string, unknown[]>();
  const context = free.length === 1 ? (t.description ?? '') : '';
  return new Map(free.map(([k, s]) => [k, typed(s, 'string') ? shownValues(k, s, shown.texts, context) : []]));
}

/** The looks of one tool: its base call (no optional argument), then each argument's other values one at a time. */
function looksOfTool(t: ToolSchema, shown?: Shown): Action[] {
  const props = Object.entries((t.parameters.properties ?? {}) as Record<string, Schema>);
  const required = new Set(t.parameters.required ?? []);
  const fill = shownChoices(t, props, shown);
  const choices = props.map(([k, s]) => {
    const c = choicesOf(s) ?? fill.get(k) ?? null;
    return [k, c && c.length > 0 ? c : null] as const;
  });
  if (choices.some(([k, c]) => required.has(k) && c === null)) return [];
  const base = Object.fromEntries(choices.flatMap(([k, c]) => (required.has(k) && c ? [[k, c[0]]] : [])));
  const looks: Action[] = [{ tool: t.name, args: base }];
  for (const [k, c] of choices) {
    for (const v of c ?? []) if (base[k] !== v) looks.push({ tool: t.name, args: { ...base, [k]: v } });
  }
  return looks;
}

/**
 * The looks a policy can make with `tools` (the finish aside), the bare calls first, at most `budget`; free string
 * arguments take the values `shown` holds.
 */
export function looksOf(tools: readonly ToolSchema[], finish: string, budget = LOOKS_BUDGET, shown?: Shown): Action[] {
  const each = tools.filter((t) => t.name !== finish).map((t) => looksOfTool(t, shown));
  const bare = each.flatMap((l) => l.slice(0, 1));
  return [...bare, ...each.flatMap((l) => l.slice(1))].slice(0, budget);
}

/** The tools a policy can list with (no arguments at all), the finish aside, called bare. */
export const listingsOf = (tools: readonly ToolSchema[], finish: string): Action[] =>
  tools
    .filter((t) => t.name !== finish && Object.keys(t.parameters.properties ?? {}).length === 0)
    .map((t): Action => ({ tool: t.name, args: {} }));

/**
 * The texts shown before a plan of `body` calls (redteam-trust18 R4): the prompt and the replies to the looks that
 * `played` (the looks, the plan, the looks again) made before it, as `look` answered them.
 */
export function openingOf(prompt: string, played: RolloutRequest | undefined, body: number, look?: RolloutResult) {
  const p = played?.policy;
  const before = p?.type === 'replay' ? (p.actions.length - body) / 2 : 0;
  return [prompt, ...(look?.ok ? (look.observations ?? []).slice(0, before) : [])];
}
