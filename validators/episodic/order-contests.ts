// Whether the entities a stated order ranks contest something the world holds (a scarce seat, a stock): one entity's
// call moved before the others' and its decision re-made (another value, or another entity's), and the world answers
// another entity's call otherwise (refused, "full"). There the order decides who gets what: a log in another order
// that keeps the reference's decisions is no policy that ignored the order, which would decide otherwise.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { propsOf, type Action } from './adversaries.js';
import { reorderedLog, type OrderRule, type Permuted } from './orders.js';

/** One entity's call of the ordered tool moved first (`base`, the reference's decision) and re-decided (`flipped`). */
export interface Contest {
  entity: string;
  base: Permuted;
  flipped: Permuted[];
  /** Where the moved call stands in `base` (and in each of `flipped`). */
  at: number;
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
  const out: Contest[] = [];
  for (let k = calls.length - 1; k > 0 && out.length < limit; k--) {
    const others = redecided(meta, rule, calls[k] as Action, calls).slice(0, perEntity);
    const order = [k, ...calls.keys()].filter((m, i) => i === 0 || m !== k);
    const entity = (calls[k] as Action).args[rule.arg] as string;
    const base = reorderedLog(meta, rule, log, observations, prompt, `${rule.tool}: ${entity} first`, order);
    if (!base || others.length === 0) continue;
    const at = base.actions.findIndex((a) => a.tool === rule.tool);
    const flipped = others.map((call) => ({
      ...base,
      how: `${base.how}, re-decided ${JSON.stringify(call.args)}`,
      actions: base.actions.map((a, i) => (i === at ? call : a)),
    }));
    out.push({ entity, base, flipped, at });
  }
  return out;
}

const namesId = (id: string) =>
  new RegExp(`(?<![A-Za-z0-9_])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_])`);
// A reply's words about the other entities: the lines naming the moved entity left out, numbers masked (a tally or a
// progress count moves with any decision; a refusal or "full" is in the words).
const wordsAbout = (reply: string | undefined, id: RegExp) =>
  (reply ?? '')
    .split('\n')
    .filter((l) => !id.test(l))
    .map((l) => l.replace(/\d+(?:\.\d+)?/g, '#'))
    .join('\n');

/**
 * Whether re-deciding the moved entity changed what the world answers after it to a call that does not name it:
 * `base` and `flipped` are the observations of the contest's two logs.
 */
export function contested(
  contest: Contest,
  base: readonly (string | undefined)[],
  flipped: readonly (string | undefined)[],
): boolean {
  const id = namesId(contest.entity);
  return contest.base.actions.some(
    (a, i) =>
      i > contest.at &&
      i < base.length &&
      i < flipped.length &&
      !Object.values(a.args).some((v) => typeof v === 'string' && id.test(v)) &&
      wordsAbout(base[i], id) !== wordsAbout(flipped[i], id),
  );
}
