// Gates and decisions by effect (redteam-trust14 Y2): the plan with a tool's calls made to name no entity (refused,
// every turn kept, so the turns' draws stay the same) says whether the tool decides the score by what it does, and
// whether it is a gate: a later call of another tool on the same entity that changed the state is then refused or
// ineffective (an approval a booking needs, a booking a confirmation needs). A later call that merely names the
// entity (a receipt, a read after the write) makes no gate. A gate's added call is probed with what it lets through;
// any other step's alone (redteam-trust16 Q9: a follow-up refused or costing the score says nothing about the step).
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { RolloutResult } from '../../sandbox/rollouts.js';
import { propsOf, type Action } from './adversaries.js';
import { callsOn, changedAt, type OnEntity } from './entity-calls.js';
import { NO_SUCH } from './neutral.js';
import { maskSent, sentOf, sentPattern } from './sent-mask.js';
import type { TurnsRun } from './withheld.js';

/** A step in a plan: its call (the added call's template) and the later call it lets through. */
export interface Step {
  gate: Action;
  follow: Action;
  /** The argument of `follow` that names the step's entity. */
  followArg: string;
  /** Whether `follow` needs the step (a gate: refused or ineffective without it). */
  needed: boolean;
  /** The tools whose calls follow the step on its entities and change the state. */
  tools: ReadonlySet<string>;
}

/** The id no world has, fitted to the length `arg` of `tool` allows (so the host does not reject the call). */
export function nobodyFor(meta: EpisodicMeta, tool: string, arg: string): string {
  const s = propsOf(meta, tool)[arg] as { minLength?: number; maxLength?: number } | undefined;
  return NO_SUCH.slice(0, s?.maxLength ?? NO_SUCH.length).padEnd(s?.minLength ?? 0, '0');
}

/** Plan `body` with the calls `pick` chooses naming `nobody` as their entity (`arg`): their effect taken out. */
const neutralWhere = (body: readonly Action[], arg: string, nobody: string, pick: (a: Action, j: number) => boolean) =>
  body.map((a, j) => (pick(a, j) ? { tool: a.tool, args: { ...a.args, [arg]: nobody } } : a));

/** Plan `body` with every call of `tool` naming `nobody` as its entity (`arg`): the tool's effect taken out. */
export const neutralized = (body: readonly Action[], tool: string, arg: string, nobody: string): Action[] =>
  neutralWhere(body, arg, nobody, (a) => a.tool === tool);

/** Whether turn `j` (from 0) of a run was played, not refused, and changed the state (entity-calls.ts changedAt). */
const changed = (r: TurnsRun, j: number) => j >= 0 && changedAt(r, j);

/** Whether turn `j` of a run was played, not refused, and changed a path beyond bookkeeping (`book`). */
const changedBeyond = (r: TurnsRun, j: number, book: ReadonlySet<string>) =>
  changed(r, j) && (r.changes?.[j] ?? []).some((p) => !book.has(p));

/**
 * Whether the neutralized calls of `tool` in a run of `neutralized(body, …)` all changed nothing (were refused), or
 * nothing beyond the bookkeeping paths `book` (a log every call appends to).
 */
export const tookOut = (body: readonly Action[], tool: string, run: TurnsRun, book?: ReadonlySet<string>): boolean =>
  body.every((a, j) => a.tool !== tool || !(book ? changedBeyond(run, j, book) : changed(run, j)));

/** The paths turn `j` of a run changed beyond bookkeeping (`book`), sorted; none where it was refused. */
const pathsBeyond = (r: TurnsRun, j: number, book: ReadonlySet<string>): string =>
  changed(r, j) ? [...new Set((r.changes?.[j] ?? []).filter((p) => !book.has(p)))].sort().join('\n') : '';

/** Plan `body` with every call of `tool` on entity `e` (its `arg`) naming `nobody`: its effect on `e` alone out. */
export const neutralizedOn = (
  body: readonly Action[],
  tool: string,
  arg: string,
  e: string,
  nobody: string,
): Action[] => neutralWhere(body, arg, nobody, (a) => a.tool === tool && a.args[arg] === e);

/** An entity a step may let a later call through on, and the plan's calls on it (`callsOn`). */
export interface Through extends OnEntity {
  entity: string;
}

/**
 * A follow-up call's trace as text, its tool first: its reply and the paths it changed, with every value the plan
 * sends (the entities, the ids a reply issued and a later call quotes, the dates) and every number masked, so only the
 * world's own words stay.
 */
const followTrace = (sent: RegExp, tool: string | undefined, reply: string | undefined, paths?: readonly string[]) =>
  `${tool ?? ''}\n${maskSent(`${reply ?? ''}\n${(paths ?? []).join(' ')}`, sent)}`;

/** The most trace classes of a step's entities replayed with the step on one of them out (a rollout each). */
export const THROUGH_CLASSES = 3;

/**
 * One entity of each trace class among `tool`'s entities (its `arg`) in plan `body` that a later call of another tool
 * on it (`callsOn`: its id, or an id a call on it issued) follows and that changed the state beyond bookkeeping
 * (`book`) in the reference: where the step may let something through on the entity (redteam-trust18 R3). A class is
 * the later calls' tools and traces (masked as `decidedWithout` reads them): what a step lets through is the entity's,
 * not the tool's (redteam-trust20 T4: a member's notice needs the booking for its points, a non-member's reads alike
 * without it), so each class is asked on its own. At most THROUGH_CLASSES, in plan order; a class beyond skips nobody.
 */
export function throughEntities(
  body: readonly Action[],
  tool: string,
  arg: string,
  reference: TurnsRun,
  replies: readonly string[],
  prompt: string,
  book: ReadonlySet<string>,
): Through[] {
  const sent = sentPattern(body.flatMap((a) => sentOf(a.args)));
  const named = body.flatMap((a) => (a.tool === tool && typeof a.args[arg] === 'string' ? [a.args[arg]] : []));
  const classes = new Map<string, Through>();
  for (const entity of new Set(named as string[])) {
    const calls = callsOn(body, entity, reference, replies, prompt);
    const first = body.findIndex((a) => a.tool === tool && a.args[arg] === entity);
    const later = calls.on.filter((k) => k > first && body[k]?.tool !== tool && changed(reference, k));
    if (!later.some((k) => changedBeyond(reference, k, book))) continue;
    const key = later.map((k) => followTrace(sent, body[k]?.tool, replies[k], reference.changes?.[k])).join('\n');
    if (!classes.has(key)) classes.set(key, { entity, ...calls });
  }
  return [...classes.values()].slice(0, THROUGH_CLASSES);
}

/** The first entity `throughEntities` finds, null where none (the first class's). */
export const throughEntity = (...a: Parameters<typeof throughEntities>): Through | null =>
  throughEntities(...a)[0] ?? null;

/**
 * The tools `tool` lets through on the entity of `through` in plan `body` (its `arg`), none where it lets nothing
 * through: a later call of another tool on that entity (`through.on`) that changed the state beyond bookkeeping
 * (`book`) in the reference does otherwise in `without`, a replay of the plan with the tool's calls on that entity
 * alone neutralized (`neutralizedOn`, the rest of the plan kept, every such call refused or changing only
 * bookkeeping): it is refused, changes only bookkeeping, or changes other paths (a refund paid without the approval
 * also counts a violation: redteam-trust4 honest-split-refund). The later call is on the entity by its id or an id a
 * call on it issued (a check-out by the stay id a check-in answered: redteam-trust11 honest-letter-stay-id; the
 * check-in, its issuer, counts as let through too). Only such a step can show an entity decided without it, and only
 * by those tools (redteam-trust17 R1: a notice that writes the same record with or without the booking is let through
 * by nothing); a call that needs the step somewhere, not on the entity (a tally of the day's bookings, a close reading
 * a counter every booking bumps, a report of every entity: redteam-trust18 R3), lets nothing through.
 */
export function letsThrough(
  body: readonly Action[],
  tool: string,
  arg: string,
  through: Through,
  reference: TurnsRun,
  without: TurnsRun,
  book: ReadonlySet<string>,
): Set<string> {
  const mine = (a: Action) => a.tool === tool && a.args[arg] === through.entity;
  if (body.some((a, j) => mine(a) && changedBeyond(without, j, book))) return new Set();
  const first = body.findIndex(mine);
  const passed = through.on.filter(
    (k) =>
      k > first &&
      body[k]?.tool !== tool &&
      changedBeyond(reference, k, book) &&
      pathsBeyond(without, k, book) !== pathsBeyond(reference, k, book),
  );
  // Each passed call's chain of issuers back to the entity (a check-in that answered the stay id checked out).
  const chain = (k: number): number[] => {
    const i = through.issuers.get(k);
    return i === undefined ? [k] : [k, ...chain(i)];
  };
  const tools = passed.flatMap(chain).flatMap((k) => (k > first && body[k]?.tool !== tool ? [body[k]?.tool] : []));
  return new Set(tools as string[]);
}

/** Plan `body` with call `index` alone naming `nobody` as its entity (`arg`): that call's effect taken out. */
export const neutralizedAt = (body: readonly Action[], index: number, arg: string, nobody: string): Action[] =>
  neutralWhere(body, arg, nobody, (_, j) => j === index);

/** The indices of the calls of `tool` in plan `body`. */
export const callsOf = (body: readonly Action[], tool: string): number[] =>
  body.flatMap((a, j) => (a.tool === tool ? [j] : []));

/**
 * Whether the calls at `calls` decide the score by their own effect: the plan with them neutralized at their turns
 * (`without`, a replay of `neutralized` or `neutralizedAt`, with its changes) earns less than `score`. Undefined where
 * the replay did not take their effect out (one still changed the state): it says nothing then.
 */
export function decidesByEffect(
  calls: readonly number[],
  score: number,
  without: RolloutResult | undefined,
): boolean | undefined {
  if (without?.ok !== true || calls.some((j) => changed(without, j))) return undefined;
  return without.score < score - 1e-9;
}

/**
 * The calls of other tools that follow a call of `tool` on the same entity (its `arg`) in plan `body`: the candidates a
 * gate may let through, as [the gate call's index, the later call's index, the later call's argument naming it].
 */
export function followersOf(body: readonly Action[], tool: string, arg: string): Array<[number, number, string]> {
  return body.flatMap((a, i) => {
    const e = a.args[arg];
    if (a.tool !== tool || typeof e !== 'string') return [];
    return body.flatMap((b, j): Array<[number, number, string]> => {
      if (j <= i || b.tool === tool) return [];
      const name = Object.keys(b.args).find((k) => b.args[k] === e);
      return name === undefined ? [] : [[i, j, name]];
    });
  });
}

/**
 * The step `tool` is in plan `body` (a call a later decision on the same entity follows: an approval, a booking then
 * confirmed): the later calls of other tools on a call's entity that changed the state in the reference (`reference`,
 * a replay of the plan); a follow-up that merely names the entity and changes nothing (a read after the write) makes
 * no step. The call it lets through is the first that, with the tool's calls neutralized (`without`, the same turns),
 * is refused or changes nothing (a gate), else the first. Null where none follows (a decision of its own).
 */
export function stepOf(
  body: readonly Action[],
  tool: string,
  arg: string,
  reference: TurnsRun,
  without: TurnsRun | undefined,
): Step | null {
  const after = followersOf(body, tool, arg).filter(([, j]) => changed(reference, j));
  const [i, j, followArg] = after.find(([, j]) => without !== undefined && !changed(without, j)) ?? after[0] ?? [];
  if (i === undefined || j === undefined || followArg === undefined) return null;
  const gate = without !== undefined && !changed(without, j);
  return {
    gate: body[i] as Action,
    follow: body[j] as Action,
    followArg,
    needed: gate,
    tools: new Set(after.map(([, k]) => (body[k] as Action).tool)),
  };
}

/**
 * What a step's added call goes in with (redteam-trust16 Q9): a gate's follow-up, the call it lets through; any other
 * step's added call goes alone, since its follow-up, refused or costing the score on the entity, is not the step's.
 */
export const followOf = (step: Step | null): { call: Action; arg: string } | undefined =>
  step?.needed ? { call: step.follow, arg: step.followArg } : undefined;

/**
 * The entities a step is no decision for (redteam-trust16 Q2): those on which a call of a tool it comes before
 * (`step.tools`) did in the reference (`reference`, `replies`) what that tool does after the step, without it (an
 * approval a short stay never needed: booked alike). Judged by effect, the trace masked, never by the tool's name: a
 * follow-up that served the entity otherwise (a notice of regret where others got their booking's) leaves it tried.
 * Only a gate can show it (redteam-trust17 R1), and only on the entities it gates: a follow-up counts only where the
 * step lets that tool through on the follow-up's own entity (`step.lets`, `letsThrough` of each trace class:
 * redteam-trust20 T4, a non-member's notice reads alike with or without the booking, so one like it says nothing of
 * the step, though a member's needs it). Where nothing needs the step, it skips nobody.
 */
export function decidedWithout(
  body: readonly Action[],
  step: Pick<Step, 'tools'> & { tool: string; arg: string; lets: ReadonlyMap<string, ReadonlySet<string>> },
  reference: TurnsRun,
  replies: readonly string[],
  entities: readonly string[],
): string[] {
  // The same mask on both traces keeps it fair: every value the plan sends, whichever call sent it.
  const sent = sentPattern(body.flatMap((a) => sentOf(a.args)));
  const trace = (j: number) => followTrace(sent, body[j]?.tool, replies[j], reference.changes?.[j]);
  const gated = ([i, j]: [number, number, string]) =>
    step.lets.get(String(body[i]?.args[step.arg]))?.has(String(body[j]?.tool)) === true;
  const asAfter = new Set(
    followersOf(body, step.tool, step.arg)
      .filter(([, j]) => changed(reference, j))
      .filter(gated)
      .map(([, j]) => trace(j)),
  );
  if (asAfter.size === 0) return [];
  const names = (a: Action, e: string) =>
    Object.values(a.args).some((v) => String(v).toLowerCase() === e.toLowerCase());
  return entities.filter((e) =>
    body.some((a, j) => step.tools.has(a.tool) && names(a, e) && changed(reference, j) && asAfter.has(trace(j))),
  );
}
