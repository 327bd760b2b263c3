// Differential readings: a listing read before and after one call about an entity (a hold, a flag, a read)
// shows what the call touched; which token changed, up or down, is a field of that entity, as a word beside its
// id is, so a world whose panel moves with the decision ("billing 2" to "billing 1" after a hold) is read.
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from './adversaries.js';
import { openingSources, sentStrings } from './near-miss.js';
import type { Replies } from './opening.js';

/**
 * Where a listing read again after a call about an entity is printed: its texts are the differential's, no other
 * reader's.
 */
export const AFTER_A_CALL = 'read again after a call';

const letters = (t: string) => t.toLowerCase().replace(/[^a-z]+/g, '');
const numberOf = (t: string) => (/\d/.test(t) ? Number(t.replace(/[^\d.-]/g, '')) : Number.NaN);

/** The direction of one token's change: a number up or down, other text longer or shorter. */
function direction(x: string, y: string): string {
  const [a, b] = [numberOf(x), numberOf(y)];
  if (Number.isFinite(a) && Number.isFinite(b) && a !== b) return b > a ? 'up' : 'down';
  return y.length > x.length ? 'longer' : y.length < x.length ? 'shorter' : 'changed';
}

/**
 * What changed from `before` to `after`, each as "label direction": the label is the changed token's letters or,
 * where it has none ("2,", "###"), the nearest word before it. Tokens aligned where the counts match; otherwise
 * the first difference, as more or fewer tokens.
 */
export function changes(before: string, after: string): string[] {
  if (before === after) return [];
  const a = before.slice(0, 5000).match(/\S+/g) ?? [];
  const b = after.slice(0, 5000).match(/\S+/g) ?? [];
  const labelAt = (k: number) => {
    for (let j = k; j >= 0; j -= 1)
      if (letters(a[j] ?? '') !== '' && (j < k || !/\d/.test(a[j] ?? ''))) return letters(a[j] as string);
    return 'the start';
  };
  const out = new Set<string>();
  if (a.length === b.length)
    a.forEach((x, k) => x !== b[k] && out.add(`${labelAt(k)} ${direction(x, b[k] as string)}`));
  else {
    const k = a.findIndex((x, i) => x !== b[i]);
    out.add(`${labelAt(k < 0 ? a.length : k)} ${b.length > a.length ? 'more' : 'fewer'} tokens`);
  }
  return [...out].slice(0, 8);
}

/**
 * Per entity id (lower case), the differential fields of an opening: each listing's change between two readings
 * with exactly one call between them that names only values the reference sends (`sent`), attributed to that
 * call's ids, at the place "in LISTING's reply around TOOL".
 */
export function differentialFields(
  log: readonly Action[],
  observations: readonly string[],
  sent: ReadonlySet<string>,
): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const last = new Map<string, string>();
  const between = new Map<string, Array<Action | null>>();
  log.forEach((a, i) => {
    const obs = observations[i];
    if (obs === undefined) return;
    const values = Object.values(a.args);
    if (values.length > 0) {
      const entity = values.every((v) => typeof v === 'string' && sent.has(v)) ? a : null;
      for (const calls of between.values()) calls.push(entity);
      return;
    }
    const calls = between.get(a.tool) ?? [];
    const prev = last.get(a.tool);
    const call = calls.length === 1 ? calls[0] : null;
    if (prev !== undefined && call) {
      for (const f of changes(prev, obs))
        for (const v of Object.values(call.args) as string[])
          out.set(v.toLowerCase(), [
            ...(out.get(v.toLowerCase()) ?? []),
            `in ${a.tool}'s reply around ${call.tool}, what changed: ${f}`,
          ]);
    }
    last.set(a.tool, obs);
    between.set(a.tool, []);
  });
  return out;
}

/** An opening's replies as the readers take them: the tools, where each reply is printed, the differential fields. */
export function readOpening(log: readonly Action[], observations: string[], ref: Rollout): Replies {
  const real = sentStrings(actionsOf(ref));
  let touched = false;
  const sources = openingSources(log, real).map((s, i) => {
    const a = log[i] as Action;
    if (Object.keys(a.args).length > 0) return ((touched = true), s);
    return touched ? `${a.tool}'s reply ${AFTER_A_CALL}` : s;
  });
  const diffs = differentialFields(log, observations, real);
  return { tools: log.map((a) => a.tool), calls: [...log], observations, sources, diffs };
}
