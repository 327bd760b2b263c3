// A decision in no plan (redteam-trust17 R7): a tool the reference never calls is still a decision a policy can make
// on an entity where a rule of the prompt names it and its call changes the state; sharing a path with a decision is
// no rule (redteam-trust18 R2: a waitlist writes the status a booking writes, and waitlisting breaks no rule).
import type { EpisodicMeta } from '../../contract/episodic.js';
import { propsOf, requiredOf, type Action } from './adversaries.js';
import { choicesOf } from './looks.js';
import { statedRules } from './stated-rules.js';
import { seededOrder } from './withheld-choice.js';

/** Unplanned tools probed per episode at most (drawn by the seed), and the withheld entities each probe calls. */
export const UNPLANNED_TOOLS = 4;
export const UNPLANNED_PROBES = 6;

/** The argument of `tool` that takes an entity like `arg`: `arg` itself where required, else its first free string. */
export function unplannedArgOf(meta: EpisodicMeta, tool: string, arg: string): string | null {
  const props = propsOf(meta, tool);
  const required = [...requiredOf(meta, tool)].filter((n) => props[n]?.type === 'string' && !props[n]?.enum);
  return required.includes(arg) ? arg : (required[0] ?? null);
}

/** The tools no call of `body` makes (the finish aside) that take an entity like `arg`: a policy's other decisions. */
export const unplannedTools = (meta: EpisodicMeta, body: readonly Action[], finish: string, arg: string): string[] =>
  meta.tools
    .map((t) => t.name)
    .filter((t) => t !== finish && !body.some((a) => a.tool === t) && unplannedArgOf(meta, t, arg) !== null);

/**
 * The call of unplanned `tool` on `entity` (its argument `arg`): each other required argument as the plan's calls send
 * an argument of that name, else the first value its schema allows, else (free text: a note, a reason) its own name;
 * null where one is none of these (a number of any size).
 */
export function unplannedCall(
  meta: EpisodicMeta,
  tool: string,
  arg: string,
  entity: string,
  body: readonly Action[],
): Action | null {
  const props = propsOf(meta, tool);
  const args: Record<string, unknown> = { [arg]: entity };
  for (const name of requiredOf(meta, tool)) {
    if (name === arg) continue;
    const sent = body.find((a) => name in a.args)?.args[name];
    const value = sent ?? choicesOf(props[name] ?? {})?.[0] ?? (props[name]?.type === 'string' ? name : undefined);
    if (value === undefined) return null;
    args[name] = value;
  }
  return { tool, args };
}

/** A decisive tool's entities as withheld-trials.ts finds them: those shown but never sent (`same`, `others`). */
export interface Withheld {
  tool: string;
  arg: string;
  same: string[];
  others: string[][];
}

/** One unplanned tool of an episode: the decisive tool whose entities it takes, its calls on them and on a sent one. */
export interface Unplanned<C extends Withheld> {
  c: C;
  tool: string;
  arg: string;
  /** Its call on an entity the reference sent `c.tool` (what fills the added calls' other arguments from reads). */
  template: Action;
  /** Its calls on withheld entities, one after another after the plan: whether it decides. */
  probe: Action[];
}

/**
 * The unplanned tools of one episode that a rule of `texts` names (the prompt, the replies: only those can decide:
 * `decidesUnplanned`), at most UNPLANNED_TOOLS drawn from `salt`, each with its probe calls.
 */
export function unplannedOf<C extends Withheld>(
  meta: EpisodicMeta,
  body: readonly Action[],
  finish: string,
  cands: readonly C[],
  salt: string,
  texts: readonly string[],
): Unplanned<C>[] {
  const out = new Map<string, Unplanned<C>>();
  const named = (tool: string) => texts.some((text) => statedRules(text, [tool]).length > 0);
  for (const c of cands)
    for (const tool of unplannedTools(meta, body, finish, c.arg).filter(named)) {
      const arg = unplannedArgOf(meta, tool, c.arg) as string;
      const sent = body.find((a) => a.tool === c.tool)?.args[c.arg];
      const template = typeof sent === 'string' ? unplannedCall(meta, tool, arg, sent, body) : null;
      const entities = [...c.same, ...c.others.flat()].slice(0, UNPLANNED_PROBES);
      const probe = entities.flatMap((e) => unplannedCall(meta, tool, arg, e, body) ?? []);
      if (!out.has(tool) && template && probe.length > 0) out.set(tool, { c, tool, arg, template, probe });
    }
  return seededOrder([...out.values()], (u) => u.tool, salt).slice(0, UNPLANNED_TOOLS);
}

/** What a replay says of the reference's turns: per turn the paths changed, and the turns (from 1) refused. */
interface Changes {
  changes?: readonly (readonly string[])[];
  rejected?: readonly number[];
}

/**
 * Whether an unplanned tool decides: one of its `probe` calls (a tool a rule names: `unplannedOf` offers no other),
 * played from turn `from` of `run`, is accepted and changes the state beyond bookkeeping (`book`).
 */
export function decidesUnplanned(
  probe: readonly Action[],
  run: (Changes & { ok: boolean; turns?: number }) | undefined,
  from: number,
  book: ReadonlySet<string>,
): boolean {
  return probe.some((_, m) => {
    const at = from + m;
    if (!run?.ok || at >= (run.turns ?? 0) || run.rejected?.includes(at + 1)) return false;
    return (run.changes?.[at] ?? []).some((p) => !book.has(p));
  });
}
