// Ids the environment issues (redteam-trust9 R1: check_in answers "stay ST-4821", check_out {stay_id} closes it): a
// value first seen in an observation and then sent as an argument links the call answered with it to the call that
// uses it, and a reshaped log binds each use to the id its new issuing call is answered (sandbox/protocol.ts Bind).
import type { EpisodicMeta } from '../../contract/episodic.js';
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

/** What an episode was given (its prompt, the tools' text): a value written there is the world's word, not an issue. */
export const givenText = (meta: EpisodicMeta, prompt = '') =>
  `${prompt}\n${meta.description}\n${JSON.stringify(meta.tools)}`.slice(0, 40_000);

// Words a world answers in its own voice (a status, a yes): never an id, wherever first seen.
const VOCABULARY = new Set(
  (
    'yes no true false none null all any open opened closed close pending approved denied rejected active inactive ' +
    'done ready new old high low medium normal ok okay error valid invalid available unavailable booked free full ' +
    'empty paid unpaid due late early today tomorrow yesterday morning evening night day week month year guest ' +
    'room stay date time name status'
  ).split(' '),
);
export const wholeIn = (value: string, text: string) =>
  new RegExp(`(?<![A-Za-z0-9_])${[...value].map(escaped).join('')}(?![A-Za-z0-9_])`, 'i').test(text);

/**
 * For each call of `log`, the string arguments it sends that an earlier call's observation issued: a value first sent
 * after an observation holds it as a whole token, by where it was first seen, not by its characters (ST-4821, ST-KQB,
 * Maple, 9f3ab2): no date or time, not written in `given` (the prompt, the tools' text), and a value with no digit at
 * least three characters, no word of the world's fixed vocabulary, and not answered alike to calls of the issuing
 * tool on other arguments (a template's word). None where there are no observations.
 */
export function issuesOf(
  log: readonly Action[],
  observations: readonly (string | undefined)[] | undefined,
  given = '',
): Issue[][] {
  if (!observations) return log.map(() => []);
  const firstSeen = new Map<string, Omit<Issue, 'arg'> | null>();
  return log.map((a, j) => {
    const out: Issue[] = [];
    for (const [arg, v] of Object.entries(a.args)) {
      if (!firstSeen.has(v as string) && candidate(v, given)) firstSeen.set(v, issuer(v, log, observations, j));
      const by = typeof v === 'string' ? firstSeen.get(v) : null;
      if (by) out.push({ ...by, arg });
    }
    return out;
  });
}

/** Whether a sent value may be an id the world issued (see issuesOf). */
function candidate(v: unknown, given: string): v is string {
  if (typeof v !== 'string' || v.length < 2 || v.length > 64 || pointOf(v, false)) return false;
  if (!/[A-Za-z0-9]/.test(v) || wholeIn(v, given)) return false;
  return /\d/.test(v) || (v.length >= 3 && !VOCABULARY.has(v.toLowerCase()));
}

/**
 * The earliest observation before call `j` holding `value` as a whole token, with its place among its shape's; none
 * for a value with no digit that the issuing tool also answers a call on other arguments (its own words).
 */
function issuer(
  value: string,
  log: readonly Action[],
  observations: readonly (string | undefined)[],
  j: number,
): Omit<Issue, 'arg'> | null {
  const shape = shapeOf(value);
  const holds = (i: number) => wholeIn(value, (observations[i] ?? '').slice(0, 20_000));
  for (let i = 0; i < j; i++) {
    if (!holds(i)) continue;
    const found: string[] = (observations[i] ?? '').slice(0, 20_000).match(new RegExp(shape, 'g')) ?? [];
    const nth = found.indexOf(value);
    if (nth < 0) continue;
    const [by, args] = [log[i] as Action, JSON.stringify(log[i]?.args)];
    const template = (k: number) => log[k]?.tool === by.tool && JSON.stringify(log[k]?.args) !== args && holds(k);
    if (!/\d/.test(value) && log.some((_, k) => k !== i && k < j && template(k))) return null;
    return { by: i, value, shape, nth };
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
