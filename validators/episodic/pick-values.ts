// The argument sets a pick-universe probe sends one candidate with (pick-universe.ts): the reference's own, then each
// argument given the values the world shows OF that entity (its own part of its listing cell, the replies of the
// reference's calls naming it: numbers, and strings of the shapes the reference sends per entity), never a header's or
// a neighbour's, and only sets the tool's schema admits (rt29e V6, V8).
import { loadPlainRuntime } from '../../sandbox/runtime.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from './adversaries.js';
import type { PickSample } from './selection.js';
import { idValue, shapeOf } from './structure.js';

/** The most of a candidate's own numbers tried as the call's numeric arguments. */
const NUMBERS = 2;
const TOKEN = /[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?/g;
/** The numbers of a text, its tokens holding a letter (ids, codes) set aside. */
const numbersOf = (t: string) =>
  (
    t
      .replace(TOKEN, (w) => (/[A-Za-z]/.test(w) ? ' ' : w))
      .replace(/(\d),(\d{3})/g, '$1$2')
      .match(/\d+(?:\.\d+)?/g) ?? []
  ).map(Number);

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
let runtime: ReturnType<typeof loadPlainRuntime> | undefined;
/** Whether the tool's schema admits the call (a set it refuses asks the host, not the world, and counts an error). */
function admits(sample: PickSample, args: Record<string, unknown>): boolean {
  if (sample.tools === undefined) return true;
  runtime ??= loadPlainRuntime();
  return runtime.episodic.checkAction(sample.tools, { tool: sample.tool, args }) === null;
}

/**
 * The entity's own part of its listing cell: the text after its id, and before it back to the last separator (in a
 * comma list the previous item, before the first a header ending in ':', are another's).
 */
function ownCell(sample: PickSample, id: string): string {
  const cell = sample.cells?.get(id) ?? '';
  const printed = sample.printed.get(id) ?? id;
  const at = cell.toLowerCase().indexOf(printed.toLowerCase());
  if (at < 0) return '';
  return `${cell.slice(at + printed.length)} ${
    cell
      .slice(0, at)
      .split(/[,;:]\s|\n/)
      .at(-1) ?? ''
  }`;
}

/**
 * The replies of the reference's calls of other tools than the pick's (a pick's echoes what it sent) that name `id`:
 * a reply naming other candidates too (a listing) by its items naming it (split at line ends, commas and semicolons).
 */
function repliesNaming(sample: PickSample, ref: Rollout, printed: string): string[] {
  const names = (t: string, id: string) => new RegExp(`(^|[^A-Za-z0-9])${escaped(id)}(?![A-Za-z0-9])`, 'i').test(t);
  const others = sample.candidates.map((c) => sample.printed.get(c) ?? c).filter((c) => c !== printed);
  return actionsOf(ref).flatMap((a, k) => {
    const reply = ref.observations?.[k] ?? '';
    if (a.tool === sample.tool || !names(reply, printed)) return [];
    return others.some((o) => names(reply, o)) ? reply.split(/[,;]\s|\n/).filter((t) => names(t, printed)) : [reply];
  });
}

/** The texts the world shows of `id`: its own cell, then the replies naming it (its printed id left out). */
function textsOf(sample: PickSample, ref: Rollout, id: string): string[] {
  const printed = sample.printed.get(id) ?? id;
  const drop = (t: string) => t.split(new RegExp(escaped(printed), 'gi')).join(' ');
  return [ownCell(sample, id), ...repliesNaming(sample, ref, printed)].map(drop);
}

/** An argument the reference fills with each entity's own string: the shapes of those values, the words before them. */
type Own = { shapes: Set<string>; labels: Set<string> };
const ownArgsCache = new WeakMap<PickSample, Map<string, Own>>();
/**
 * The free-string arguments (no enum, not the pick's) the reference fills per entity with an id-like token the world
 * shows of that entity (a receipt code its read prints), with the shapes of those values and the words before them.
 */
function ownArgs(sample: PickSample, ref: Rollout): Map<string, Own> {
  const cached = ownArgsCache.get(sample);
  if (cached) return cached;
  const out = new Map<string, Own>();
  for (const a of actionsOf(ref).filter((x) => x.tool === sample.tool && typeof x.args[sample.arg] === 'string')) {
    const tokens = textsOf(sample, ref, String(a.args[sample.arg]).toLowerCase()).flatMap((t) => t.match(TOKEN) ?? []);
    for (const [k, v] of Object.entries(a.args)) {
      const at = idValue(v) ? tokens.findIndex((t) => t.toLowerCase() === v.trim().toLowerCase()) : -1;
      if (k === sample.arg || sample.options?.has(k) || at < 0) continue;
      const own = out.get(k) ?? { shapes: new Set<string>(), labels: new Set<string>() };
      own.shapes.add(shapeOf(tokens[at] as string));
      if (at > 0) own.labels.add((tokens[at - 1] as string).toLowerCase());
      out.set(k, own);
    }
  }
  ownArgsCache.set(sample, out);
  return out;
}

/**
 * What the world shows of candidate `id` for the call's arguments: its numbers (the cell's own part first), and per
 * argument the reference fills with an entity's own string, the first token of its texts of that shape (null where it
 * shows none: the entity was never asked with its own value).
 */
export function shownOf(
  sample: PickSample,
  ref: Rollout,
  id: string,
): { numbers: number[]; strings: Map<string, string | null> } {
  const texts = textsOf(sample, ref, id);
  const tokens = texts.flatMap((t) => t.match(TOKEN) ?? []);
  // A token of the shape after one of the words, else one of the shape holding a digit (a code, not a word).
  const pick = ({ shapes, labels }: Own) =>
    tokens.find((t, j) => shapes.has(shapeOf(t)) && labels.has(tokens[j - 1]?.toLowerCase() ?? '')) ??
    tokens.find((t) => shapes.has(shapeOf(t)) && /\d/.test(t)) ??
    null;
  const strings = new Map([...ownArgs(sample, ref)].map(([k, own]) => [k, pick(own)]));
  return { numbers: [...new Set(texts.flatMap(numbersOf))], strings };
}

/** Whether an argument the reference fills with each entity's own value has none shown for `id`. */
export const untried = (sample: PickSample, ref: Rollout, id: string) =>
  [...shownOf(sample, ref, id).strings.values()].includes(null);

/**
 * The argument sets candidate `id` is sent with at the pick call `call`: the reference's own arguments, then its own
 * strings with the reference's numbers, each numeric argument set to a number the world shows of it, each value an
 * enum or flag allows, the numeric ones set to the least the reference sends and to 1 (a refusal of a borrowed amount,
 * code or mode is no refusal of the entity: rt28e U2, rt29e V8); sets the schema refuses are not sent.
 */
export function argumentSets(
  sample: PickSample,
  ref: Rollout,
  call: Action,
  id: string,
  variants: number,
): Record<string, unknown>[] {
  const calls = actionsOf(ref).filter((a) => a.tool === sample.tool && typeof a.args[sample.arg] === 'string');
  const numeric = Object.keys(call.args).filter((k) => k !== sample.arg && typeof call.args[k] === 'number');
  const printed = sample.printed.get(id) ?? id;
  const { numbers, strings } = shownOf(sample, ref, id);
  const own = Object.fromEntries([...strings].filter(([, v]) => v !== null));
  const least = (k: string) => Math.min(...calls.flatMap((a) => (typeof a.args[k] === 'number' ? [a.args[k]] : [])));
  const sets = [
    call.args,
    own,
    ...numbers.slice(0, NUMBERS).map((x) => ({ ...own, ...Object.fromEntries(numeric.map((k) => [k, x])) })),
    ...[...(sample.options ?? [])].flatMap(([k, values]) => values.map((v) => ({ ...own, [k]: v }))),
    { ...own, ...Object.fromEntries(numeric.map((k) => [k, least(k)])) },
    { ...own, ...Object.fromEntries(numeric.map((k) => [k, 1])) },
  ].map((s) => ({ ...call.args, ...s, [sample.arg]: printed }));
  const seen = new Set<string>();
  return sets
    .filter((s) => admits(sample, s) && !seen.has(JSON.stringify(s)) && seen.add(JSON.stringify(s)))
    .slice(0, variants);
}
