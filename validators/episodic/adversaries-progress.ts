// The read-back oracle (FINDINGS-rt4 R20): a categorical decision retried over every value with a read tool
// called after each try; where one value's reply stands out from the others' for every decision (a progress
// count that rises, a status that flips), a policy that keeps the try the read singles out plays the task by
// search. Where a decision is final, a tool that may put the entity back (adversaries-undo.ts `resetsOf`) is
// called after each read, so the next try starts over. Pure builders and readers: the sweep logs, the choices
// their replies give, the retrying log.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, propsOf, requiredOf, type Action } from './adversaries.js';
import { escape, singledOut, type Axis, type Decision, type Scalar } from './adversaries-values.js';

/** A read tool a policy can call after each try: its name and the arguments it takes from the decision's call. */
export interface Read {
  tool: string;
  names: string[];
}
/**
 * A sweep log: the decisions of `group` each tried over every value, `read` called after each try; `at[k][j]` is the
 * index of the read after value j of decision k.
 */
export interface Sweep {
  read: Read;
  /**
   * The call made after each read but the last, to put the entity back before the next try (none: the tries follow each
   * other).
   */
  reset?: Read;
  actions: Action[];
  at: Map<number, number[]>;
}
const LIMIT = { reads: 3, sweeps: 6 };

const readCall = (read: Read, decision: Action): Action => ({
  tool: read.tool,
  args: Object.fromEntries(read.names.map((n) => [n, decision.args[n]])),
});

/**
 * The tools a policy can read after each try: every tool but the decision's and the finishing one whose required
 * arguments are all filled, by name, from the decision's call (its entity; never the decided value), no-argument
 * tools among them. At most three, no-argument tools first (a status or progress screen).
 */
export function readsOf(meta: EpisodicMeta, r: Rollout, axis: Axis, decisions: Decision[]): Read[] {
  const acts = actionsOf(r);
  const first = acts[decisions[0]?.index ?? -1];
  if (!first) return [];
  const finish = acts.at(-1)?.tool;
  const reads: Read[] = [];
  for (const tool of meta.tools) {
    if (tool.name === axis.tool || tool.name === finish) continue;
    const names = Object.keys(propsOf(meta, tool.name)).filter((n) => n !== axis.arg && n in first.args);
    if ([...requiredOf(meta, tool.name)].every((n) => names.includes(n))) reads.push({ tool: tool.name, names });
  }
  return reads.sort((a, b) => a.names.length - b.names.length).slice(0, LIMIT.reads);
}

/**
 * Sweep logs for one read: the reference up to a group of decisions, each decision sent every value in turn with
 * the read after each try. Decisions are grouped so each log fits the turn limit; a decision that fits no log is
 * left out (its choice stays unknown, so no oracle is judged).
 */
export function sweepLogs(
  r: Rollout,
  axis: Axis,
  decisions: Decision[],
  read: Read,
  maxTurns: number,
  reset?: Read,
): Sweep[] {
  const acts = actionsOf(r);
  const widen = (reset ? 3 : 2) * axis.values.length - 1 - (reset ? 1 : 0);
  const sweeps: Sweep[] = [];
  let group: number[] = [];
  const flush = () => {
    if (group.length === 0) return;
    const mine = new Set(group.map((k) => (decisions[k] as Decision).index));
    const last = (decisions[group.at(-1) as number] as Decision).index;
    const at = new Map<number, number[]>();
    const actions: Action[] = [];
    acts.slice(0, last + 1).forEach((a, i) => {
      if (!mine.has(i)) return void actions.push(a);
      const k = decisions.findIndex((d) => d.index === i);
      at.set(
        k,
        axis.values.map((v, j) => {
          actions.push({ tool: a.tool, args: { ...a.args, [axis.arg]: v } }, readCall(read, a));
          const index = actions.length - 1;
          if (reset && j < axis.values.length - 1) actions.push(readCall(reset, a));
          return index;
        }),
      );
    });
    sweeps.push({ read, ...(reset ? { reset } : {}), actions, at });
    group = [];
  };
  decisions.forEach((d, k) => {
    // The log runs to this decision, with every decision of the group widened by its tries and reads.
    if (d.index + 1 + (group.length + 1) * widen > maxTurns - 1) flush();
    if (d.index + 1 + widen <= maxTurns - 1) group.push(k);
  });
  flush();
  return sweeps.slice(0, LIMIT.sweeps);
}

/**
 * A reply with every value of the axis masked: what stays differs only where the reply reads more than the values'
 * echo.
 */
const maskValues = (text: string, axis: Axis) =>
  axis.values.reduce<string>((t, v) => t.replace(new RegExp(escape(String(v)), 'gi'), '\u00a7'), text);

/**
 * For each decision, the one value whose read reply (axis values masked, numbers kept: a count is the signal)
 * differs while every other value gets one same reply; null where the sweep has no reply for it or the replies
 * single out nothing.
 */
export function sweepChoices(
  axis: Axis,
  decisions: Decision[],
  sweeps: Array<{ sweep: Sweep; observations: string[] | undefined }>,
): Array<Scalar | null> {
  return decisions.map((_, k) => {
    const found = sweeps.find((s) => s.sweep.at.has(k));
    const at = found?.sweep.at.get(k) ?? [];
    return found
      ? singledOut(
          axis,
          at.map((i) => found.observations?.[i]).map((o) => (o === undefined ? null : maskValues(o, axis))),
        )
      : null;
  });
}

/**
 * The retrying policy: each decision tried over the values in order until its choice, the read after every try but the
 * last value (nothing is left to compare), then the rest of the reference.
 */
export function readBackLog(
  r: Rollout,
  axis: Axis,
  decisions: Decision[],
  read: Read,
  choices: Scalar[],
  reset?: Read,
): Action[] {
  const byIndex = new Map(decisions.map((d, k) => [d.index, choices[k] as Scalar]));
  return actionsOf(r).flatMap((a, i) => {
    const choice = byIndex.get(i);
    if (choice === undefined) return [a];
    return axis.values.slice(0, axis.values.indexOf(choice) + 1).flatMap((v, j) => {
      const tried = { tool: a.tool, args: { ...a.args, [axis.arg]: v } };
      if (v === choice) return j === axis.values.length - 1 ? [tried] : [tried, readCall(read, a)];
      return [tried, readCall(read, a), ...(reset ? [readCall(reset, a)] : [])];
    });
  });
}
