// Time as a dimension of every probe (redteam-trust4 F1, F2; redteam-trust5 G1): a log padded with neutral calls —
// the listings and the reference's calls of tools whose ablation keeps its score — before its finishing call, to the
// turn limit; and the states the reference reaches with decisions left undone (ablation ∘ cut), padded in turn.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, keyOf, type Action } from './adversaries.js';
import { drawnSubsets, periodicShare, periodicSubsets } from './subsets.js';

/**
 * The neutral calls of reference `r`: each no-argument tool other than the finishing one (a listing), then each
 * distinct call of the reference to a tool that does not decide its score (`decides(tool)` false: its ablation
 * keeps the score), at most `cap`. A tool that decides the score is never neutral, a listing included.
 */
export function neutralCalls(meta: EpisodicMeta, r: Rollout, decides: (tool: string) => boolean, cap = 6): Action[] {
  const acts = actionsOf(r);
  const finish = acts.at(-1)?.tool;
  const listings = meta.tools
    .filter((t) => t.name !== finish && Object.keys(t.parameters.properties ?? {}).length === 0)
    .map((t) => ({ tool: t.name, args: {} }));
  const reads = acts.slice(0, -1);
  const calls = new Map<string, Action>();
  for (const a of [...listings, ...reads])
    if (a.tool !== finish && !decides(a.tool) && !calls.has(keyOf(a))) calls.set(keyOf(a), a);
  return [...calls.values()].slice(0, cap);
}

/**
 * `log` (its last call the finish) with the neutral calls inserted in turn before the finish until it holds
 * `maxTurns - 1` calls; null where there is nothing to insert or no room.
 */
export function padded(log: readonly Action[], neutral: readonly Action[], maxTurns: number): Action[] | null {
  const room = maxTurns - 1 - log.length;
  if (neutral.length === 0 || room < 1 || log.length === 0) return null;
  const fill = Array.from({ length: room }, (_, i) => neutral[i % neutral.length] as Action);
  return [...log.slice(0, -1), ...fill, log.at(-1) as Action];
}

/** A state the reference's non-final calls reach, as a log then the finish: what reaches it and the tool it ablates. */
export interface Reached {
  how: string;
  tool: string;
  actions: Action[];
  /** Which of the tool's `m` calls it keeps, every other call kept (absent for a cut). */
  kept?: number[];
  m?: number;
}

/**
 * Which of a deciding tool's `m` calls a reached state keeps (redteam-trust6 H2: by which subset, not how many), the
 * shrink family's index sets, the extremes first: none; every other one and every third (periodic: the decided ones
 * flank what waits, redteam-trust7 I1); all but the last; the last alone; all but the median (a gap between decided
 * entities); the first, the median alone; all but the first; then each half, each third, and each third left out.
 * Every one a proper subset, none repeated; seeded draws (subsets.ts) search the rest of the power set.
 */
export function keptSubsets(m: number): number[][] {
  const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
  const all = range(0, m);
  const without = (drop: number[]) => all.filter((i) => !drop.includes(i));
  const mid = Math.floor((m - 1) / 2);
  const cut = (parts: number) =>
    range(0, parts).map((p) => range(Math.round((p * m) / parts), Math.round(((p + 1) * m) / parts)));
  const made = [
    [],
    ...periodicSubsets(m),
    without([m - 1]),
    [m - 1],
    without([mid]),
    [0],
    [mid],
    without([0]),
    ...cut(2),
    ...cut(3),
    ...cut(3).map(without),
  ];
  const out = new Map<string, number[]>();
  for (const kept of made) if (kept.length < m && !out.has(kept.join())) out.set(kept.join(), kept);
  return [...out.values()];
}

/** The calls `kept` (ascending indices) as 1-based runs: "1-2, 4". */
function runs(kept: number[]): string {
  const out: number[][] = [];
  for (const i of kept) {
    const run = out.at(-1);
    if (run && run.at(-1) === i - 1) run.push(i);
    else out.push([i]);
  }
  return out.map((r) => `${(r[0] as number) + 1}${r.length > 1 ? `-${(r.at(-1) as number) + 1}` : ''}`).join(', ');
}

/**
 * Reference log `log` (its last call the finish) with only the calls `kept` (indices among its `tool` calls) of
 * `tool` left, every other call kept, cut before call `upTo` of the body: a reached state, as a log then the finish.
 */
export function keptState(log: readonly Action[], tool: string, kept: readonly number[], upTo = Infinity): Reached {
  const body = log.slice(0, -1);
  const at = body.flatMap((a, i) => (a.tool === tool ? [i] : []));
  const m = at.length;
  const how =
    kept.length === 0
      ? `every ${tool} call removed`
      : kept.every((k, i) => k === i)
        ? `only the first ${kept.length} of ${m} ${tool} calls kept`
        : `only ${tool} calls ${runs([...kept])} of ${m} kept`;
  const calls = body.filter((a, i) => i < upTo && (a.tool !== tool || kept.includes(at.indexOf(i))));
  return { how, tool, actions: [...calls, log.at(-1) as Action], kept: [...kept], m };
}

/**
 * What a reached state family adds for the last-called deciding tool: members of its periodic family (`periodic.count`
 * of the members `turn`, `turn + turns`…, more where its share of every period needs more: the check shares the family
 * out among the adversary episodes whose references call that tool as often), then `count` drawn subsets, and the key
 * that seeds the draws.
 */
export interface Draws {
  count: number;
  key: string;
  periodic?: { count: number; turn: number; turns: number };
}

/** The deciding tool the reference's body calls last, and how often it calls it (null where it calls none). */
export function lastDeciding(log: readonly Action[], deciding: readonly string[]): { tool: string; m: number } | null {
  const body = log.slice(0, -1);
  const last = (t: string) => body.findLastIndex((a) => a.tool === t);
  const tool = [...deciding].sort((x, y) => last(y) - last(x)).find((t) => last(t) >= 0);
  return tool === undefined ? null : { tool, m: body.filter((a) => a.tool === tool).length };
}

/**
 * The states the reference's calls reach with decisions left undone (ablation ∘ cut, redteam-trust5 G1; the subset
 * kept, redteam-trust6 H2), each a log then the finish, for each deciding tool (`deciding`, the one called last
 * first: the decision before the reads it relies on): every read kept with the calls of the tool that `keptSubsets`
 * names (none, periodic, a prefix, a suffix, a window, one alone, one left out), and the plan cut before its `k`-th
 * call with every call of it removed (`k` entities read, none decided). The first (every call of the last-called
 * tool removed: all the reads, no decision) always; then `cap - 1` of the rest in turn from `from` (the check rotates
 * it across adversary episodes, so the family is covered across them); then, of the last-called tool's calls,
 * `draws.periodic` members of the periodic family (every k-th kept, redteam-trust9 R5) and `draws.count` subsets
 * drawn with p = 1/2 (redteam-trust7 I1), seeded by `draws.key`. Distinct logs, none the finish alone.
 */
export function reachedStates(
  log: readonly Action[],
  deciding: readonly string[],
  cap: number,
  from = 0,
  draws: Draws = { count: 0, key: '' },
): Reached[] {
  const body = log.slice(0, -1);
  const last = (t: string) => body.findLastIndex((a) => a.tool === t);
  const out = new Map<string, Reached>();
  const keyOfState = (s: Reached) => s.actions.map(keyOf).join('\n');
  const order = [...deciding].sort((x, y) => last(y) - last(x)).filter((t) => last(t) >= 0);
  for (const tool of order) {
    const at = body.flatMap((a, i) => (a.tool === tool ? [i] : []));
    const m = at.length;
    const inner = [...new Set([m - 1, 1, Math.ceil(m / 2)])].filter((j) => j >= 1 && j < m);
    const made = [
      ...keptSubsets(m).map((kept) => keptState(log, tool, kept)),
      ...inner.map((j) => ({
        how: `cut before ${tool} call ${j + 1} of ${m}, every ${tool} call removed`,
        tool,
        actions: keptState(log, tool, [], at[j] as number).actions,
      })),
    ];
    for (const s of made) if (s.actions.length > 1 && !out.has(keyOfState(s))) out.set(keyOfState(s), s);
  }
  const [head, ...rest] = [...out.values()];
  if (!head || cap < 1) return [];
  const turn = rest.length > 0 ? from % rest.length : 0;
  const chosen = [head, ...rest.slice(turn), ...rest.slice(0, turn)].slice(0, cap);
  const tool = order[0] as string;
  const calls = Array.from({ length: body.filter((a) => a.tool === tool).length }, (_, i) => i);
  const seen = new Set(chosen.flatMap((s) => (s.tool === tool && s.kept ? [s.kept.join()] : [])));
  const { count, turn: share, turns } = draws.periodic ?? { count: 0, turn: 0, turns: 1 };
  const periodic = periodicShare(calls.length, count, share, turns, seen).map((kept) => {
    seen.add(kept.join());
    return { ...keptState(log, tool, kept), how: `periodic: only ${tool} calls ${runs(kept)} of ${calls.length} kept` };
  });
  const drawn = drawnSubsets(calls, draws.key, draws.count, seen).map((kept) => ({
    ...keptState(log, tool, kept),
    how: `drawn: only ${tool} calls ${runs(kept)} of ${calls.length} kept`,
  }));
  return [...chosen, ...periodic, ...drawn];
}
