// Whether the entities a stated order ranks contest something the world holds (a scarce seat, a stock): one entity's
// call moved before the others' and its decision re-made (another value, or another entity's), and the world then
// decides otherwise for another entity: its record in the final state (a refused call records nothing), or, where the
// two are described alike, the score of the exchange of their decisions. There the order decides who gets what: a log
// in another order that keeps the reference's decisions is no policy that ignored the order, which would decide
// otherwise. A reply's words are no decision (a status line naming other entities moves with any call).
import type { EpisodicMeta } from '../../contract/episodic.js';
import { escape as escaped } from './adversaries-values.js';
import { propsOf, type Action } from './adversaries.js';
import { reorderedLog, type OrderRule, type Permuted } from './orders.js';

/** One entity's call of the ordered tool moved first (`base`, the reference's decision) and re-decided (`flipped`). */
export interface Contest {
  entity: string;
  base: Permuted;
  flipped: Permuted[];
  /**
   * Per flipped log, the exchange: the displaced entity (the first whose reference decision the moved one now takes)
   * given the moved one's old decision, where the episode describes the two alike (null elsewhere).
   */
  exchanged: Array<Permuted | null>;
  /** Where the moved call stands in `base` (and in each of `flipped`). */
  at: number;
  /** The entities of the tool's calls, upper-cased. */
  ids: string[];
}

/**
 * `call` with one decision argument re-made: an enum's other values, a boolean the other way, else a value another
 * entity's call of the tool sent (a seat, a slot; of a number the largest: the most of a stock), in the reference's
 * order (the first served first).
 */
function redecided(meta: EpisodicMeta, rule: OrderRule, call: Action, calls: readonly Action[]): Action[] {
  return Object.entries(propsOf(meta, rule.tool)).flatMap(([arg, schema]) => {
    if (arg === rule.arg || !(arg in call.args)) return [];
    const sent = calls.map((c) => c.args[arg]).filter((v) => v !== undefined);
    const top = sent.every((v) => typeof v === 'number') ? [Math.max(...(sent as number[]))] : [...new Set(sent)];
    const values = schema.enum ?? (schema.type === 'boolean' ? [true, false] : top);
    return values.filter((v) => v !== call.args[arg]).map((v) => ({ ...call, args: { ...call.args, [arg]: v } }));
  });
}

const text = (v: unknown) => JSON.stringify(v);

/**
 * The words after each mention of an id of `a` and of `b` up to the next id, in every line of `texts` (other ids
 * masked `#`, edge punctuation trimmed), each sorted: what the episode writes about each one.
 */
function viewsOf(texts: readonly string[], a: string[], b: string[], ids: readonly string[]): [string[], string[]] {
  const all = [...new Set(ids)].sort((x, y) => y.length - x.length);
  if (all.length === 0) return [[], []];
  const any = new RegExp(all.map(escaped).join('|'), 'g');
  const views = (mine: string[]): string[] => {
    const out: string[] = [];
    for (const line of texts.flatMap((t) => t.split('\n'))) {
      const hits = [...line.matchAll(any)];
      hits.forEach((m, k) => {
        if (!mine.includes(m[0])) return;
        const end = hits[k + 1]?.index ?? line.length;
        const after = line.slice((m.index as number) + m[0].length, end);
        out.push(after.replace(any, '#').replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''));
      });
    }
    return out.sort();
  };
  return [views(a), views(b)];
}

/**
 * Whether the episode describes entities `a` and `b` alike (the words after their ids in the prompt and the other
 * tools' replies, numbers and the rule's marks masked: only their rank sets them apart), and not both have their
 * reference decisions `va`, `vb` written in their own words (an amount each invoice shows is no contest).
 */
export function describedAlike(
  texts: readonly string[],
  rule: OrderRule,
  ids: readonly string[],
  [a, va]: [string, unknown],
  [b, vb]: [string, unknown],
): boolean {
  const [p, q] = viewsOf(texts, [a], [b], ids);
  const marks = rule.marks.map((m) => new RegExp(`\\b${escaped(m)}\\b`, 'gi'));
  const masked = (views: string[]) =>
    views.map((v) => marks.reduce((t, m) => t.replace(m, '~'), v.replace(/\d+(?:\.\d+)?/g, '#'))).sort();
  // A number is read off in any spelling of it ("7.50 USD" shows 7.5).
  const readOff = (views: string[], v: unknown) =>
    typeof v === 'number'
      ? (views.join('\n').match(/\d+(?:\.\d+)?/g) ?? []).some((n) => Number(n) === v)
      : new RegExp(`(?<![\\p{L}\\p{N}])${escaped(String(v))}(?![\\p{L}\\p{N}])`, 'iu').test(views.join('\n'));
  return text(masked(p)) === text(masked(q)) && !(readOff(p, va) && readOff(q, vb));
}

/**
 * The contests to play on one episode's log, the entities the reference handled last first (those a priority
 * served last, where a scarce thing ran out), at most `limit` entities, each re-decided at most `perEntity` ways.
 */
export function contestsOf(
  meta: EpisodicMeta,
  rule: OrderRule,
  log: readonly Action[],
  observations: readonly (string | undefined)[],
  prompt: string | undefined,
  limit: number,
  perEntity = 2,
): Contest[] {
  const calls = log.slice(0, -1).filter((a) => a.tool === rule.tool);
  const ids = calls.map((c) => String(c.args[rule.arg]));
  const texts = [prompt ?? '', ...observations.flatMap((o, i) => (log[i]?.tool === rule.tool ? [] : [o ?? '']))];
  const out: Contest[] = [];
  for (let k = calls.length - 1; k > 0 && out.length < limit; k--) {
    const moved = calls[k] as Action;
    const others = redecided(meta, rule, moved, calls).slice(0, perEntity);
    const order = [k, ...calls.keys()].filter((m, i) => i === 0 || m !== k);
    const entity = ids[k] as string;
    const base = reorderedLog(meta, rule, log, observations, prompt, `${rule.tool}: ${entity} first`, order);
    if (!base || others.length === 0) continue;
    const at = base.actions.findIndex((a) => a.tool === rule.tool);
    const flipped = others.map((call) => ({
      ...base,
      how: `${base.how}, re-decided ${JSON.stringify(call.args)}`,
      actions: base.actions.map((a, i) => (i === at ? call : a)),
    }));
    const exchanged = flipped.map((f) => {
      const arg = Object.keys(moved.args).find((x) => text(moved.args[x]) !== text(f.actions[at]?.args[x]));
      if (arg === undefined) return null;
      const taken = f.actions[at]?.args[arg];
      const d = f.actions.findIndex(
        (a, i) => i > at && a.tool === rule.tool && a.args[rule.arg] !== entity && text(a.args[arg]) === text(taken),
      );
      const displaced = f.actions[d];
      const alike =
        displaced &&
        describedAlike(texts, rule, ids, [entity, moved.args[arg]], [String(displaced.args[rule.arg]), taken]);
      if (!alike) return null;
      const swap = { ...displaced, args: { ...displaced.args, [arg]: moved.args[arg] } };
      return {
        ...f,
        how: `${f.how}, ${String(displaced.args[rule.arg])} given ${JSON.stringify(moved.args[arg])}`,
        actions: f.actions.map((a, i) => (i === d ? swap : a)),
      };
    });
    out.push({ entity, base, flipped, exchanged, at, ids: ids.map((id) => id.trim().toUpperCase()) });
  }
  return out;
}

/** One replayed log of a contest: its final state and score. */
export interface Played {
  state: unknown;
  score: number;
}

/**
 * The records of `ids` in `state`, each as path (array items as *) → value: a value under a key that is the id, or an
 * object (below the root) whose string fields name that one id and no other.
 */
export function recordsOf(
  state: unknown,
  ids: ReadonlySet<string>,
  path = '$',
  depth = 0,
  out = new Map<string, Map<string, unknown>>(),
): Map<string, Map<string, unknown>> {
  if (state === null || typeof state !== 'object' || depth > 6) return out;
  const put = (id: string, at: string, v: unknown) => out.set(id, (out.get(id) ?? new Map()).set(at, v));
  if (Array.isArray(state)) {
    for (const v of state) recordsOf(v, ids, `${path}.*`, depth + 1, out);
    return out;
  }
  const entries = Object.entries(state as Record<string, unknown>);
  const named = new Set(
    entries.flatMap(([, v]) =>
      typeof v === 'string' && ids.has(v.trim().toUpperCase()) ? [v.trim().toUpperCase()] : [],
    ),
  );
  if (depth > 0 && named.size === 1) {
    put([...named][0] as string, path, state);
    return out;
  }
  for (const [k, v] of entries) {
    if (ids.has(k.trim().toUpperCase())) put(k.trim().toUpperCase(), `${path}.${k}`, v);
    else recordsOf(v, ids, `${path}.${k}`, depth + 1, out);
  }
  return out;
}

/** A record's leaves, path → value (array items by index: the same record read in two states). */
function leavesOf(v: unknown, path: string, out = new Map<string, string>()): Map<string, string> {
  if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) leavesOf(x, `${path}.${k}`, out);
  } else out.set(path, text(typeof v === 'string' ? v.trim().toLowerCase() : v));
  return out;
}

/**
 * Whether re-deciding the moved entity changed another entity's decision as the final state records it: a field of
 * its record that holds a value its own call sent (a queue, "enroll", 3 parcels) in one of the contest's two logs and
 * not in the other (a refused call records nothing). A note or a status copied into its record is no decision.
 */
export function othersDecided(contest: Contest, base: Played, flipped: Played): boolean {
  const ids = new Set(contest.ids);
  const [x, y] = [recordsOf(base.state, ids), recordsOf(flipped.state, ids)];
  const moved = contest.entity.trim().toUpperCase();
  const calls = contest.base.actions.filter((a) => a.tool === contest.base.rule.tool);
  return contest.ids.some((id) => {
    if (id === moved) return false;
    const call = calls.find((a) => String(a.args[contest.base.rule.arg]).trim().toUpperCase() === id);
    const sent = new Set(
      Object.entries(call?.args ?? {}).flatMap(([k, v]) =>
        k === contest.base.rule.arg ? [] : [text(typeof v === 'string' ? v.trim().toLowerCase() : v)],
      ),
    );
    const [mine, theirs] = [x.get(id) ?? new Map(), y.get(id) ?? new Map()];
    const [a, b] = [new Map<string, string>(), new Map<string, string>()];
    for (const [p, v] of mine) leavesOf(v, p, a);
    for (const [p, v] of theirs) leavesOf(v, p, b);
    return [...new Set([...a.keys(), ...b.keys()])].some(
      (p) => a.get(p) !== b.get(p) && (sent.has(a.get(p) as string) || sent.has(b.get(p) as string)),
    );
  });
}

/**
 * Whether the world decides otherwise for another entity once the moved one is re-decided: another's record in the
 * final state (`othersDecided`), or, for two entities described alike, the exchange of their decisions costs the
 * score where the move alone did not (the score reads who got what, and only the rank told them apart).
 */
export function contested(
  contest: Contest,
  base: Played,
  flipped: ReadonlyArray<Played | null>,
  exchanged: ReadonlyArray<Played | null>,
  reference: number,
): boolean {
  const paid = (p: Played | null | undefined) => p !== null && p !== undefined && p.score >= reference - 1e-6;
  return (
    flipped.some((f) => f !== null && othersDecided(contest, base, f)) ||
    (paid(base) && exchanged.some((e) => e !== null && !paid(e)))
  );
}
