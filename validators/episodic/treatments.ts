// What a prompt replay may not carry (redteam-s18e E7): which tools each entity gets, where the references treat
// entities differently, is a decision the observations taught the reference, not a value the prompt spells out. The
// replay draws each entity's treatment (the tools its calls use, in order) among the references' treatments, as it
// draws an enum argument, so only what the prompt determines is replayed as the reference played it. An entity the
// prompt says anything of beyond its name (a status, a match, a tool) keeps its treatment: the prompt may determine it.
import { escape } from './adversaries-values.js';
import { isAction } from './adversaries.js';
import type { EpisodicMeta } from '../../contract/episodic.js';

interface Call {
  tool: string;
  args: Record<string, unknown>;
}

const isCall = (a: unknown): a is Call => isAction(a) && typeof a.args === 'object';

/** The entity a call is about: its first string argument that is not an enum (an id, a name), or undefined. */
export function entityOf(meta: EpisodicMeta, call: Call): string | undefined {
  const props = (meta.tools.find((t) => t.name === call.tool)?.parameters.properties ?? {}) as Record<
    string,
    { enum?: unknown[] }
  >;
  for (const [key, value] of Object.entries(call.args ?? {}))
    if (typeof value === 'string' && value.length > 0 && !props[key]?.enum) return value;
  return undefined;
}

/** Each entity's calls in `actions`, in order of the entity's first call. */
function byEntity(meta: EpisodicMeta, actions: readonly unknown[]): Map<string, Call[]> {
  const out = new Map<string, Call[]>();
  for (const a of actions) {
    if (!isCall(a)) continue;
    const e = entityOf(meta, a);
    if (e !== undefined) out.set(e, [...(out.get(e) ?? []), a]);
  }
  return out;
}

const shapeKey = (calls: readonly Call[]) => calls.map((c) => c.tool).join('\u0000');

/** The distinct treatments (tool sequences of one entity's calls) across the logs, in a fixed order. */
export function treatmentsOf(meta: EpisodicMeta, logs: readonly (readonly unknown[])[]): string[][] {
  const seen = new Map<string, string[]>();
  for (const log of logs)
    for (const calls of byEntity(meta, log).values())
      seen.set(
        shapeKey(calls),
        calls.map((c) => c.tool),
      );
  return [...seen.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, tools]) => tools);
}

const word = (text: string) => new RegExp(`(?<![\\w-])${escape(text)}(?![\\w-])`, 'i');

/**
 * Whether a part of `prompt` (a line, a clause between commas, colons, semicolons or sentence ends) says something of
 * `entity` beyond naming it: a word, a number or another value next to it ("T-7484 (urgent)", "C-12 -> F7234",
 * "T-7484: escalate"). The prompt may then determine its treatment, which is kept; an entity only listed bare
 * ("Tickets: T-7484, T-9408 and T-1234") is told nothing (redteam-s18e E7; the prompt's facts, rt24 E1).
 */
export function describedInPrompt(prompt: string, entity: string): boolean {
  const id = word(entity);
  return prompt
    .slice(0, 20_000)
    .split(/\n|[,;:]|\.\s|\b(?:and|or)\b/i)
    .some((part) => id.test(part) && /[\p{L}\p{N}]/u.test(part.replace(new RegExp(id.source, 'gi'), ' ')));
}

/** `value` replaced by `by` wherever an argument of `call` is exactly it. */
const moved = (call: Call, value: string, by: string): Call => ({
  tool: call.tool,
  args: Object.fromEntries(Object.entries(call.args).map(([k, v]) => [k, v === value ? by : v])),
});

/**
 * `actions` with each entity's calls replaced by a treatment `draw` picks among `treatments` (none changed where
 * fewer than two exist, nor an entity the prompt says something of). A drawn tool the entity's own
 * calls do not use takes the arguments of another entity's call of that tool in `actions`, the entity put in; a tool
 * no call of `actions` uses is left out. The calls keep their
 * places: the k-th call on an entity becomes the k-th call of its new treatment, any further ones follow its last.
 */
export function redrawTreatments(
  meta: EpisodicMeta,
  actions: readonly unknown[],
  treatments: readonly (readonly string[])[],
  draw: (n: number) => number,
  prompt = '',
): unknown[] {
  if (treatments.length < 2) return [...actions];
  const entities = byEntity(meta, actions);
  const anyOf = (tool: string) => actions.find((a): a is Call => isCall(a) && a.tool === tool);
  const next = new Map<string, Call[]>();
  for (const [entity, own] of entities) {
    const ownTools = own.map((c) => c.tool);
    const told = describedInPrompt(prompt, entity);
    const drawn = told ? ownTools : (treatments[draw(treatments.length)] ?? []);
    const unused = [...own];
    const calls: Call[] = [];
    for (const tool of drawn) {
      const mine = unused.findIndex((c) => c.tool === tool);
      if (mine >= 0) calls.push(...unused.splice(mine, 1));
      else {
        const other = anyOf(tool);
        const from = other && entityOf(meta, other);
        if (other && from !== undefined) calls.push(moved(other, from, entity));
      }
    }
    next.set(entity, calls);
  }
  const seen = new Map<string, number>();
  const out: unknown[] = [];
  for (const a of actions) {
    const entity = isCall(a) ? entityOf(meta, a) : undefined;
    if (entity === undefined) {
      out.push(a);
      continue;
    }
    const k = seen.get(entity) ?? 0;
    seen.set(entity, k + 1);
    const calls = next.get(entity) ?? [];
    const last = k === (entities.get(entity)?.length ?? 0) - 1;
    out.push(...(last ? calls.slice(k) : calls.slice(k, k + 1)));
  }
  return out;
}
