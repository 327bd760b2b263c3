// A rule matters for every plan that reaches the same final state (redteam-trust4 F3, redteam-trust5 G2, redteam-trust6
// H6): the calls a rule guards reshaped by what they cover (validators/episodic/quantities.ts: an amount, an interval
// of dates, times or numbers, a list of items, a count in a string; each candidate of a call, not the first of a
// kind) — each quantity cut into adjacent parts that cover it (in turn, and interleaved across the calls) and calls
// that differ only in it merged into one — so a rule enforced on the reference's call shape is seen.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Action } from './adversaries.js';
import { quantitiesOf, quantityOf, type QuantityKind } from './quantities.js';
import { DEFAULT_EPISODIC_OPTIONS } from '../options-episodic.js';
import { type Reshaped, type SequenceOptions, sequenceOptions, sequenceReshapings } from './sequences.js';

export type { Reshaped };

const KINDS: Array<[QuantityKind, string]> = [
  ['amount', 'amount'],
  ['interval', 'interval'],
  ['list', 'list'],
  ['count', 'count in a string'],
];

/**
 * The reshapings of `log` (its last call the finish) that fit in `maxTurns - 1` calls, for each kind of quantity
 * its calls cover and each candidate of that kind (the arguments it lives in: a stay beside a rate card's window, a
 * price beside a deposit; at most `candidates` a kind, those whose values vary across the calls first): every call's
 * quantity cut into as many parts as the room allows (at most `most`), the parts in turn and interleaved across calls
 * (an interval also cut with its end counted in it: seats 10 to 20, in turn), and calls differing only in the
 * quantity merged; then each quantity a pair of calls shares, the pair cut (validators/episodic/sequences.ts, by
 * `sequences`; `observations` what each call was answered, `prompt` what the episode was given, `changed` whether
 * it changed the state). Nothing where no call covers a quantity.
 */
export function reshapings(
  meta: EpisodicMeta,
  log: readonly Action[],
  maxTurns: number,
  most = 8,
  candidates = 6,
  sequences: SequenceOptions = sequenceOptions(DEFAULT_EPISODIC_OPTIONS, most),
  observations?: readonly (string | undefined)[],
  prompt?: string,
  changed?: readonly boolean[],
): Reshaped[] {
  const body = log.slice(0, -1);
  const finish = log.at(-1) as Action;
  const out: Reshaped[] = [];
  const seen = new Set<string>();
  const push = (how: string, actions: Action[], binds?: Reshaped['binds']) => {
    const k = JSON.stringify(actions);
    if (!seen.has(k)) out.push({ how, actions, ...(binds ? { binds } : {}) }), seen.add(k);
  };
  for (const [kind, name] of KINDS) {
    const all = body.map((a) => quantitiesOf(meta, a, kind));
    // A quantity every call quotes alike (a season's rate card, a vendor's deposit) is a constant of the episode, not
    // what the calls cover: those that vary across the calls go first under the cap (stable: the calls' order kept).
    const values = new Map<string, Set<string>>();
    for (const [i, qs] of all.entries())
      for (const q of qs) {
        const seen = values.get(q.key) ?? values.set(q.key, new Set()).get(q.key);
        seen?.add(JSON.stringify(q.args.map((arg) => (body[i] as Action).args[arg])));
      }
    const keys = [...values.keys()]
      .sort((x, y) => Number((values.get(y)?.size ?? 0) > 1) - Number((values.get(x)?.size ?? 0) > 1))
      .slice(0, candidates);
    for (const key of keys) {
      const quantities = all.map((qs) => qs.find((q) => q.key === key) ?? null);
      const named = keys.length > 1 ? `${name} (${key})` : name;
      const m = quantities.filter((x) => x !== null).length;
      const k = Math.min(most, 1 + Math.floor((maxTurns - 1 - log.length) / m));
      const cuts: Array<[boolean, string]> = [[false, `each ${named} split into ${k} parts`]];
      if (kind === 'interval') cuts.push([true, `each ${named} split into ${k} parts, its end counted in it`]);
      for (const [closed, how] of k >= 2 ? cuts : []) {
        const groups = body.map((a, i) => quantities[i]?.parts(k, closed) ?? [a]);
        if (!groups.some((g) => g.length > 1)) continue;
        push(how, [...groups.flat(), finish]);
        if (closed) continue;
        // Interleaved: the first part of every call, then the second… (the calls' own order kept within a round).
        const rounds = Math.max(...groups.map((g) => g.length));
        push(`${how}, interleaved`, [
          ...Array.from({ length: rounds }, (_, r) => groups.flatMap((g) => (g[r] ? [g[r] as Action] : []))).flat(),
          finish,
        ]);
      }
      // Merged: calls that differ only in their quantity, made once covering both.
      const merged = new Map<string, Action>();
      for (const [i, a] of body.entries()) {
        const rest = quantities[i]?.rest ?? `${i}`;
        const before = merged.get(rest);
        const both = before ? quantityOf(meta, before, kind, key)?.merge(a) : null;
        if (before && both) merged.set(rest, both);
        else merged.set(before ? `${i}` : rest, { tool: a.tool, args: { ...a.args } });
      }
      if (merged.size < body.length)
        push(`calls differing only in their ${named} merged`, [...merged.values(), finish]);
    }
  }
  // A quantity two calls share (check_in … check_out, a hold then its capture): the pair cut into back-to-back pairs.
  for (const re of sequenceReshapings(meta, log, maxTurns, sequences, observations, prompt, changed))
    push(re.how, re.actions, re.binds);
  return out;
}
