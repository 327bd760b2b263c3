// Searched adaptive policies over the whole call surface (issue 28): a decision tried, its reply read, the entity
// put back by any tool the module offers (an undo, a reset, a re-open, a cancel: used by the reference or not)
// and the next value tried; and the calls a policy makes to read what the world says on its error paths (an
// unknown id, an empty string, a wrong type, a missing argument). Pure builders: the checks play and judge them.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, propsOf, requiredOf, type Action } from './adversaries.js';
import { mentions, type Axis, type Decision, type Reading, type Scalar } from './adversaries-values.js';

type Schema = { type?: string; enum?: unknown[]; minLength?: number; pattern?: string };
const LIMIT = { resets: 3, errorCalls: 8 };

/**
 * A call a policy may make between two tries of one decision: the tool and the arguments it takes, by name, from the
 * decision's call.
 */
export interface Reset {
  tool: string;
  names: string[];
}

/**
 * The tools that may put a decided entity back: every tool but the decision's and the finishing one whose
 * required arguments the decision's call fills by name (its entity; never the decided value), no-argument tools
 * among them (a reset of the whole world). Tools that take the entity first, then those the reference never
 * calls (an undo is rarely part of the plan); at most three.
 */
export function resetsOf(meta: EpisodicMeta, r: Rollout, axis: Axis, decisions: Decision[]): Reset[] {
  const acts = actionsOf(r);
  const first = acts[decisions[0]?.index ?? -1];
  if (!first) return [];
  const finish = acts.at(-1)?.tool;
  const used = new Set(acts.map((a) => a.tool));
  const out: Array<Reset & { rank: number }> = [];
  for (const tool of meta.tools) {
    if (tool.name === axis.tool || tool.name === finish) continue;
    const props = Object.keys(propsOf(meta, tool.name));
    const names = props.filter((n) => n !== axis.arg && n in first.args);
    if (![...requiredOf(meta, tool.name)].every((n) => names.includes(n)) || (props.length > 0 && names.length === 0))
      continue;
    out.push({ tool: tool.name, names, rank: (names.length > 0 ? 0 : 2) + (used.has(tool.name) ? 1 : 0) });
  }
  return out
    .sort((a, b) => a.rank - b.rank)
    .slice(0, LIMIT.resets)
    .map(({ tool, names }) => ({ tool, names }));
}

const resetCall = (reset: Reset, decision: Action): Action => ({
  tool: reset.tool,
  args: Object.fromEntries(reset.names.map((n) => [n, decision.args[n]])),
});

/**
 * The undo-and-retry policy: each decision tried over the values in order until the one its reply singled out,
 * `reset` called on the entity after every wrong try, then the rest of the reference (the finish). The turn
 * limit bounds it: a log longer than the episode ends unfinished and earns what that earns.
 */
export function undoRetryLog(r: Rollout, axis: Axis, decisions: Decision[], reset: Reset, choices: Scalar[]): Action[] {
  const byIndex = new Map(decisions.map((d, k) => [d.index, choices[k] as Scalar]));
  return actionsOf(r).flatMap((a, i) => {
    const choice = byIndex.get(i);
    if (choice === undefined) return [a];
    const tries = axis.values.slice(0, axis.values.indexOf(choice) + 1);
    return tries.flatMap((v, j) => {
      const tried = { tool: a.tool, args: { ...a.args, [axis.arg]: v } };
      return j === tries.length - 1 ? [tried] : [tried, resetCall(reset, a)];
    });
  });
}

/** An id shaped like `like` (its digits zeroed, then nines) that names none of `known`. */
export function unknownId(like: string, known: ReadonlySet<string>): string {
  for (const digit of ['0', '9']) {
    const id = /\d/.test(like) ? like.replace(/\d/g, digit) : `${like.slice(0, -1)}${digit}`;
    if (!known.has(id.toLowerCase())) return id;
  }
  return 'X0';
}

/**
 * Calls that name no entity, for every tool but the finishing one: each free-string argument sent an id shaped
 * like the episode's own but unknown, then an empty string (where the schema allows one), the other required
 * arguments as the reference sends them; then, for the first such tool, the argument as a number (a wrong type)
 * and left out (missing), which the host refuses: those go last, so its error limit cuts nothing else. At most
 * `limit` calls. `valid` only: the schema-valid ones (a log that must be played to its end).
 */
export function errorPathCalls(
  meta: EpisodicMeta,
  r: Rollout,
  opts: { limit?: number; valid?: boolean } = {},
): Action[] {
  const acts = actionsOf(r);
  const finish = acts.at(-1)?.tool;
  const strings = acts.flatMap((a) => Object.values(a.args)).filter((v): v is string => typeof v === 'string');
  const known = new Set(strings.map((s) => s.toLowerCase()));
  const like = strings.find((s) => /\d/.test(s) && s.length >= 2) ?? strings[0] ?? 'X0';
  const valid: Action[] = [];
  const refused: Action[] = [];
  for (const tool of meta.tools) {
    if (tool.name === finish) continue;
    const props = propsOf(meta, tool.name) as Record<string, Schema>;
    const required = [...requiredOf(meta, tool.name)];
    const sample = acts.find((a) => a.tool === tool.name)?.args ?? {};
    const base = Object.fromEntries(
      required.flatMap((n) =>
        n in sample ? [[n, sample[n]]] : props[n]?.enum?.length ? [[n, props[n]?.enum?.[0]]] : [],
      ),
    );
    for (const [name, s] of Object.entries(props)) {
      if (s.type !== 'string' || s.enum) continue;
      if (!required.every((n) => n === name || n in base)) break;
      valid.push({
        tool: tool.name,
        args: { ...base, [name]: unknownId(typeof sample[name] === 'string' ? (sample[name] as string) : like, known) },
      });
      if (!s.pattern && !(s.minLength && s.minLength > 0))
        valid.push({ tool: tool.name, args: { ...base, [name]: '' } });
      if (refused.length === 0) {
        refused.push({ tool: tool.name, args: { ...base, [name]: 0 } });
        if (required.includes(name))
          refused.push({ tool: tool.name, args: Object.fromEntries(Object.entries(base).filter(([n]) => n !== name)) });
      }
      break;
    }
  }
  return [...valid, ...(opts.valid ? [] : refused)].slice(0, opts.limit ?? LIMIT.errorCalls);
}

/** The error-path calls as readings about no entity (a listing): a reader takes from their replies what each names. */
export const errorReadings = (meta: EpisodicMeta, r: Rollout, limit: number): Reading[] =>
  errorPathCalls(meta, r, { limit, valid: true }).map((call) => ({ call, about: { listing: true } }));

/**
 * An identifier the world issued (a digit, or two capitals: `TK4821`, `O-17`), not a value the task states ("omar",
 * "12:00" aside).
 */
const issuedId = (v: string) =>
  v.length >= 2 && v.length <= 40 && /^[\w.:-]+$/.test(v) && /\d|[A-Z]{2}/.test(v) && !/^\d+(?:[.:]\d+)?$/.test(v);

/**
 * Whether every decision's entity is one a policy can name without the reference: each id is passed by the
 * reference to another tool under the same name, or is an issued identifier that the prompt or a listing's reply
 * (`seen`) names. A value the prompt states with the decision (type "omar" into a field it names) is no entity:
 * finding that field by trial finds what the task says.
 */
export function entitiesVisible(r: Rollout, axis: Axis, decisions: Decision[], seen: readonly string[]): boolean {
  const acts = actionsOf(r);
  const texts = [r.prompt ?? '', ...seen];
  const read = (name: string, v: string) =>
    acts.some((b) => b.tool !== axis.tool && b.args[name] === v) || (issuedId(v) && texts.some((t) => mentions(t, v)));
  return (
    decisions.length > 0 &&
    decisions.every(
      (d) => Object.keys(d.entity).length > 0 && Object.entries(d.entity).every(([name, v]) => read(name, v)),
    )
  );
}
