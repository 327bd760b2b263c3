// An added call's argument no confirmed source gives, searched on the world (redteam-trust20 T3): the world's refusal
// of a wrongly filled call is no evidence for a rule, so an unconfirmed integer argument is tried at each value its
// schema allows, in one replay, and the one value the world takes unlike all the others fills the call.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { replayOf } from '../checks/episodic.js';
import { propsOf, type Action } from './adversaries.js';
import type { WithheldLog } from './withheld.js';

/** Values tried per search at most (one replay of this many calls). */
const TRIES = 40;

/** An added call to search: its episode, its log up to the call, the call and the arguments no source confirmed. */
export interface Unconfirmed {
  ref: Rollout;
  before: readonly Action[];
  call: Action;
  open: readonly string[];
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

/**
 * The value each call's first searchable open argument takes where the world accepts it ({ name, value } or null),
 * with the replays run: each call tried at every allowed value in turn after its log's prefix.
 */
export async function searchOpen(
  meta: EpisodicMeta,
  calls: readonly Unconfirmed[],
  run: (requests: RolloutRequest[]) => Promise<RolloutResult[]>,
): Promise<{ found: ({ name: string; value: number } | null)[]; rollouts: number }> {
  const asks = calls.map((c) => {
    for (const name of c.open) {
      const values = valuesOf(meta, c.call, name);
      if (values) return { name, values };
    }
    return null;
  });
  const wanted = calls.flatMap((c, j) => {
    const ask = asks[j];
    if (!ask) return [];
    const tries = ask.values.map(
      (value): Action => ({ tool: c.call.tool, args: { ...c.call.args, [ask.name]: value } }),
    );
    return [{ j, request: replayOf(c.ref, [...c.before, ...tries], { changes: true }) }];
  });
  const results = wanted.length > 0 ? await run(wanted.map((w) => w.request)) : [];
  const found: ({ name: string; value: number } | null)[] = calls.map(() => null);
  wanted.forEach(({ j }, k) => {
    const r = results[k];
    const ask = asks[j];
    if (!ask || !r?.ok) return;
    const from = (calls[j] as Unconfirmed).before.length;
    const lone = oddOneOut(ask.values.map((_, t) => r.changes?.[from + t] ?? []));
    if (lone >= 0) found[j] = { name: ask.name, value: ask.values[lone] as number };
  });
  return { found, rollouts: wanted.length };
}

/**
 * Searches the open argument of every added call that has one (one replay per distinct call and log prefix) and
 * writes the value found into the call, in every log that holds it; the number of replays.
 */
export async function searchLogs(
  meta: EpisodicMeta,
  logs: (WithheldLog & { of: number; open?: readonly string[] })[],
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
