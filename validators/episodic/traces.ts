// A call's own trace (redteam-trust16 Q1, Q4, Q6): what its step added to the state and its reply, masked (its own
// values, the neutral id, numbers: sent-mask.ts), as a set of features, so a call is read as accepted or refused by
// its trace beside the traces of calls known accepted (the reference's) and known refused, never by later answers.
import type { Action } from './adversaries.js';
import { maskSent, sentOf, sentPattern } from './sent-mask.js';

/** How alike two traces must be (the share of features they hold in common) to read as the same kind of call. */
export const LIKE = 0.5;

/** A text with the call's own string values and `extra` tokens read as one mark, and every number as another. */
export const maskText = (text: string, call: Action, extra: readonly string[]): string =>
  maskSent(text, sentPattern([...extra, ...sentOf(call.args)]));

const plain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Each leaf under `v` as [path, value]: arrays' items at `path.*`, objects' fields at `path.key`. */
function leaves(v: unknown, path: string, out: [string, unknown][]): void {
  if (Array.isArray(v)) for (const x of v) leaves(x, `${path}.*`, out);
  else if (plain(v)) for (const [k, x] of Object.entries(v)) leaves(x, `${path}.${k}`, out);
  else out.push([path, v]);
}

/**
 * What a step changed, as the leaves it wrote: an array grown at its end gives its new items, an object its changed
 * fields, a value removed gives its path marked `-`.
 */
export function stepDelta(
  before: unknown,
  after: unknown,
  path = '$',
  out: [string, unknown][] = [],
): [string, unknown][] {
  if (JSON.stringify(before) === JSON.stringify(after)) return out;
  if (Array.isArray(before) && Array.isArray(after)) {
    const grown = before.every((x, i) => JSON.stringify(x) === JSON.stringify(after[i]));
    if (grown) for (const x of after.slice(before.length)) leaves(x, `${path}.*`, out);
    else
      for (let i = 0; i < Math.max(before.length, after.length); i++) stepDelta(before[i], after[i], `${path}.*`, out);
  } else if (plain(before) && plain(after)) {
    for (const k of new Set([...Object.keys(before), ...Object.keys(after)]))
      stepDelta(before[k], after[k], `${path}.${k}`, out);
  } else if (after === undefined) out.push([`${path}-`, null]);
  else leaves(after, path, out);
  return out;
}

/** A call's trace as features: each leaf its step wrote (a text word by word) and each word of its reply, masked. */
export function traceOf(
  before: unknown,
  after: unknown,
  reply: string | undefined,
  call: Action,
  extra: readonly string[],
) {
  const words = (where: string, text: string) =>
    maskText(text, call, extra)
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w.length > 0)
      .map((w) => `${where}:${w}`);
  // A path keyed by the call's own value reads as any entity's ($.bookings.·.from).
  const features = stepDelta(before, after).flatMap(([key, v]) => {
    const path = maskText(key, call, extra);
    return typeof v === 'string' ? words(path, v) : [`${path}=${maskText(JSON.stringify(v) ?? '', call, extra)}`];
  });
  return new Set([...features, ...words('reply', reply ?? '')]);
}

/** The part of a trace its reply gives (`reply`) or the part the state gives: the two are read apart. */
export const partOf = (trace: ReadonlySet<string>, reply: boolean): Set<string> =>
  new Set([...trace].filter((f) => f.startsWith('reply:') === reply));

/** The share of two traces' features they hold in common (1 for two empty traces). */
export function likeness(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const common = [...a].filter((f) => b.has(f)).length;
  const all = a.size + b.size - common;
  return all === 0 ? 1 : common / all;
}
