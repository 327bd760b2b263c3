// Pooled options judged by effect (redteam-trust17-pool): two entities a shared listing offers the same values
// (pooled.ts) trade them freely only where the reference hands the values out by turn, not by entity: with the two
// entities' places in the world swapped, the reference decides the other one first and hands it the first one's value.
import type { Action } from './adversaries.js';
import { type Decided, spelled } from './pooled.js';

const lower = (ids: readonly string[]) => ids.map((id) => id.toLowerCase());

/** Whether `v` holds one of `ids` (lower case) as a whole string anywhere within it. */
function holds(v: unknown, ids: readonly string[]): boolean {
  if (typeof v === 'string') return ids.includes(v.trim().toLowerCase());
  if (Array.isArray(v)) return v.some((x) => holds(x, ids));
  return v !== null && typeof v === 'object' && Object.values(v).some((x) => holds(x, ids));
}

/**
 * The state `state` with the places of the entities named by `a` and by `b` swapped: in every list of it where one
 * element holds an id of `a` and another one of `b` (neither both), those two elements traded (a record, an id in a
 * list of ids); null where no list holds both (a map keyed by id has no place to swap).
 */
export function swapPlaces(state: unknown, a: readonly string[], b: readonly string[]): unknown {
  const [ia, ib] = [lower(a), lower(b)];
  let swapped = false;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      const items = v.map(walk);
      const of = (ids: string[], not: string[]) =>
        items.flatMap((x, i) => (holds(x, ids) && !holds(x, not) ? [i] : []));
      const [pa, pb] = [of(ia, ib), of(ib, ia)];
      if (pa.length === 1 && pb.length === 1) {
        const [i, j] = [pa[0] as number, pb[0] as number];
        [items[i], items[j]] = [items[j], items[i]];
        swapped = true;
      }
      return items;
    }
    if (v === null || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
  };
  const out = walk(state);
  return swapped ? out : null;
}

/**
 * Whether the reference's log `acts`, played in the world with the places of `a` and `b` swapped (`a` decided first
 * in the reference), hands out `tool`'s `arg` by turn: `b` now decided first, taking the value `a` took, and `a` the
 * value `b` took. A reference that still decides `a` first (it orders the entities by what they are) or keeps each
 * entity's value (the value is the entity's own) hands the values out by entity: they are not the group's to trade.
 */
export function handedByTurn(acts: readonly Action[], tool: string, arg: string, a: Decided, b: Decided): boolean {
  const first = (d: Decided) => {
    const ids = lower(d.ids);
    return acts.findIndex(
      (x) =>
        x.tool === tool &&
        x.args[arg] !== undefined &&
        Object.entries(x.args).some(
          ([k, v]) => k !== arg && typeof v === 'string' && ids.includes(v.trim().toLowerCase()),
        ),
    );
  };
  const [ia, ib] = [first(a), first(b)];
  const value = (i: number) => (spelled((acts[i] as Action).args[arg]) ?? '').toLowerCase();
  return ia >= 0 && ib >= 0 && ib < ia && value(ib) === a.value.toLowerCase() && value(ia) === b.value.toLowerCase();
}
