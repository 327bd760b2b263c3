// Decisions exchanged between entities (redteam-trust12 W2, a score that pays the tally): the reference's plan with
// two calls of one tool trading one decision argument's values (a transposition, the most frequent values first) and
// with that argument shifted by one over all the tool's calls; each log with its controls (one call re-valued alone)
// and what the episode says of each entity (described.ts) to tell interchangeable ones.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, propsOf, type Action } from './adversaries.js';
import { saidAbout, type Said } from './described.js';
import { type Decided, sharedOptions, spelled } from './pooled.js';

/** One exchange log: the reference with argument `arg` of each call `to` set to the value of call `from`. */
export interface Exchange {
  tool: string;
  arg: string;
  kind: 'swap' | 'shift';
  /** [to, from] call indexes: call `to` receives the reference's value of call `from`. */
  moves: Array<[number, number]>;
  actions: Action[];
  /** The controls: each of the first two moves made alone (one call re-valued, a decision duplicated). */
  controls: Action[][];
}

/** Per argument this many transpositions (the shift besides); every argument that varies is exchanged (rt14 Y6). */
export const EXCHANGES = { pairs: 2 };

const text = (v: unknown): string => JSON.stringify(v);

/** Whether argument `arg` of `tool` names an entity: a string value some call of another tool sends too (an id). */
function namesEntity(acts: readonly Action[], tool: string, arg: string): boolean {
  const elsewhere = new Set(
    acts.flatMap((a) => (a.tool === tool ? [] : Object.values(a.args).filter((v) => typeof v === 'string'))),
  );
  return acts.some((a) => a.tool === tool && typeof a.args[arg] === 'string' && elsewhere.has(a.args[arg]));
}

/** The reference's calls of `tool` (indexes into the whole log, the finish excluded) that send `arg`. */
const callsOf = (acts: readonly Action[], tool: string, arg: string): number[] =>
  acts.slice(0, -1).flatMap((a, i) => (a.tool === tool && a.args[arg] !== undefined ? [i] : []));

/** The log with each move made. */
function moved(acts: readonly Action[], arg: string, moves: ReadonlyArray<[number, number]>): Action[] {
  const from = new Map(moves.map(([to, f]) => [to, (acts[f] as Action).args[arg]]));
  return acts.map((a, i) => (from.has(i) ? { tool: a.tool, args: { ...a.args, [arg]: from.get(i) } } : a));
}

/**
 * The exchange logs of `tool`'s decisions in reference `r`: for every argument whose values differ across calls that
 * name different entities (the schema's order does not tell which decides the score, rt14 Y6), transpositions of two
 * calls holding two different values (the most frequent values first) and, over three calls or more, the cyclic shift
 * by one of all the calls' values. Equal values are never exchanged (a no-op), nor calls that differ in nothing else
 * (the same entity).
 */
export function exchangeLogs(meta: EpisodicMeta, r: Rollout, tool: string): Exchange[] {
  const acts = actionsOf(r);
  const out: Exchange[] = [];
  const push = (arg: string, kind: Exchange['kind'], moves: Array<[number, number]>) => {
    const actions = moved(acts, arg, moves);
    if (out.some((x) => text(x.actions) === text(actions))) return;
    out.push({ tool, arg, kind, moves, actions, controls: moves.slice(0, 2).map((m) => moved(acts, arg, [m])) });
  };
  // The decisions: the arguments that name no entity; where every one names one (a ticket given to an agent), all but
  // the first (exchanging one of two ids between two calls is exchanging the other).
  const names = Object.keys(propsOf(meta, tool));
  const free = names.filter((arg) => !namesEntity(acts, tool, arg));
  const args = free.length > 0 ? free : names.slice(1);
  for (const arg of args) {
    const calls = callsOf(acts, tool, arg);
    const value = (i: number) => text((acts[i] as Action).args[arg]);
    const rest = (i: number) => text({ ...(acts[i] as Action).args, [arg]: null });
    if (new Set(calls.map(value)).size < 2 || new Set(calls.map(rest)).size < 2) continue;
    // The values by how many calls hold them, the most frequent first (ties: first sent first).
    const counts = new Map<string, number>();
    for (const i of calls) counts.set(value(i), (counts.get(value(i)) ?? 0) + 1);
    const values = [...counts.keys()].sort((a, b) => (counts.get(b) as number) - (counts.get(a) as number));
    const pairs: Array<[string, string]> = [];
    for (let x = 0; x < values.length; x++)
      for (let y = x + 1; y < values.length; y++) pairs.push([values[x] as string, values[y] as string]);
    for (const [va, vb] of pairs.slice(0, EXCHANGES.pairs)) {
      const a = calls.find((i) => value(i) === va) as number;
      const b = calls.find((i) => value(i) === vb && rest(i) !== rest(a));
      if (b !== undefined)
        push(arg, 'swap', [
          [a, b],
          [b, a],
        ]);
    }
    // Each call takes its predecessor's value (the first the last's), the calls whose value stays put left out.
    const shift = calls
      .map((to, k): [number, number] => [to, calls[(k + calls.length - 1) % calls.length] as number])
      .filter(([to, from]) => value(to) !== value(from));
    if (calls.length >= 3 && shift.length > 0) push(arg, 'shift', shift);
  }
  return out;
}

/**
 * What any agent can look at in reference `r`'s episode, listed or not by the reference (rt14 Y5: a listing the
 * reference never plays): each tool without arguments once, from the start, but the reference's finishing tool.
 */
export const surveyOf = (meta: EpisodicMeta, r: Rollout): Action[] =>
  meta.tools
    .filter((t) => t.name !== actionsOf(r).at(-1)?.tool && Object.keys(t.parameters.properties ?? {}).length === 0)
    .map((t) => ({ tool: t.name, args: {} }));

/** The ids call `i` names besides `arg` (its other string values): how the replies and the prompt name its entity. */
const idsOf = (acts: readonly Action[], i: number, arg: string): string[] =>
  Object.entries((acts[i] as Action).args).flatMap(([k, v]) =>
    k !== arg && typeof v === 'string' && v.trim().length >= 2 ? [v.trim()] : [],
  );

/** Two entities an exchange trades values between, each with its reference decision (`a` decided first). */
export type Pooled = [a: Decided, b: Decided];

/**
 * What the episode says of the entities each move of `x` trades values between: null where some move trades between
 * entities told apart (the whole replies of the calls made for each, the rows of the prompt and the other replies
 * naming each, ids masked; the replies of the exchanged tool left out, they echo the decision; the replies of
 * `survey`, what any agent can look at, besides) and not offered the same options either (pooled.ts: two copies of one
 * title, its hold queue); else the pairs only offered the same options (none where every pair is described alike),
 * which trade freely only where the reference hands those values out by turn (pool-effect.ts, judged by a replay).
 */
export function pooledPairs(
  r: Rollout,
  observations: readonly string[],
  x: Exchange,
  survey: readonly Said[] = [],
): Pooled[] | null {
  const acts = actionsOf(r);
  const calls = acts.flatMap((a, i) => {
    const reply = observations[i];
    return a.tool === x.tool || reply === undefined ? [] : [{ tool: a.tool, args: a.args, reply }];
  });
  calls.push(...survey);
  const ids = callsOf(acts, x.tool, x.arg).flatMap((i) => idsOf(acts, i, x.arg));
  const said = (i: number) => text(saidAbout(r.prompt ?? '', calls, idsOf(acts, i, x.arg), ids));
  // Call i's entity: the ids it sends and call j does not (a destination both send names neither), its decision.
  const decided = (i: number, j: number): Decided => ({
    ids: idsOf(acts, i, x.arg).filter((id) => !idsOf(acts, j, x.arg).includes(id)),
    value: spelled((acts[i] as Action).args[x.arg]) ?? '',
    at: i,
  });
  const value = (i: number) => text((acts[i] as Action).args[x.arg]);
  const pairs: Pooled[] = [];
  for (const [to, from] of x.moves) {
    // The call `to` trades with: a moved call that held the value it receives (a shift's source may keep its value).
    const other = x.moves.find(([t]) => t !== to && value(t) === value(from))?.[0] ?? from;
    if (said(to) === said(other)) continue;
    const [a, b] = to < other ? [to, other] : [other, to];
    const all = callsOf(acts, x.tool, x.arg).map((i) => decided(i, i === a ? b : a));
    if (!sharedOptions(r.prompt ?? '', calls, decided(a, b), decided(b, a), all)) return null;
    if (!pairs.some(([p, q]) => p.at === a && q.at === b)) pairs.push([decided(a, b), decided(b, a)]);
  }
  return pairs;
}

/** Whether every move of `x` trades values of entities described alike or offered the same options (pooledPairs). */
export const interchangeable = (...args: Parameters<typeof pooledPairs>): boolean => pooledPairs(...args) !== null;
