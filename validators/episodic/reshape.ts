// A rule matters for every plan that reaches the same final state (redteam-trust4 F3): the calls a rule guards
// reshaped — each numeric amount split into parts that sum to it (in turn, and interleaved across the calls), and
// calls that differ only in the amount merged into one — so a rule enforced on the reference's call shape is seen.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { propsOf, type Action } from './adversaries.js';

export interface Reshaped {
  how: string;
  actions: Action[];
}

/** `v` in `k` parts that sum to it (integers, or cents), each at least `min`; null where that cannot be. */
export function splitAmount(v: number, k: number, integer: boolean, min = Number.NEGATIVE_INFINITY): number[] | null {
  const unit = integer ? 1 : 0.01;
  const units = Math.round(v / unit);
  const n = Math.min(k, units);
  if (n < 2) return null;
  const parts = Array.from({ length: n }, (_, i) => (Math.floor(units / n) + (i < units % n ? 1 : 0)) * unit).map(
    (p) => (integer ? p : Math.round(p * 100) / 100),
  );
  return parts.every((p) => p >= min && p > 0) ? parts : null;
}

/** The first numeric argument of a call (not an enum): the amount a rule may guard. */
function amountOf(meta: EpisodicMeta, a: Action): { arg: string; integer: boolean; min: number | undefined } | null {
  const props = propsOf(meta, a.tool);
  for (const [arg, v] of Object.entries(a.args)) {
    const s = props[arg] ?? {};
    if (typeof v === 'number' && !s.enum && (s.type === 'number' || s.type === 'integer'))
      return { arg, integer: s.type === 'integer' || Number.isInteger(v), min: s.minimum };
  }
  return null;
}

/**
 * The reshapings of `log` (its last call the finish) that fit in `maxTurns - 1` calls: every call with an amount
 * split into as many parts as the room allows (at most `most`), the parts in turn and interleaved across calls,
 * and calls differing only in their amount merged. Nothing where no call carries an amount.
 */
export function reshapings(meta: EpisodicMeta, log: readonly Action[], maxTurns: number, most = 8): Reshaped[] {
  const body = log.slice(0, -1);
  const finish = log.at(-1) as Action;
  const amounts = body.map((a) => amountOf(meta, a));
  const m = amounts.filter((x) => x !== null).length;
  if (m === 0) return [];
  const out: Reshaped[] = [];
  const k = Math.min(most, 1 + Math.floor((maxTurns - 1 - log.length) / m));
  if (k >= 2) {
    const groups = body.map((a, i) => {
      const t = amounts[i];
      const parts = t ? splitAmount(a.args[t.arg] as number, k, t.integer, t.min) : null;
      return t && parts ? parts.map((p) => ({ tool: a.tool, args: { ...a.args, [t.arg]: p } })) : [a];
    });
    if (groups.some((g) => g.length > 1)) {
      out.push({ how: `each amount split into ${k} parts`, actions: [...groups.flat(), finish] });
      // Interleaved: the first part of every call, then the second… (the calls' own order kept within a round).
      const rounds = Math.max(...groups.map((g) => g.length));
      out.push({
        how: `each amount split into ${k} parts, interleaved`,
        actions: [
          ...Array.from({ length: rounds }, (_, r) => groups.flatMap((g) => (g[r] ? [g[r] as Action] : []))).flat(),
          finish,
        ],
      });
    }
  }
  // Merged: calls that differ only in their amount, made once with the sum.
  const merged = new Map<string, Action>();
  for (const [i, a] of body.entries()) {
    const t = amounts[i];
    const key =
      a.tool +
      JSON.stringify(
        Object.entries(a.args)
          .filter(([k2]) => k2 !== t?.arg)
          .sort(),
      );
    const seen = merged.get(key);
    if (seen && t)
      seen.args[t.arg] = Math.round(((seen.args[t.arg] as number) + (a.args[t.arg] as number)) * 100) / 100;
    else merged.set(t ? key : `${i}`, { tool: a.tool, args: { ...a.args } });
  }
  if (merged.size < body.length)
    out.push({ how: 'calls differing only in their amount merged', actions: [...merged.values(), finish] });
  return out;
}
