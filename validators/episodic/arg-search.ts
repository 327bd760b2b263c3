// An added call's argument no confirmed source gives, searched on the world (redteam-trust20 T3): the world's refusal
// of a wrongly filled call is no evidence for a rule, so an unconfirmed integer argument is tried, each value in a
// replay of its own from the call's prefix (redteam-trust21 R2: no try changes the world for the next), first at the
// values the entity's texts make plausible whatever the schema's range (R1), then at each value a narrow range allows;
// the one value the world takes unlike all the others fills the call.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { replayOf } from '../checks/episodic.js';
import { propsOf, type Action } from './adversaries.js';
import type { WithheldLog } from './withheld.js';

/** A narrow range's values tried per search at most (each a replay of its own, after the plausible ones). */
const TRIES = 40;

/** An added call to search: its episode, its log up to the call, the call and the arguments no source confirmed. */
export interface Unconfirmed {
  ref: Rollout;
  before: readonly Action[];
  call: Action;
  open: readonly string[];
  /** The values the entity's texts make plausible, per argument (plausible.ts), tried first. */
  hints?: Readonly<Record<string, readonly number[]>>;
}

/** The values an integer argument is tried at: its schema's range, else from 0 or 1 up past the template's value. */
function valuesOf(meta: EpisodicMeta, call: Action, name: string): number[] | null {
  const schema = propsOf(meta, call.tool)[name] as { type?: string; minimum?: number; maximum?: number } | undefined;
  const v = call.args[name];
  if (schema?.type !== 'integer' || typeof v !== 'number') return null;
  const lo = Math.ceil(schema.minimum ?? Math.min(0, v));
  const hi = Math.floor(schema.maximum ?? Math.max(2 * v, lo + TRIES - 1));
  if (hi - lo + 1 > TRIES || hi < lo) return null;
  return Array.from({ length: hi - lo + 1 }, (_, j) => lo + j);
}

/** The one try whose changed paths differ from every other try's (which all agree): its index, else -1. */
export function oddOneOut(changes: readonly (readonly string[])[]): number {
  const keys = changes.map((c) => [...c].sort().join('\n'));
  const counts = new Map<string, number>();
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  if (counts.size !== 2) return -1;
  const lone = keys.findIndex((k) => counts.get(k) === 1);
  return lone >= 0 && (changes[lone]?.length ?? 0) > 0 && keys.length > 2 ? lone : -1;
}

/** A search: the argument, the plausible values tried first and the rest of a narrow range, with their changes. */
interface Ask {
  j: number;
  name: string;
  first: number[];
  rest: number[];
  changes: (readonly string[])[];
  failed?: boolean;
}

/**
 * The value each call's first searchable open argument takes where the world accepts it ({ name, value } or null),
 * with the replays run: each value in a replay of its own after its log's prefix, the plausible values first (padded
 * from the range's start to three, so the wrong tries agree), the rest of a narrow range only where they found none.
 */
export async function searchOpen(
  meta: EpisodicMeta,
  calls: readonly Unconfirmed[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<{ found: ({ name: string; value: number } | null)[]; rollouts: number }> {
  const asks = calls.flatMap((c, j): Ask[] => {
    for (const name of c.open) {
      const schema = propsOf(meta, c.call.tool)[name] as
        | { type?: string; minimum?: number; maximum?: number }
        | undefined;
      if (schema?.type !== 'integer' || typeof c.call.args[name] !== 'number') continue;
      const range = valuesOf(meta, c.call, name) ?? [];
      const first = [...(c.hints?.[name] ?? [])];
      if (range.length === 0 && first.length === 0) continue;
      const lo = Math.ceil(schema.minimum ?? 0);
      for (let v = lo; first.length < 3 && v <= (schema.maximum ?? lo + 3); v++) if (!first.includes(v)) first.push(v);
      return [{ j, name, first, rest: range.filter((v) => !first.includes(v)), changes: [] }];
    }
    return [];
  });
  let rollouts = 0;
  const tryAt = async (pending: Ask[], pick: (a: Ask) => number[]) => {
    const tries = pending.flatMap((a) => pick(a).map((value) => ({ a, value })));
    const results =
      tries.length > 0 ? await run(tries.map((t) => request(calls[t.a.j] as Unconfirmed, t.a, t.value))) : [];
    rollouts += tries.length;
    tries.forEach((t, k) => {
      const r = results[k];
      if (!r?.ok) t.a.failed = true;
      else t.a.changes.push(r.changes?.[(calls[t.a.j] as Unconfirmed).before.length] ?? []);
    });
  };
  const request = (c: Unconfirmed, a: Ask, value: number) =>
    replayOf(c.ref, [...c.before, { tool: c.call.tool, args: { ...c.call.args, [a.name]: value } }], { changes: true });
  const lone = (a: Ask) => (a.failed ? -1 : oddOneOut(a.changes));
  await tryAt(asks, (a) => a.first);
  await tryAt(
    asks.filter((a) => lone(a) < 0 && !a.failed),
    (a) => a.rest,
  );
  const found: ({ name: string; value: number } | null)[] = calls.map(() => null);
  for (const a of asks) {
    const at = lone(a);
    if (at >= 0) found[a.j] = { name: a.name, value: [...a.first, ...a.rest][at] as number };
  }
  return { found, rollouts };
}

/**
 * Searches the open argument of every added call that has one (once per distinct call and log prefix) and
 * writes the value found into the call, in every log that holds it; the number of replays.
 */
export async function searchLogs(
  meta: EpisodicMeta,
  logs: (WithheldLog & { of: number; open?: readonly string[]; hints?: Readonly<Record<string, number[]>> })[],
  refs: readonly Rollout[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<number> {
  const groups = new Map<string, typeof logs>();
  for (const l of logs.filter((m) => (m.open?.length ?? 0) > 0)) {
    const key = `${l.of}|${JSON.stringify(l.call)}`;
    groups.set(key, [...(groups.get(key) ?? []), l]);
  }
  const firsts = [...groups.values()].map((g) => g[0] as (typeof logs)[number]);
  const asks = firsts.map((l) => ({
    ref: refs[l.of] as Rollout,
    before: l.actions.slice(0, l.at),
    call: l.call,
    open: l.open ?? [],
    ...(l.hints ? { hints: l.hints } : {}),
  }));
  const { found, rollouts } = await searchOpen(meta, asks, run);
  [...groups.values()].forEach((group, j) => {
    const f = found[j];
    if (!f) return;
    const call = {
      tool: (group[0] as WithheldLog).call.tool,
      args: { ...(group[0] as WithheldLog).call.args, [f.name]: f.value },
    };
    for (const l of group) {
      l.call = call;
      l.actions[l.at] = call;
    }
  });
  return rollouts;
}
