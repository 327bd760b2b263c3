// The oracle reader, as pure functions over reference rollouts: the replies of a read tool asked about every
// value of a decision (an approver that answers truthfully), and whether a cheap policy that asks every question
// and follows the reply that marks the right value would decide well, fitted on half the episodes and judged on half.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import type { Trial } from '../checks/rules.js';
import { actionsOf, propsOf, requiredOf, type Action } from './adversaries.js';
import { escape, type Axis, type Decision } from './adversaries-values.js';
import { twoFold } from './readers.js';

/**
 * A question a read tool allows about one decision: the tool, the entity's arguments, and the argument the value goes
 * in.
 */
export interface Ask {
  tool: string;
  args: Record<string, unknown>;
  arg: string;
}

/**
 * The asks about an axis's decisions: every tool but the decision's and the finish whose required arguments the
 * decision's entity fills, with one argument that takes the axis's values.
 */
export function asksOf(meta: EpisodicMeta, r: Rollout, axis: Axis, decisions: Decision[], finish: string): Ask[][] {
  const acts = actionsOf(r);
  return decisions.map((d) => {
    const call = acts[d.index] as Action;
    return meta.tools.flatMap((tool) => {
      if (tool.name === axis.tool || tool.name === finish) return [];
      const props = propsOf(meta, tool.name);
      const required = [...requiredOf(meta, tool.name)];
      const slot = Object.keys(props).find(
        (n) =>
          !(n in call.args && n !== axis.arg) &&
          (props[n]?.enum
            ? axis.values.every((v) => props[n]?.enum?.includes(v))
            : props[n]?.type === typeof axis.values[0]),
      );
      if (slot === undefined) return [];
      const args = Object.fromEntries(
        Object.keys(props)
          .filter((n) => n !== slot && n in call.args && n !== axis.arg)
          .map((n) => [n, call.args[n]]),
      );
      return required.every((n) => n === slot || n in args) && Object.keys(args).length > 0
        ? [{ tool: tool.name, args, arg: slot }]
        : [];
    });
  });
}

/** The oracle's log for one ask tool: each decision's question asked with every value of the axis, in order. */
export const askLog = (asks: Array<Ask | undefined>, axis: Axis): Action[] =>
  asks.flatMap((a) => (a ? axis.values.map((v) => ({ tool: a.tool, args: { ...a.args, [a.arg]: v } })) : []));

/**
 * A reply with the value asked about (as a whole word: "approve" is not masked in "Approved") and its numbers masked.
 */
const maskAsked = (text: string, v: string) =>
  text
    .replace(new RegExp(`(?<![A-Za-z0-9_])${escape(v)}(?![A-Za-z0-9_])`, 'gi'), '\u00a7')
    .replace(/\d+(?:\.\d+)?/g, '#');

/**
 * One decision asked about: the reference's value, and each value's reply (masked: the value itself and numbers), null
 * where missing.
 */
export interface AskSample {
  level: number;
  value: string;
  replies: Map<string, string | null>;
}

/** The ask samples of one ask log (`asks[k]` about decision k; null where the tool could not ask about it). */
export function askSamples(
  level: number,
  asks: Array<Ask | undefined>,
  decisions: Decision[],
  axis: Axis,
  observations: string[] | undefined,
): AskSample[] {
  let at = 0;
  return asks.flatMap((a, k) => {
    if (!a) return [];
    const replies = new Map(
      axis.values.map(
        (v, j) =>
          [
            String(v),
            observations?.[at + j] === undefined ? null : maskAsked(observations[at + j] as string, String(v)),
          ] as const,
      ),
    );
    at += axis.values.length;
    return [{ level, value: String((decisions[k] as Decision).value), replies }];
  });
}

/**
 * The reply that marks the right value, fitted on `fit`: the right value's reply and no other value's, in 90% of the
 * decisions where it appears.
 */
function fitMark(samples: readonly AskSample[], fit: number[]): string | null {
  const good = new Map<string, number>();
  const seen = new Map<string, number>();
  for (const i of fit) {
    const s = samples[i] as AskSample;
    const right = s.replies.get(s.value);
    for (const reply of new Set([...s.replies.values()]))
      if (reply !== null) seen.set(reply, (seen.get(reply) ?? 0) + 1);
    if (right && [...s.replies].every(([v, r]) => v === s.value || r !== right))
      good.set(right, (good.get(right) ?? 0) + 1);
  }
  const [mark, n] = [...good].sort((a, b) => b[1] - a[1])[0] ?? [null, 0];
  return mark !== null && n >= 2 && n >= 0.9 * (seen.get(mark) ?? 0) ? mark : null;
}

/** Two-fold trials of the oracle policy (ask every question, follow the reply that marks the right value). */
export function askTrials(samples: readonly AskSample[]): { level: Trial[]; pooled: Trial[]; marks: string[] } {
  const pick = (mark: string, s: AskSample) => {
    const picked = [...s.replies].filter(([, r]) => r === mark).map(([v]) => v);
    return picked.length === 1 ? (picked[0] as string) : null;
  };
  const t = twoFold(samples, (members) => fitMark(samples, members), pick);
  return { level: t.level, pooled: t.pooled, marks: t.rules };
}
