// The calls of a plan on one entity (redteam-trust18 R3): those taking its id, or an id a call on it issued and a later
// call quotes; a call that names no such value (a tally of the day, a close, a report of every entity) is on none.
import type { Action } from './adversaries.js';
import { sentOf, sentPattern } from './sent-mask.js';
import type { TurnsRun } from './withheld.js';

/** Whether `text` shows `value` as a whole word, as sent-mask.ts reads a value sent. */
const shows = (text: string | undefined, value: string): boolean =>
  text !== undefined && new RegExp(sentPattern([value]).source, 'i').test(text);

/** Whether turn `j` of a run was played, not refused, and changed the state. */
export const changedAt = (r: TurnsRun, j: number): boolean =>
  j < r.turns && !r.rejected.includes(j + 1) && (r.changes?.[j]?.length ?? 0) > 0;

/** The calls of a plan on one entity, and for each reached by an id a call on it issued, that call. */
export interface OnEntity {
  on: number[];
  issuers: Map<number, number>;
}

/**
 * The indices of the calls of plan `body` on entity `e`: those taking its id as an argument, or a value a call on it
 * issued: first shown by the reply (`replies`, the reference's) of a call on `e` that changed the state in the
 * reference (`reference`), never in the prompt and sent by no call up to it (a stay id a check-in answered, quoted by
 * the check-out: redteam-trust11 honest-letter-stay-id). A value a read showed first (a date) is nobody's issue.
 */
export function callsOn(
  body: readonly Action[],
  e: string,
  reference: TurnsRun,
  replies: readonly string[],
  prompt: string,
): OnEntity {
  const ids = new Set([e.trim().toLowerCase()]);
  const on: number[] = [];
  const issuers = new Map<number, number>();
  const sentBy = body.map((a) => sentOf(a.args).map((v) => v.toLowerCase()));
  const issuerOf = (v: string, j: number): number => {
    if (shows(prompt, v)) return -1;
    const i = replies.findIndex((r, i) => i < j && shows(r, v));
    const issued = i >= 0 && on.includes(i) && changedAt(reference, i);
    return issued && !sentBy.slice(0, i + 1).some((s) => s.includes(v)) ? i : -1;
  };
  sentBy.forEach((values, j) => {
    if (values.some((v) => ids.has(v))) {
      on.push(j);
      return;
    }
    for (const v of values) {
      const i = issuerOf(v, j);
      if (i < 0) continue;
      ids.add(v);
      on.push(j);
      issuers.set(j, i);
      return;
    }
  });
  return { on, issuers };
}
