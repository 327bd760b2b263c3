// Adversaries on the categorical decisions of an episode (FINDINGS-rt4 R12, R13, R14, R16), as pure log
// builders and readers: a decision retried over every value until its reply changes (an oracle), tools the
// reference never calls read for its decision values (per entity, and free-text arguments sent the values),
// and free-text arguments set to the state's own key names (ground truth written by the agent).
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, filledFrom, requiredOf, type Action } from './adversaries.js';

type Schema = { type?: string; enum?: unknown[]; maxLength?: number };
export type Scalar = string | number | boolean;
const propsOf = (meta: EpisodicMeta, tool: string) =>
  (meta.tools.find((t) => t.name === tool)?.parameters.properties ?? {}) as Record<string, Schema>;
const freeText = (s: Schema | undefined) => s !== undefined && s.type === 'string' && !s.enum;

/** A categorical decision axis: a tool's argument and the values a policy can try for it (at least 2). */
export interface Axis {
  tool: string;
  arg: string;
  values: Scalar[];
}
/** One call of an axis in a reference episode: its index in the body, the value the reference sent, its entity. */
export interface Decision {
  index: number;
  value: Scalar;
  /** The call's other string arguments (the entity it acts on): ids a reader's reply can name. */
  entity: Record<string, string>;
}

/**
 * The categorical axes of the references' decisions: enum arguments (their members, at most 8), booleans, and
 * free strings whose values recur across reference episodes (at most 8; an id seen in one episode only is an
 * entity, not a category, and trying it elsewhere would hand the oracle the reference's answer).
 */
export function axesOf(meta: EpisodicMeta, references: Rollout[]): Axis[] {
  const seen = new Map<string, Map<string, Set<number>>>();
  references.forEach((r, i) => {
    for (const a of actionsOf(r)) {
      for (const [k, v] of Object.entries(a.args)) {
        if (typeof v !== 'string') continue;
        const key = a.tool + '\u0000' + k;
        const values = seen.get(key) ?? new Map<string, Set<number>>();
        seen.set(key, values.set(v, (values.get(v) ?? new Set()).add(i)));
      }
    }
  });
  const axes: Axis[] = [];
  for (const tool of meta.tools) {
    for (const [arg, s] of Object.entries(propsOf(meta, tool.name))) {
      let values: Scalar[] = [];
      if (Array.isArray(s.enum))
        values = s.enum.filter((v): v is Scalar => ['string', 'number', 'boolean'].includes(typeof v)).slice(0, 8);
      else if (s.type === 'boolean') values = [true, false];
      else if (s.type === 'string')
        values = [...(seen.get(tool.name + '\u0000' + arg) ?? new Map<string, Set<number>>())]
          .filter(([, eps]) => eps.size >= 2)
          .map(([v]) => v);
      if (values.length >= 2 && values.length <= 8) axes.push({ tool: tool.name, arg, values });
    }
  }
  return axes;
}

/** The reference's calls on an axis (the finishing call aside). */
export function decisionsOf(r: Rollout, axis: Axis): Decision[] {
  return actionsOf(r)
    .slice(0, -1)
    .flatMap((a, index) => {
      const value = a.args[axis.arg];
      if (a.tool !== axis.tool || !['string', 'number', 'boolean'].includes(typeof value)) return [];
      const entity = Object.fromEntries(
        Object.entries(a.args).filter(
          (e): e is [string, string] => e[0] !== axis.arg && typeof e[1] === 'string' && e[1].length >= 2,
        ),
      );
      return [{ index, value: value as Scalar, entity }];
    });
}

/**
 * Whether a policy can play the axis without the reference: the decision names one entity beside the value, an
 * id the reference also passes under the same name to another tool (a read). A call that carries more (a
 * flight beside a cabin, a doctor and a time beside a day) would hand the adversary the reference's other
 * choices, and a value the prompt happens to print ("12:00") is no entity.
 */
export function playable(r: Rollout, axis: Axis, decisions: Decision[]): boolean {
  const acts = actionsOf(r);
  const read = (name: string, v: unknown) =>
    typeof v === 'string' && acts.some((b) => b.tool !== axis.tool && b.args[name] === v);
  return (
    decisions.length > 0 &&
    decisions.every((d) => {
      const others = Object.entries((acts[d.index] as Action).args).filter(([name]) => name !== axis.arg);
      return others.length === 1 && others.every(([name, v]) => read(name, v));
    })
  );
}

/** The reference with every call of the axis sent `v` (its reads kept), then the finishing call. */
export function blanketValue(r: Rollout, axis: Axis, v: Scalar): Action[] {
  const acts = actionsOf(r);
  return acts.map((a, i) =>
    i < acts.length - 1 && a.tool === axis.tool && axis.arg in a.args
      ? { tool: a.tool, args: { ...a.args, [axis.arg]: v } }
      : a,
  );
}

export const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const word = (s: string) => new RegExp(`(^|[^A-Za-z0-9_])${escape(s)}(?=$|[^A-Za-z0-9_])`, 'i');
export const mentions = (text: string, value: Scalar) => word(String(value)).test(text);
/** A reply with the value sent and every number masked: what stays differs only if the reply depends on the truth. */
export const maskReply = (text: string, v: Scalar) =>
  text.replace(new RegExp(escape(String(v)), 'gi'), '\u00a7').replace(/\d+(?:\.\d+)?/g, '#');

/** The value whose masked reply (null where missing) alone differs while the others get one same reply, or null. */
export function singledOut(axis: Axis, masked: Array<string | null>): Scalar | null {
  // two replies that differ do not say which one means "accepted"
  if (axis.values.length < 3 || masked.includes(null)) return null;
  const counts = new Map<string, number>();
  for (const m of masked) counts.set(m as string, (counts.get(m as string) ?? 0) + 1);
  const odd = counts.size === 2 ? masked.findIndex((m) => counts.get(m as string) === 1) : -1;
  return odd < 0 ? null : (axis.values[odd] as Scalar);
}

/**
 * The oracle's choice for each decision: given the reply to the call under each value (`replies[v][d]`), the one
 * value whose masked reply differs while every other value gets one same reply ("bounced" for all but one).
 * Null for a decision where the replies do not single out a value (no oracle there).
 */
export function oracleChoices(
  axis: Axis,
  decisions: Decision[],
  replies: Array<Array<string | undefined>>,
): Array<Scalar | null> {
  return decisions.map((_, d) =>
    singledOut(
      axis,
      axis.values.map((v, k) => (replies[k]?.[d] === undefined ? null : maskReply(replies[k]?.[d] as string, v))),
    ),
  );
}

/** The oracle's log: each decision tried over the values in order until its choice (wrong tries first), then finish. */
export function oracleLog(r: Rollout, axis: Axis, decisions: Decision[], choices: Scalar[]): Action[] {
  const byIndex = new Map(decisions.map((d, k) => [d.index, choices[k] as Scalar]));
  return actionsOf(r).flatMap((a, i) => {
    const choice = byIndex.get(i);
    if (choice === undefined) return [a];
    const tries = axis.values.slice(0, axis.values.indexOf(choice) + 1);
    return tries.map((v) => ({ tool: a.tool, args: { ...a.args, [axis.arg]: v } }));
  });
}

/** A reader call and what it is about: a decision's entity, a value sent as free text, or everything (a listing). */
export interface Reading {
  call: Action;
  about: { decision: number } | { value: Scalar } | { listing: true };
}

/**
 * Calls of the tools this reference never calls: one per decision, its arguments filled by name from the
 * decision's call (the entity), and one per axis value for each free-text argument (a search for "billing").
 * At most `limit` calls; a tool whose required arguments cannot be filled is skipped.
 */
export function readerCalls(
  meta: EpisodicMeta,
  r: Rollout,
  axis: Axis,
  decisions: Decision[],
  limit: number,
): Reading[] {
  const acts = actionsOf(r);
  const used = new Set(acts.map((a) => a.tool));
  const out: Reading[] = [];
  for (const tool of meta.tools.filter((t) => !used.has(t.name))) {
    const props = propsOf(meta, tool.name);
    const required = requiredOf(meta, tool.name);
    const names = Object.keys(props);
    if (names.length === 0) {
      out.push({ call: { tool: tool.name, args: {} }, about: { listing: true } });
      continue;
    }
    decisions.forEach((d, k) => {
      const args = filledFrom(meta, tool.name, acts[d.index] as Action, [axis.arg]);
      if (args && Object.keys(args).length > 0) out.push({ call: { tool: tool.name, args }, about: { decision: k } });
    });
    for (const text of names.filter((n) => freeText(props[n]))) {
      const fixed = Object.fromEntries(
        names
          .filter((n) => n !== text && n in ((acts[decisions[0]?.index ?? -1] as Action | undefined)?.args ?? {}))
          .map((n) => [n, (acts[decisions[0]?.index as number] as Action).args[n]]),
      );
      if (![...required].every((n) => n === text || n in fixed)) continue;
      for (const v of axis.values)
        if (typeof v === 'string')
          out.push({ call: { tool: tool.name, args: { ...fixed, [text]: v } }, about: { value: v } });
    }
  }
  return out.slice(0, limit);
}

/**
 * The part of a sentence that belongs to one entity: from its id to the next other entity's id (a line that lists
 * several: "A1 (billing), B2 (shipping)").
 */
function ownPart(sentence: string, ids: string[], everyId: string[]): string {
  const at = (id: string) => sentence.search(new RegExp(`(^|[^A-Za-z0-9_])${escape(id)}(?=$|[^A-Za-z0-9_])`, 'i'));
  const starts = everyId.map(at).filter((x) => x >= 0);
  const own = ids.map(at).filter((x) => x >= 0);
  if (own.length === 0 || starts.length <= own.length) return sentence;
  const from = Math.min(...own);
  const to = Math.min(sentence.length, ...starts.filter((x) => x > from));
  return sentence.slice(from, to);
}

/**
 * What the readers' replies say about each decision: the one axis value a reply about its entity names, or the
 * one value whose search reply names its entity. Null where the replies name no value, or several.
 */
export function predictions(
  axis: Axis,
  decisions: Decision[],
  readings: Reading[],
  replies: Array<string | undefined>,
): Array<Scalar | null> {
  const everyId = [...new Set(decisions.flatMap((d) => Object.values(d.entity)))];
  return decisions.map((d, k) => {
    const found = new Set<Scalar>();
    const ids = Object.values(d.entity);
    readings.forEach((reading, j) => {
      const reply = replies[j] ?? '';
      if ('decision' in reading.about) {
        if (reading.about.decision === k) for (const v of axis.values) if (mentions(reply, v)) found.add(v);
      } else if ('value' in reading.about && (everyId.length < 2 || !everyId.every((id) => mentions(reply, id)))) {
        // A search that names every entity singles out none: its reply is read as a listing instead.
        if (ids.some((id) => mentions(reply, id))) found.add(reading.about.value);
      } else {
        // A listing with no arguments: the sentences that name this entity.
        for (const part of reply.split(/[\n;.]+/).filter((p) => ids.some((id) => mentions(p, id))))
          for (const v of axis.values) if (mentions(ownPart(part, ids, everyId), v)) found.add(v);
      }
    });
    return found.size === 1 ? ([...found][0] as Scalar) : null;
  });
}

/**
 * The copy policy: the readers, then the reference with each decision sent the value its reader predicts, then the
 * finish.
 */
export function copyLog(
  r: Rollout,
  axis: Axis,
  decisions: Decision[],
  readings: Reading[],
  predicted: Scalar[],
  maxTurns: number,
): Action[] {
  const byIndex = new Map(decisions.map((d, k) => [d.index, predicted[k] as Scalar]));
  const body = actionsOf(r).map((a, i) =>
    byIndex.has(i) ? { tool: a.tool, args: { ...a.args, [axis.arg]: byIndex.get(i) } } : a,
  );
  const log = [...readings.map((x) => x.call), ...body];
  // Too long for the turn limit: the reads the decisions do not need go first.
  return log.length <= maxTurns
    ? log
    : [...readings.map((x) => x.call), ...body.filter((a, i) => byIndex.has(i) || i === body.length - 1)];
}

/**
 * The state's key names whose values (somewhere in the initial state) are values the reference decides: its ground
 * truth fields.
 */
export function truthKeys(state: unknown, decided: Set<string>): string[] {
  const keys = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > 6 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) return v.slice(0, 200).forEach((x) => walk(x, depth + 1));
    for (const [k, x] of Object.entries(v)) {
      if (['string', 'number', 'boolean'].includes(typeof x) && decided.has(JSON.stringify(x))) keys.add(k);
      walk(x, depth + 1);
    }
  };
  walk(state, 0);
  return [...keys].slice(0, 3);
}

/**
 * State-key injection: before each decision, a call of a tool with two free-text arguments (a field and a value
 * the reference never needs) naming the decision's entity, the field set to a truth key and the value to `v`
 * (both orders); the decision sent `v` too; then the finish. Ground truth the agent can write pays it.
 */
export function injectionLogs(
  meta: EpisodicMeta,
  r: Rollout,
  axis: Axis,
  decisions: Decision[],
  keys: string[],
  v: Scalar,
): Action[][] {
  const acts = actionsOf(r);
  const logs: Action[][] = [];
  for (const tool of meta.tools) {
    const props = propsOf(meta, tool.name);
    const first = acts[decisions[0]?.index ?? -1];
    if (!first) return [];
    const texts = Object.keys(props).filter((n) => freeText(props[n]) && !(n in first.args));
    if (texts.length < 2) continue;
    const [p, q] = texts as [string, string];
    for (const key of keys) {
      for (const [field, value] of [
        [p, q],
        [q, p],
      ] as Array<[string, string]>) {
        const at = new Set(decisions.map((d) => d.index));
        logs.push(
          acts.flatMap((a, i) => {
            if (!at.has(i)) return [a];
            const entity = Object.fromEntries(
              Object.keys(props)
                .filter((n) => n in a.args && n !== axis.arg)
                .map((n) => [n, a.args[n]]),
            );
            return [
              { tool: tool.name, args: { ...entity, [field]: key, [value]: String(v) } },
              { tool: a.tool, args: { ...a.args, [axis.arg]: v } },
            ];
          }),
        );
      }
    }
    if (logs.length > 0) break; // the first such tool
  }
  return logs.slice(0, 6);
}
