// Ids the environment issues (redteam-trust9 R1: check_in answers "stay ST-4821", check_out {stay_id} closes it): a
// value first seen in an observation and then sent as an argument links the call answered with it to the call that
// uses it, and a reshaped log binds each use to the id its new issuing call is answered (sandbox/protocol.ts Bind).
import type { Bind } from '../../sandbox/protocol.js';
import type { Action } from './adversaries.js';
import { pointOf } from './points.js';

/** A value a call sends that the observation of an earlier call `by` issued: the `nth` match of `shape` there. */
export interface Issue {
  by: number;
  arg: string;
  value: string;
  shape: string;
  nth: number;
}

const escaped = (c: string) => (/[A-Za-z0-9_\s]/.test(c) ? c : `\\${c}`);
/** A value's shape as a RegExp source: runs of digits and of letters of one case stand for any such run. */
export const shapeOf = (value: string) =>
  `(?<![A-Za-z0-9_])${(value.match(/\d+|[A-Z]+|[a-z]+|[^A-Za-z\d]/g) ?? [])
    .map((r) => (/^\d/.test(r) ? '\\d+' : /^[A-Z]/.test(r) ? '[A-Z]+' : /^[a-z]/.test(r) ? '[a-z]+' : escaped(r)))
    .join('')}(?![A-Za-z0-9_])`;

/**
 * For each call of `log`, the string arguments it sends that an earlier call's observation issued: a value with a
 * digit and no date or time, first sent after an observation that holds it as a whole token (none: no observations).
 */
export function issuesOf(log: readonly Action[], observations: readonly (string | undefined)[] | undefined): Issue[][] {
  if (!observations) return log.map(() => []);
  const firstSeen = new Map<string, Omit<Issue, 'arg'> | null>();
  return log.map((a, j) => {
    const out: Issue[] = [];
    for (const [arg, v] of Object.entries(a.args)) {
      if (typeof v !== 'string' || v.length < 2 || v.length > 64 || !/\d/.test(v) || pointOf(v, false)) continue;
      if (!firstSeen.has(v)) firstSeen.set(v, issuer(v, observations, j));
      const by = firstSeen.get(v);
      if (by) out.push({ ...by, arg });
    }
    return out;
  });
}

/** The earliest observation before call `j` holding `value` as a whole token, with its place among its shape's. */
function issuer(value: string, observations: readonly (string | undefined)[], j: number): Omit<Issue, 'arg'> | null {
  const shape = shapeOf(value);
  for (let i = 0; i < j; i++) {
    const found: string[] = (observations[i] ?? '').slice(0, 20_000).match(new RegExp(shape, 'g')) ?? [];
    const nth = found.indexOf(value);
    if (nth >= 0) return { by: i, value, shape, nth };
  }
  return null;
}

/**
 * The binds of a reshaped log whose calls came from `origins` (each new call's index in the log `issues` describes):
 * each use of an issued id bound to the latest earlier new call that came from its issuer.
 */
export function bindsOf(origins: readonly number[], issues: readonly Issue[][]): Bind[] {
  return origins.flatMap((j, at) =>
    (issues[j] ?? []).flatMap((u): Bind[] => {
      const from = origins.slice(0, at).lastIndexOf(u.by);
      return from < 0 ? [] : [{ at, arg: u.arg, value: u.value, from, shape: u.shape, nth: u.nth }];
    }),
  );
}
