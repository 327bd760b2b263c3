// The copy of a shown value, played instead of counted: where an observation shows a number the reference sends
// later (not in the prompt or the initial state, nor the world's bookkeeping of the policy's own earlier calls), the
// plan that sends, at every call of that tool, the number a reply shows at the same place stands for copying it.
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from './adversaries.js';
import { tokensOf } from './probes.js';

/** Where a copy policy reads a call's value: the reply of `from` naming the call's entity, its `fromEnd`-th number. */
export interface CopyRule {
  tool: string;
  arg: string;
  from: string;
  fromEnd: number;
}

const numbersIn = (text: string): number[] =>
  tokensOf(text)
    .map(Number)
    .filter((n) => Number.isFinite(n));
const idsOf = (a: Action): string[] =>
  Object.values(a.args).filter((v): v is string => typeof v === 'string' && v.trim() !== '');

/**
 * The numbers of a reply (to `other`) that belong to the entity of `call`: the whole reply to a call naming the same
 * ids (or to any call where `call` names none), else the lines of the reply that name one of its ids; null where
 * none does.
 */
function entityNumbers(call: Action, other: Action | undefined, reply: string): number[] | null {
  const ids = idsOf(call);
  if (ids.length === 0 || (other && idsOf(other).some((v) => ids.includes(v)))) return numbersIn(reply);
  const lower = ids.map((v) => v.toLowerCase());
  const lines = reply.split(/[\n;]+/).filter((line) => tokensOf(line).some((w) => lower.includes(w.toLowerCase())));
  return lines.length === 0 ? null : numbersIn(lines.join('\n'));
}

/**
 * Whether `v`, sent by call `i`, is the world's bookkeeping of the policy's own earlier calls on the same entity: a
 * number of the initial state less (or plus) what they sent, per tool and argument or all together (a balance left
 * after earlier parts or a credit applied, a running total).
 */
export function bookkept(acts: Action[], i: number, v: number, stateNumbers: Set<number>): boolean {
  const ids = idsOf(acts[i] as Action).join('|');
  const sums = new Map<string, number>();
  for (const a of acts.slice(0, i).filter((x) => idsOf(x).join('|') === ids))
    for (const [arg, x] of Object.entries(a.args))
      if (typeof x === 'number') for (const key of [`${a.tool}|${arg}`, '']) sums.set(key, (sums.get(key) ?? 0) + x);
  return [...sums.values()].some((sent) => sent !== 0 && (stateNumbers.has(v + sent) || stateNumbers.has(v - sent)));
}

const SHOWING = new Set(
  ['show', 'display', 'report', 'print', 'quote', 'say'].flatMap((v) => [v, `${v}s`, `${v}n`, `${v}ed`, `${v}d`]),
);
/** Words that state arithmetic: texts holding one may derive a value, so no sentence of theirs sends one as shown. */
const ARITHMETIC =
  /%|\b(less|minus|plus|times|half|double|twice|percent|round(ed|s)?|deduct\w*|subtract\w*|discount\w*)\b/i;
/** Whether the texts state arithmetic (a rule that may derive a number from what is read). */
export const statesArithmetic = (texts: readonly string[]) => texts.some((t) => ARITHMETIC.test(t));
const nameWords = (name: string): string[] => name.toLowerCase().match(/[a-z]+/g) ?? [];
/** Whether `word` is `stem` or one of its plain inflections (invoice: invoices). */
const inflects = (word: string, stem: string) =>
  word === stem || ['s', 'es', 'ed', 'ing'].some((x) => word === stem + x);

/**
 * Whether the texts of the task (the prompt, its description, the sending tool's description) tell the agent to send
 * what `rule.from` shows (redteam-s20e S3: 'Pay every invoice ..., the amount due that read_invoice shows'): a
 * sentence naming the showing tool (every word of its name) with a verb of showing, in texts that state no arithmetic
 * (redteam-s18e E8's 'its price less a 15% fee' derives the value the read prints). A lookup the text asks for is the
 * task's input, however the world stores or computes the figure.
 */
export function directedCopy(texts: readonly string[], rule: CopyRule): boolean {
  const from = nameWords(rule.from);
  if (statesArithmetic(texts)) return false;
  return texts
    .flatMap((t) => t.split(/(?<=[.!?])\s+|\n+/))
    .some((sentence) => {
      const w = nameWords(sentence);
      return w.some((x) => SHOWING.has(x)) && from.every((f) => w.some((x) => inflects(x, f)));
    });
}

/**
 * The copy rule the reference's own log suggests: among its numeric arguments that an earlier reply naming the entity
 * shows (not known, not bookkept, not that reply's own call echoed), the commonest place of the shown value that the
 * texts do not ask to be sent as shown (`lookup`).
 */
export function copyRuleOf(
  r: Rollout,
  observations: string[],
  known: Set<string>,
  stateNumbers: Set<number>,
  lookup: (rule: CopyRule) => boolean = () => false,
) {
  const acts = actionsOf(r);
  if (acts.length !== r.actions.length) return null;
  const counts = new Map<string, { rule: CopyRule; n: number }>();
  acts.forEach((call, i) => {
    for (const [arg, v] of Object.entries(call.args)) {
      if (typeof v !== 'number' || known.has(String(v)) || bookkept(acts, i, v, stateNumbers)) continue;
      for (let j = i - 1; j >= 0; j--) {
        const other = acts[j] as Action;
        const nums = Object.values(other.args).includes(v) ? null : entityNumbers(call, other, observations[j] ?? '');
        const at = nums ? nums.lastIndexOf(v) : -1;
        if (!nums || at < 0) continue;
        const rule = { tool: call.tool, arg, from: other.tool, fromEnd: nums.length - 1 - at };
        if (lookup(rule)) break;
        const key = JSON.stringify(rule);
        counts.set(key, { rule, n: (counts.get(key)?.n ?? 0) + 1 });
        break;
      }
    }
  });
  return [...counts.values()].sort((a, b) => b.n - a.n)[0]?.rule ?? null;
}

/**
 * The number `rule` reads for each call of the log (undefined where the call is not one of `rule.tool`'s, or no earlier
 * reply of `rule.from` naming its entity shows one): the latest such reply, its `rule.fromEnd`-th number from the end.
 */
export function copiedValues(r: Rollout, observations: string[], rule: CopyRule): (number | undefined)[] {
  const acts = actionsOf(r);
  return acts.map((call, i) => {
    if (call.tool !== rule.tool || typeof call.args[rule.arg] !== 'number') return undefined;
    for (let j = i - 1; j >= 0; j--) {
      const other = acts[j] as Action;
      if (other.tool !== rule.from) continue;
      const nums = entityNumbers(call, other, observations[j] ?? '');
      const copy = nums?.[nums.length - 1 - rule.fromEnd];
      if (copy !== undefined) return copy;
    }
    return undefined;
  });
}

/**
 * The reference's log with every `rule.tool` call's `rule.arg` replaced by the number its rule reads (kept where there
 * is none): the copy, played.
 */
export function copyPlan(r: Rollout, observations: string[], rule: CopyRule): Action[] {
  const values = copiedValues(r, observations, rule);
  return actionsOf(r).map((call, i) =>
    values[i] === undefined ? call : { tool: call.tool, args: { ...call.args, [rule.arg]: values[i] } },
  );
}

/**
 * The copy's chance: `r`'s log with its `rule.tool` calls sending, in turn, the values `rule.arg` takes in `peer`'s
 * copy (another episode's shown values, or its own where none is shown), cycled; null where the peer has none. What
 * it wins is what a shown value of that place wins by coincidence, not by standing in for the episode's work.
 */
export function peerCopyPlan(r: Rollout, peer: Rollout, peerObservations: string[], rule: CopyRule): Action[] | null {
  const values = copyPlan(peer, peerObservations, rule)
    .filter((a) => a.tool === rule.tool)
    .map((a) => a.args[rule.arg])
    .filter((v): v is number => typeof v === 'number');
  if (values.length === 0) return null;
  let k = 0;
  return actionsOf(r).map((call) =>
    call.tool !== rule.tool || typeof call.args[rule.arg] !== 'number'
      ? call
      : { tool: call.tool, args: { ...call.args, [rule.arg]: values[k++ % values.length] } },
  );
}

/**
 * Whether the world refused every value the chance plan `plan` sends in place of the reference's (`ref`): each such
 * call of `rule.tool` changed nothing (redteam-s20e S5: another episode's ticket number names no ticket here). Where
 * the texts state no arithmetic to derive a number (`statesArithmetic`), such a trial is undecided: the values are
 * identifiers the world issued, whose wrong values name no entity, not decisions.
 */
export function refusedAsUnknown(plan: readonly Action[], ref: Rollout, rule: CopyRule, played: Rollout): boolean {
  const own = actionsOf(ref);
  const swapped = plan.flatMap((a, j) =>
    a.tool === rule.tool && a.args[rule.arg] !== own[j]?.args[rule.arg] ? [j] : [],
  );
  return (
    swapped.length > 0 &&
    played.changes !== undefined &&
    swapped.every(
      (j) => j < played.turns && (played.rejected.includes(j + 1) || (played.changes?.[j] ?? []).length === 0),
    )
  );
}
