// The adversarial policy library of the episodic hack stage (FINDINGS-rt3): action logs a cheap agent could
// play, built from a reference episode: tool ablations (which tools decide the score), prefixes of the plan
// then the finishing call (with a model-like opening of no-argument tools too), one decision repeated then the
// finish, one call made k times then the finish, one decision applied to every entity then the finish, and
// off-path calls of the reference's numeric value-setting calls (a wrong value, values either side) whose
// observations the off-path check (validators/checks/episodic-off-path.ts) reads.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { EpisodicProbeFamily } from '../../kinds/contract.js';
import type { Rollout, RolloutRequest } from '../../sandbox/rollouts.js';

/** One probe of the episodic hack stage (probes.ts builds the fixed families, this module the adversaries). */
export interface Probe {
  family: EpisodicProbeFamily;
  /** The reference episode it was built from (index into the references), or -1. */
  of: number;
  request: RolloutRequest;
  /** Adversary probes: judged only where one of these tools decides the reference's score (tool ablation). */
  needs?: string[];
  /** Off-path probes: the reference's value-setting argument and the wrong value sent. */
  offPath?: OffPath;
}

export interface Action {
  tool: string;
  args: Record<string, unknown>;
}
/** A numeric argument the reference sets: the call (its index in the log), the argument, the reference's value. */
export interface Target {
  index: number;
  arg: string;
  value: number;
  integer: boolean;
  min: number | undefined;
  max: number | undefined;
}
/** What an off-path probe sent: the target, the wrong value, and which side of the value it lies. */
export interface OffPath {
  target: Target;
  sent: number;
  side: 'zero' | 'low' | 'high';
}

type Schema = { type?: string; enum?: unknown[]; minimum?: number; maximum?: number; maxLength?: number };
/** Whether a logged item is a call (an object with a tool name), whatever else it holds. */
export const isAction = (a: unknown): a is { tool: string; args?: Record<string, unknown> } =>
  a !== null && typeof a === 'object' && typeof (a as { tool?: unknown }).tool === 'string';
export const asAction = (a: unknown): Action | null =>
  isAction(a)
    ? {
        tool: (a as Action).tool,
        args: ((a as { args?: Record<string, unknown> }).args ?? {}) as Record<string, unknown>,
      }
    : null;
export const actionsOf = (r: Rollout): Action[] => r.actions.map(asAction).filter((a): a is Action => a !== null);
export const keyOf = (a: Action): string =>
  a.tool + JSON.stringify(Object.entries(a.args).sort(([x], [y]) => (x < y ? -1 : 1)));
export const propsOf = (meta: EpisodicMeta, tool: string) =>
  (meta.tools.find((t) => t.name === tool)?.parameters.properties ?? {}) as Record<string, Schema>;
export const requiredOf = (meta: EpisodicMeta, tool: string) =>
  new Set(
    ((meta.tools.find((t) => t.name === tool)?.parameters as { required?: string[] } | undefined)?.required ??
      []) as string[],
  );

/** `tool`'s arguments filled by name from `call` (but `skip`), then `given`; null where a required one is missing. */
export function filledFrom(
  meta: EpisodicMeta,
  tool: string,
  call: Action,
  skip: readonly string[],
  given: Record<string, unknown> = {},
): Record<string, unknown> | null {
  const byName = Object.keys(propsOf(meta, tool)).filter((n) => !skip.includes(n) && n in call.args);
  const args = { ...Object.fromEntries(byName.map((n) => [n, call.args[n]])), ...given };
  return [...requiredOf(meta, tool)].every((n) => n in args) ? args : null;
}

const replay = (r: Rollout, actions: unknown[], extra: Partial<RolloutRequest> = {}): RolloutRequest => ({
  seed: r.seed,
  level: r.level,
  policy: { type: 'replay', actions },
  ...extra,
});
/** At most `n` of `list`, spread evenly, first and last kept. */
export const spread = <T>(list: T[], n: number): T[] =>
  list.length <= n
    ? list
    : Array.from({ length: n }, (_, i) => list[Math.round((i * (list.length - 1)) / (n - 1))] as T);

/** Numbers in a text as a reader takes them: thousands separators and a leading $ dropped ("$12,345" is 12345). */
export function numbersOf(text: string): number[] {
  return (text.slice(0, 20_000).match(/-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?/g) ?? [])
    .slice(0, 2_000)
    .map((t) => Number(t.replace(/,/g, '')));
}

/** Whether the reference ended its episode with a finishing call: the families below need one. */
export const finished = (r: Rollout): boolean =>
  r.end === 'done' && actionsOf(r).length === r.actions.length && r.actions.length >= 2;

/** The values each string or numeric argument of `tool` takes over every reference episode (decision categories). */
export function argValues(references: Rollout[]): Map<string, unknown[]> {
  const values = new Map<string, Set<string>>();
  for (const r of references) {
    for (const a of actionsOf(r)) {
      for (const [k, v] of Object.entries(a.args)) {
        if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') continue;
        const key = a.tool + '.' + k;
        if (!values.has(key)) values.set(key, new Set());
        (values.get(key) as Set<string>).add(JSON.stringify(v));
      }
    }
  }
  return new Map([...values].map(([k, set]) => [k, [...set].map((s) => JSON.parse(s) as unknown)]));
}

/**
 * The blanket logs for `tool` in reference `r`: the tool applied to every entity the episode names in the
 * same argument (those the reference decided and those it left alone), with one constant decision (each value
 * the decision arguments take across the references, and for a free string all of them joined in one string),
 * then the finishing call.
 */
export function blanketLogs(meta: EpisodicMeta, r: Rollout, tool: string, values: Map<string, unknown[]>): Action[][] {
  const acts = actionsOf(r);
  const calls = acts.slice(0, -1).filter((a) => a.tool === tool);
  const props = propsOf(meta, tool);
  const names = [...new Set(calls.flatMap((a) => Object.keys(a.args)))];
  const sameName = (arg: string) =>
    new Set(
      acts
        .filter((a) => a.tool !== tool)
        .map((a) => a.args[arg])
        .filter((v) => v !== undefined)
        .map((v) => JSON.stringify(v)),
    );
  const entity = names.find((arg) => {
    const s = props[arg] ?? {};
    if (s.type !== 'string' || s.enum) return false;
    const own = calls.map((a) => JSON.stringify(a.args[arg]));
    const others = sameName(arg);
    return own.some((v) => others.has(v)) || (own.length >= 2 && new Set(own).size === own.length);
  });
  if (entity === undefined) return [];
  const universe = [
    ...new Set(acts.map((a) => a.args[entity]).filter((v): v is string => typeof v === 'string')),
  ].slice(0, Math.max(1, meta.maxTurns - 2));
  const choices: Array<Array<Record<string, unknown>>> = [[{}]];
  for (const arg of names.filter((n) => n !== entity)) {
    const s = props[arg] ?? {};
    const seen = (values.get(tool + '.' + arg) ?? []).slice();
    const all = s.enum ? s.enum.slice(0, 6) : seen;
    const options: Array<Record<string, unknown>> = all.length <= 6 ? all.map((v) => ({ [arg]: v })) : [];
    const strings = seen.filter((v): v is string => typeof v === 'string');
    const joined = strings.join(' ');
    if (!s.enum && strings.length >= 2 && (s.maxLength === undefined || joined.length <= s.maxLength))
      options.push({ [arg]: joined });
    if (options.length === 0) return [];
    choices.push(options);
  }
  // One decision argument varies at a time, the others at their first value: a handful of logs, not a product.
  const base = Object.assign({}, ...choices.map((c) => c[0]));
  const assignments = [base, ...choices.slice(1).flatMap((c) => c.slice(1).map((o) => ({ ...base, ...o })))].slice(
    0,
    8,
  );
  const finish = acts[acts.length - 1] as Action;
  return assignments.map((assign) => [...universe.map((e) => ({ tool, args: { ...assign, [entity]: e } })), finish]);
}

/**
 * The reference's numeric value-setting arguments (not an enum, not retried by the reference itself), at most `limit`.
 */
export function targetsOf(meta: EpisodicMeta, r: Rollout, limit = 2): Target[] {
  const acts = actionsOf(r);
  const out: Target[] = [];
  const seenTools = new Set<string>();
  acts.forEach((a, index) => {
    if (out.length >= limit || seenTools.has(a.tool)) return;
    const props = propsOf(meta, a.tool);
    for (const [arg, v] of Object.entries(a.args)) {
      const s = props[arg] ?? {};
      if (typeof v !== 'number' || s.enum || (Number.isInteger(v) && Math.abs(v) < 10)) continue;
      // A reference that retries the call with the same other arguments makes retrying the task: not a shortcut.
      const others = (b: Action) => keyOf({ tool: b.tool, args: { ...b.args, [arg]: 0 } });
      if (acts.filter((b) => b.tool === a.tool && others(b) === others(a)).length > 1) continue;
      out.push({ index, arg, value: v, integer: s.type === 'integer', min: s.minimum, max: s.maximum });
      seenTools.add(a.tool);
      return;
    }
  });
  return out;
}

/**
 * A value for a target, rounded to its type and kept in its schema's range; null when none differs from the
 * reference's.
 */
export function fit(t: Target, v: number): number | null {
  let w = t.integer ? Math.round(v) : Math.round(v * 100) / 100;
  if (t.min !== undefined) w = Math.max(t.min, w);
  if (t.max !== undefined) w = Math.min(t.max, w);
  return w === t.value ? null : w;
}

/** The reference's target call with another value, alone: what a wrong attempt is told. */
export const offPathCall = (r: Rollout, t: Target, w: number): Action => {
  const a = actionsOf(r)[t.index] as Action;
  return { tool: a.tool, args: { ...a.args, [t.arg]: w } };
};

/** Every adversary probe of one reference episode (`of` is its index among the references). */
export function adversaryProbes(meta: EpisodicMeta, r: Rollout, of: number, values: Map<string, unknown[]>): Probe[] {
  if (!finished(r)) return [];
  const acts = actionsOf(r);
  const finish = acts[acts.length - 1] as Action;
  const body = acts.slice(0, -1);
  const tools = [...new Set(body.map((a) => a.tool))];
  const probes: Probe[] = [];
  const add = (
    family: Probe['family'],
    actions: Action[],
    needs: string[],
    extra: Partial<RolloutRequest> = {},
    offPath?: OffPath,
  ) => probes.push({ family, of, request: replay(r, actions, extra), needs, ...(offPath ? { offPath } : {}) });
  // Which tools decide the score: the reference without every call of one tool.
  for (const tool of tools) add('tool-ablation', [...body.filter((a) => a.tool !== tool), finish], [tool]);
  // Prefixes + finish: cut before and just after the first call of each tool, and a spread of other cuts.
  const needsAfter = (k: number) => {
    const kept = new Set(body.slice(0, k).map(keyOf));
    return [
      ...new Set(
        body
          .slice(k)
          .filter((a) => !kept.has(keyOf(a)))
          .map((a) => a.tool),
      ),
    ];
  };
  const firsts = tools.flatMap((t) => [body.findIndex((a) => a.tool === t), body.findIndex((a) => a.tool === t) + 1]);
  const cuts = [...new Set([...firsts, ...spread([...body.keys()], 6)])]
    .filter((k) => k >= 0 && k < body.length)
    .sort((a, b) => a - b);
  for (const k of cuts) add('prefix-finish', [...body.slice(0, k), finish], needsAfter(k));
  // A model-like opening: the no-argument tools (listings) the reference does not finish with, then the first reads.
  const opening = meta.tools
    .filter((t) => t.name !== finish.tool && Object.keys(t.parameters.properties ?? {}).length === 0)
    .map((t) => ({ tool: t.name, args: {} }));
  if (opening.length > 0)
    for (const k of [0, 1, 2, 3].filter((k) => k < body.length))
      add('prefix-finish', [...opening, ...body.slice(0, k), finish], needsAfter(k));
  // One call made k times (each tool's first call, and each listing), then the finishing call: reads repeated
  // to a count instead of the plan (k = 2, 5, and as many calls as the plan has).
  const once = [...new Map([...body, ...opening].map((a) => [a.tool, a] as const)).values()].slice(0, 3);
  const counts = [...new Set([2, 5, body.length])].filter((k) => k >= 2 && k <= meta.maxTurns - 1);
  const leftOut = (call: Action) => [...new Set(body.filter((a) => keyOf(a) !== keyOf(call)).map((a) => a.tool))];
  for (const call of once)
    for (const k of counts) add('repeat-reads', [...Array.from({ length: k }, () => call), finish], leftOut(call));
  let blankets = 0; // at most 16 blanket logs an episode: the family's cost stays bounded however many tools decide
  for (const tool of tools) {
    const calls = body.filter((a) => a.tool === tool);
    // One decision repeated as often as the reference decides, then the finish.
    if (new Set(calls.map(keyOf)).size >= 2)
      add('repeat-finish', [...Array.from({ length: calls.length }, () => calls[0] as Action), finish], [tool]);
    const mine = new Set(calls.map(keyOf));
    for (const log of blanketLogs(meta, r, tool, values)) {
      const theirs = new Set(log.slice(0, -1).map(keyOf));
      if (blankets < 16 && (theirs.size !== mine.size || [...theirs].some((k) => !mine.has(k))))
        add('blanket', log, [tool]), blankets++;
    }
  }
  // Off-path calls of each numeric value-setting argument: zero, and two values either side.
  for (const t of targetsOf(meta, r)) {
    const d = Math.max(t.integer ? 1 : 0.01, Math.abs(t.value) * 0.25);
    const sides: Array<[OffPath['side'], number]> = [
      ['zero', 0],
      ['low', t.value - d],
      ['low', t.value - 2 * d],
      ['high', t.value + d],
      ['high', t.value + 2 * d],
    ];
    for (const [side, v] of sides) {
      const w = fit(t, v);
      if (w !== null) add('off-path', [offPathCall(r, t, w)], [], { observations: true }, { target: t, sent: w, side });
    }
  }
  return probes;
}
