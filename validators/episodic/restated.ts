// Values a reply restates (redteam-trust14 Y3): a ticket, a version or a cursor that each reply shows and each call
// quotes is filled from the reply just before the call, never copied from the reference's template (spent by then).
import type { Rollout, RolloutResult } from '../../sandbox/rollouts.js';
import type { Action } from './adversaries.js';
import { alike, spells } from './withheld.js';

/** A restated argument: its name, and where its value stands in the reply before the call (the k-th last alike). */
export interface Restated {
  name: string;
  fromEnd: number;
}

/**
 * The arguments of `tool` (not `entityArg`) whose value the reply just before the call restates, for every call of
 * it in plan `body` that follows a reply (`replies[j]`: the reply to call j), with more than one value across its
 * calls: a value that changes as the episode goes and that the latest reply shows. Where it stands is read off the
 * first such call.
 */
export function restatedArgs(body: readonly Action[], replies: readonly string[], tool: string, entityArg: string) {
  const all = body.filter((a) => a.tool === tool);
  const calls = body.flatMap((a, j) => (a.tool === tool && j > 0 ? [{ a, before: replies[j - 1] ?? '' }] : []));
  const first = calls[0];
  if (first === undefined) return [];
  return Object.entries(first.a.args).flatMap(([name, v]): Restated[] => {
    if (name === entityArg || (typeof v !== 'string' && typeof v !== 'number')) return [];
    if (new Set(all.map((a) => a.args[name])).size < 2) return [];
    const shown = calls.every(({ a, before }) => {
      const w = a.args[name];
      return (typeof w === 'string' || typeof w === 'number') && alike(before, w).some((t) => spells(t, w));
    });
    if (!shown) return [];
    const tokens = alike(first.before, v);
    const at = tokens.findLastIndex((t) => spells(t, v));
    return [{ name, fromEnd: tokens.length - 1 - at }];
  });
}

/** `call` with each restated argument read from `latest` (the reply before it) where it stands there, as its type. */
export function refilled(call: Action, restated: readonly Restated[], latest: string): Action {
  const args = { ...call.args };
  for (const { name, fromEnd } of restated) {
    const v = call.args[name];
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    const tokens = alike(latest, v);
    const copy = tokens[tokens.length - 1 - fromEnd];
    if (copy !== undefined) args[name] = typeof v === 'number' ? Number(copy) : copy;
  }
  return { tool: call.tool, args };
}

/**
 * The reply just before turn `at` of a log, from a replay of the log up to it (`prefix`): the prompt before the first
 * call; undefined where the replay failed.
 */
export const replyBefore = (ref: Rollout, prefix: RolloutResult | undefined, at: number): string | undefined =>
  at === 0 ? (ref.prompt ?? '') : prefix?.ok ? (prefix.observations?.[at - 1] ?? undefined) : undefined;
