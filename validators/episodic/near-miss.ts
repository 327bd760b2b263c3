// Near misses of a real entity's id (its other letter case, a trailing space, a look-alike letter, a dropped last
// character) sent to the tools that read the entity: each reply is an observation a reader fits like any other,
// so a world that answers a near miss with the decision ("did you mean TK1234 (BIL-1234)?") is read.
import type { Action } from './adversaries.js';
import { caseFlipped, lookAlike } from './variants.js';

/** The near-miss kinds in the order they are sent (a short opening keeps the first kinds for every entity). */
export const NEAR_MISS_KINDS = [
  'in another case',
  'with a trailing space',
  'with a look-alike letter',
  'less its last character',
] as const;
export type NearMissKind = (typeof NEAR_MISS_KINDS)[number];

/** The near miss of `id` of one kind, or null where it would equal the id or not fit `maxLength`. */
export function nearMiss(id: string, kind: NearMissKind, maxLength?: number): string | null {
  const out =
    kind === 'in another case'
      ? caseFlipped(id)
      : kind === 'with a trailing space'
        ? `${id} `
        : kind === 'with a look-alike letter'
          ? (lookAlike(id) ?? id)
          : id.slice(0, -1);
  return out === id || out.length === 0 || (maxLength !== undefined && out.length > maxLength) ? null : out;
}

/** An id a world issued: two to 40 characters, no space, a digit or a capital. */
const idLike = (v: unknown): v is string =>
  typeof v === 'string' && v.length >= 2 && v.length <= 40 && !/\s/.test(v) && /[0-9A-Z]/.test(v);

/**
 * The near-miss calls of `calls` (the reference's): each call whose arguments are all ids (a read, a hold, a
 * flag: a call that carries a decision's value is left out, its reply would echo it) sent once per kind with
 * every id replaced by its near miss, kind by kind, each call once.
 */
export function nearMissCalls(
  calls: readonly Action[],
  maxLength: (tool: string, arg: string) => number | undefined,
): Action[] {
  const seen = new Set<string>();
  const reads = calls.filter((a) => {
    const key = a.tool + JSON.stringify(a.args);
    const ok = Object.keys(a.args).length > 0 && Object.values(a.args).every(idLike) && !seen.has(key);
    return ok && seen.add(key) !== undefined;
  });
  return NEAR_MISS_KINDS.flatMap((kind) =>
    reads.flatMap((a): Action[] => {
      const args = Object.fromEntries(
        Object.entries(a.args).map(([name, v]) => [name, nearMiss(v as string, kind, maxLength(a.tool, name)) ?? v]),
      );
      return JSON.stringify(args) === JSON.stringify(a.args) ? [] : [{ tool: a.tool, args }];
    }),
  );
}

/**
 * Where each reply of an opening `log` is printed, as a reader's place names it: the tool's reply, or its reply to
 * an id of a kind (a call whose string argument is no value the reference sends, `sent`, but a near miss of
 * one), so a near miss's reply is a place of its own.
 */
export function openingSources(log: readonly Action[], sent: readonly Action[]): string[] {
  const real = new Set(sent.flatMap((a) => Object.values(a.args).filter((v): v is string => typeof v === 'string')));
  const misses = new Map<string, NearMissKind>();
  for (const v of real)
    for (const kind of NEAR_MISS_KINDS) {
      const w = nearMiss(v, kind);
      if (w !== null && !real.has(w)) misses.set(w, kind);
    }
  return log.map((a) => {
    const kind = Object.values(a.args)
      .map((v) => (typeof v === 'string' ? misses.get(v) : undefined))
      .find((k) => k !== undefined);
    return kind === undefined ? `${a.tool}'s reply` : `${a.tool}'s reply to an id ${kind}`;
  });
}
