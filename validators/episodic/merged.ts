// A rule may bind a call's value, not only its presence (redteam-s18e E5): where the reference sends one entity the
// same tool several times, differing only in a number, and the text caps one call of the tool at a number between
// the largest part and their sum (caps.ts: bound to the tool by its clause, read from the words, not the split), the
// log with those calls merged into one (the sum, once) is an ablation of its own; judged only where the world TAKES
// the number (the state after each call holds it, moved or added), never for a selector (a page, an offset).
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from './adversaries.js';
import { type CapWorld, capWorld, perOwnUnit } from './cap-units.js';
import { statedCaps } from './caps.js';
import { mentionAt, sentencesOf } from './stated-rules.js';
import { toolTexts } from './tool-texts.js';
import { namedTools } from './tool-words.js';

/** One entity's calls merged: their places in the reference's log, the number they carry, the merged call's place. */
export interface MergedGroup {
  at: number[];
  arg: string;
  to: number;
}

/** A merged log: the tool whose calls were merged, the sentence stating the number they pass, the log (finish last). */
export interface MergedLog {
  tool: string;
  sentence: string;
  actions: Action[];
  groups: MergedGroup[];
}

/**
 * The reference's log with each tool's calls merged past a number stated about that tool: in a sentence of the prompt
 * or the description that names it (or states a bound per the noun only its name has: "20 kg per parcel" for
 * ship_parcel, redteam-s22e U4; or per a unit the texts make its call, redteam-s23e V3), or in its own texts (its
 * description, its parameters').
 */
export function mergedLogs(meta: EpisodicMeta, r: Rollout, tools: readonly string[], refs: readonly Rollout[] = []) {
  const acts = actionsOf(r);
  const others = refs.filter((x) => x !== r).map((x) => actionsOf(x).slice(0, -1));
  const told = sentencesOf(namedTools(`${r.prompt ?? ''}\n${meta.description}`, meta.tools));
  return tools.flatMap((tool) => {
    const own = meta.tools.find((t) => t.name === tool);
    const names = meta.tools.map((t) => t.name);
    const world = capWorld(meta, r, tool);
    const about = told.filter((x) => mentionAt(x, tool) >= 0 || perOwnUnit(x, tool, names, world));
    const text = [...about, ...(own ? [toolTexts(own)] : [])].join('\n');
    const merged = mergedCalls(acts.slice(0, -1), tool, text, others, names, world);
    return merged ? [{ tool, ...merged, actions: [...merged.actions, acts.at(-1) as Action] }] : [];
  });
}

/** The merged logs of one reference episode as ablations of the rule the stated number makes of their tool. */
export const mergedAblations = (meta: EpisodicMeta, r: Rollout, of: number, tools: string[], refs: Rollout[]) =>
  mergedLogs(meta, r, tools, refs).map((merged) => ({
    of,
    rule: { tool: merged.tool, sentence: merged.sentence, before: null },
    how: 'calls on one entity merged past a stated number',
    actions: merged.actions,
    merged,
  }));

/** The calls of `tool` in `body` by entity (their arguments but numbers), each with the one number that varies. */
function splitsOf(body: readonly Action[], tool: string) {
  const byRest = new Map<string, number[]>();
  body.forEach((a, i) => {
    if (a.tool !== tool) return;
    const rest = Object.entries(a.args).filter(([, v]) => typeof v !== 'number');
    const key = JSON.stringify([rest, Object.keys(a.args).sort()]);
    byRest.set(key, [...(byRest.get(key) ?? []), i]);
  });
  return [...byRest.values()].flatMap((at) => {
    const calls = at.map((i) => body[i] as Action);
    const first = calls[0] as Action;
    const numeric = Object.keys(first.args).filter((n) => typeof first.args[n] === 'number');
    const varying = numeric.filter((n) => calls.some((c) => c.args[n] !== first.args[n]));
    // One number carries the parts (the others, a unit or a rate, the same on every call).
    const arg = varying.length === 1 ? varying[0] : numeric.length === 1 ? numeric[0] : undefined;
    if (arg === undefined || varying.length > 1) return [];
    const parts = calls.map((c) => c.args[arg] as number);
    return [{ at, first, arg, parts, sum: parts.reduce((t, x) => t + x, 0) }];
  });
}

/**
 * `body` with the calls of `tool` on each entity merged (at the first, the sum of the one argument they differ in)
 * where a cap `text` states on one call of the tool (`tools`: every tool, caps.ts) is at least each part and less than
 * the sum, and the sentence stating it (`world`: what the caps' units are read against); null where none is merged.
 */
export function mergedCalls(
  body: readonly Action[],
  tool: string,
  text: string,
  others: ReadonlyArray<readonly Action[]> = [],
  tools: readonly string[] = [tool],
  world?: CapWorld,
): { actions: Action[]; sentence: string; groups: MergedGroup[] } | null {
  const stated = statedCaps(text, tool, tools, world);
  let sentence = '';
  const split = splitsOf(body, tool);
  // The references obeying a cap checks its reading (no part of any over it), whatever their split (redteam-s20e S7:
  // line by line, finer than the cap, is still under it); the text, not the split, makes it a cap (redteam-s19 E1).
  const all = [split, ...others.map((b) => splitsOf(b, tool))].flat();
  const obeyed = (n: number) => all.every((g) => Math.max(...g.parts) <= n);
  const out = [...body];
  const groups: Omit<MergedGroup, 'to'>[] = [];
  for (const { at, first, arg, parts, sum } of split) {
    if (at.length < 2) continue;
    const cap = stated.find(({ n }) => n >= Math.max(...parts) && n < sum && obeyed(n));
    if (cap === undefined) continue;
    sentence ||= cap.sentence;
    out[at[0] as number] = { tool, args: { ...first.args, [arg]: sum } };
    groups.push({ at, arg });
  }
  if (groups.length === 0) return null;
  const drop = new Set(groups.flatMap((g) => g.at.slice(1)));
  const to = (i: number) => i - [...drop].filter((j) => j < i).length;
  return {
    actions: out.filter((_, i) => !drop.has(i)),
    sentence,
    groups: groups.map((g) => ({ ...g, to: to(g.at[0] as number) })),
  };
}

/** The numeric leaves of a state by path (bounded). */
function leavesOf(state: unknown, path = '$', out = new Map<string, number>()): Map<string, number> {
  if (out.size >= 4_000 || path.length > 400) return out;
  if (typeof state === 'number' && Number.isFinite(state)) out.set(path, state);
  else if (state !== null && typeof state === 'object')
    for (const [k, v] of Object.entries(state as Record<string, unknown>)) leavesOf(v, `${path}.${k}`, out);
  return out;
}

/** The leaves present before and after that moved by `by` (up or down): where a call's number accumulated. */
export function movedBy(before: unknown, after: unknown, by: number): Set<string> {
  const [b, a] = [leavesOf(before), leavesOf(after)];
  const near = (x: number) => Math.abs(x - Math.abs(by)) <= 1e-9 * Math.max(1, Math.abs(by));
  return new Set(
    [...b].flatMap(([p, v]) => (by !== 0 && a.has(p) && near(Math.abs((a.get(p) as number) - v)) ? [p] : [])),
  );
}

/**
 * Where the state after a call holds its number (redteam-s20e S1): a leaf present before and after moved by it, or a
 * leaf new or changed whose value is it (a part pushed onto a ledger, a record of the call).
 */
export function heldAt(before: unknown, after: unknown, n: number): Set<string> {
  const [b, a] = [leavesOf(before), leavesOf(after)];
  const near = (x: number) => Math.abs(x - n) <= 1e-9 * Math.max(1, Math.abs(n));
  const added = [...a].flatMap(([p, v]) => (b.get(p) !== v && near(v) ? [p] : []));
  return new Set([...movedBy(before, after, n), ...added]);
}

/** A merged log to check: the reference it merges, the log itself. */
export interface MergedCase {
  ref: Rollout;
  merged: MergedLog;
}

/**
 * Whether the world takes each merged log's first group: the state after each part's call holds its number, and the
 * state after the merged call holds the sum (heldAt: moved by it, or new or changed to it), not refused or ignored.
 * Replays each prefix once, keeping its state.
 */
export async function accumulating(
  cases: readonly MergedCase[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<boolean[]> {
  const prefixes = cases.map(({ ref, merged }) => {
    const g = merged.groups[0] as MergedGroup;
    const acts = actionsOf(ref);
    return [
      ...g.at.flatMap((i) => [acts.slice(0, i), acts.slice(0, i + 1)]),
      merged.actions.slice(0, g.to),
      merged.actions.slice(0, g.to + 1),
    ];
  });
  const requests = cases.flatMap(({ ref }, k) =>
    (prefixes[k] as Action[][]).map(
      (actions): RolloutRequest => ({
        seed: ref.seed,
        level: ref.level,
        policy: { type: 'replay', actions },
        keepState: true,
      }),
    ),
  );
  const out = requests.length > 0 ? await run(requests) : [];
  let from = 0;
  return cases.map(({ ref, merged }, k) => {
    const got = out.slice(from, (from += (prefixes[k] as Action[][]).length));
    const g = merged.groups[0] as MergedGroup;
    const acts = actionsOf(ref);
    const numbers = [...g.at.map((i) => (acts[i] as Action).args[g.arg]), merged.actions[g.to]?.args[g.arg]];
    const states = got.map((r) => (r?.ok === true ? r.state : undefined));
    const leaves = numbers.map((n, j) =>
      states[2 * j] === undefined || states[2 * j + 1] === undefined || typeof n !== 'number'
        ? new Set<string>()
        : heldAt(states[2 * j], states[2 * j + 1], n),
    );
    return leaves.every((s) => s.size > 0);
  });
}

/**
 * The merged ablations (of those `asked` whose replay kept the reference's score) whose first group does not
 * accumulate: no evidence of a cap ignored.
 */
export async function unaccumulated(
  ablations: ReadonlyArray<{ of: number; merged?: MergedLog }>,
  refs: readonly Rollout[],
  outcomes: ReadonlyArray<RolloutResult | undefined>,
  asked: readonly boolean[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<number[]> {
  const paid = (k: number, of: number) => {
    const o = outcomes[k];
    return o?.ok === true && o.score >= (refs[of]?.score ?? Number.POSITIVE_INFINITY) - 1e-6;
  };
  const ks = ablations.flatMap((a, k) => (a.merged && asked[k] && paid(k, a.of) ? [k] : []));
  const cases = ks.map((k) => ({
    ref: refs[ablations[k]?.of as number] as Rollout,
    merged: ablations[k]?.merged as MergedLog,
  }));
  const adds = await accumulating(cases, run);
  return ks.filter((_, j) => !adds[j]);
}
