// Withheld decisions (redteam-trust12 W3): a decision to leave an entity alone must matter. For a decisive tool, the
// entities the episode shows (the prompt, a listing's reply, the reference's replies) that the reference never sends
// it for, and the reference's plan plus that call before the finish: its other arguments read from the entity's own
// reply where the reference's value stands in its own entity's reply (the k-th token of that shape), or computed from
// it as the reference's from its own (derived.ts), else the reference's. A prohibition ("never book an expired
// passport") is tested by adding the forbidden call, not by removing the allowed ones.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { propsOf, requiredOf, spread, type Action } from './adversaries.js';
import { namesEntity } from './cheap-plan.js';
import { derivedArgs } from './derived.js';
import { piecesOf } from './pieces.js';
import { tokensOf } from './probes.js';
import { shapeOf } from './structure.js';

/** Entities tried per decisive tool and episode, and decisive tools tried per episode (the family's cost). */
export const WITHHELD_ENTITIES = 2;
export const WITHHELD_TOOLS = 2;

/** One added call: the reference's plan, the entity's reads, a call of `tool` on `entity`, the finish. */
export interface WithheldLog {
  tool: string;
  arg: string;
  entity: string;
  call: Action;
  actions: Action[];
  /** The index of the added call in `actions`. */
  at: number;
  /** A gate's: the later call it lets through, right after it, judged in its place (redteam-trust14 Y2). */
  follow?: { call: Action; arg: string };
}

/** The index of the call a withheld log is judged on: the follow-up a gate lets through, else the added call. */
export const judgedAt = (l: WithheldLog): number => (l.follow ? l.at + 1 : l.at);

const lower = (v: unknown) => String(v).toLowerCase();

/**
 * The argument of `tool` that names its entity in the reference's calls (`body`): a string without an enum whose
 * every value a shown text holds as a token; first one that another tool's call (in any of `bodies`) sends with the
 * same value (a read of the entity), else the first in the schema; null where none is shown.
 */
export function entityArgOf(
  meta: EpisodicMeta,
  body: readonly Action[],
  tool: string,
  shown: readonly string[],
  bodies: ReadonlyArray<readonly Action[]> = [body],
): string | null {
  const calls = body.filter((a) => a.tool === tool);
  // A sent value that is no single token is read by the pieces the texts cut it as (pieces.ts: redteam-s18e E3).
  const sent = calls.flatMap((a) => Object.values(a.args).filter((v): v is string => typeof v === 'string'));
  const tokens = new Set(shown.flatMap((t) => [...tokensOf(t), ...piecesOf(t, sent)].map(lower)));
  const props = propsOf(meta, tool);
  const args = Object.keys(props).filter((arg) => {
    const s = props[arg] ?? {};
    const values = calls.map((a) => a.args[arg]);
    return (
      s.type === 'string' &&
      !s.enum &&
      values.length > 0 &&
      values.every((v) => typeof v === 'string' && tokens.has(v.toLowerCase()))
    );
  });
  const read = (arg: string) => {
    const mine = new Set(calls.map((a) => a.args[arg]));
    return bodies.some((b) => b.some((a) => a.tool !== tool && mine.has(a.args[arg])));
  };
  return args.find(read) ?? args[0] ?? null;
}

/**
 * The entities a shown text names beside one the reference sent (`sent`, the values of the entity argument): tokens
 * of a sent value's shape in a text that names a sent value too, never sent themselves, in the order shown.
 */
export function withheldEntities(shown: readonly string[], sent: readonly string[]): string[] {
  const mine = new Set(sent.map(lower));
  const shapes = new Set(sent.map(shapeOf));
  const out: string[] = [];
  for (const text of shown) {
    const pieces = piecesOf(text, sent);
    const tokens = [...tokensOf(text), ...pieces];
    if (!tokens.some((t) => mine.has(t.toLowerCase()))) continue;
    for (const t of tokens)
      if (
        (shapes.has(shapeOf(t)) || pieces.includes(t)) &&
        !mine.has(t.toLowerCase()) &&
        !out.some((o) => lower(o) === t.toLowerCase())
      )
        out.push(t);
  }
  return out;
}

/** The reads of an entity: each tool (not `skip`) whose required arguments the entity argument alone fills. */
export function readsOf(meta: EpisodicMeta, arg: string, entity: string, skip: ReadonlySet<string>): Action[] {
  return meta.tools
    .filter((t) => !skip.has(t.name) && arg in propsOf(meta, t.name))
    .filter((t) => [...requiredOf(meta, t.name)].every((n) => n === arg))
    .slice(0, 2)
    .map((t) => ({ tool: t.name, args: { [arg]: entity } }));
}

/** The tokens of `reply` that may hold a value like `v`: numbers for a number, tokens of its shape for a string. */
export const alike = (reply: string, v: string | number): string[] =>
  tokensOf(reply).filter((t) => (typeof v === 'number' ? Number.isFinite(Number(t)) : shapeOf(t) === shapeOf(v)));
/** Whether token `t` spells value `v` (a number by its value: "42.50" spells 42.5). */
export const spells = (t: string, v: string | number) => (typeof v === 'number' ? Number(t) === v : t === v);

/**
 * The call of `template`'s tool on `entity`: each other argument copied from the entity's replies (`theirs`) at the
 * place the template's value stands in its own entity's replies (`mine`: the k-th number, or token of its shape), as
 * the template's type; else a number computed from them as the template's from its own (`derived.ts`: the nights from
 * two dates, a total from the nights at a rate); else the template's value.
 */
export function filledCall(
  meta: EpisodicMeta,
  template: Action,
  arg: string,
  entity: string,
  mine: readonly string[],
  theirs: readonly string[],
): Action {
  const props = propsOf(meta, template.tool);
  const args: Record<string, unknown> = { ...template.args, [arg]: entity };
  const open = new Set<string>();
  for (const [name, v] of Object.entries(template.args)) {
    if (name === arg || (typeof v !== 'string' && typeof v !== 'number') || props[name]?.enum) continue;
    open.add(name);
    const k = mine.findIndex((reply) => alike(reply, v).some((t) => spells(t, v)));
    if (k < 0 || theirs[k] === undefined) continue;
    const copy = alike(theirs[k] as string, v)[alike(mine[k] as string, v).findIndex((t) => spells(t, v))];
    if (copy !== undefined) args[name] = typeof v === 'number' ? Number(copy) : copy;
    if (copy !== undefined) open.delete(name);
  }
  // A number the entity's replies do not spell may be computed from them (redteam-trust17 R4: nights from two dates).
  if (theirs.length > 0) derivedArgs(template.args, args, open, mine, theirs, (n) => props[n]?.type === 'integer');
  return { tool: template.tool, args };
}

/** The entities to try for `tool` in one episode: at most WITHHELD_ENTITIES, spread over those shown. */
export const entitiesToTry = (shown: readonly string[], sent: readonly string[]): string[] =>
  spread(withheldEntities(shown, sent), WITHHELD_ENTITIES);

/**
 * The plan `body` with its first call of `tool` removed, where a later call of it remains: the probe of a route
 * (`reliesOnItself`). Null where the tool is called once.
 */
export function withoutFirstCall(body: readonly Action[], tool: string): Action[] | null {
  const first = body.findIndex((a) => a.tool === tool);
  return body.some((a, j) => j > first && a.tool === tool) ? body.filter((_, j) => j !== first) : null;
}

/** What a replay says of its turns: the turns (from 1) refused, and per turn the paths changed. */
export interface TurnsRun {
  turns: number;
  rejected: readonly number[];
  changes?: readonly (readonly string[])[];
}

/** Whether turn `j` (from 0) of a run was played, not refused, and changed the state. */
export const changedAt = (r: TurnsRun, j: number): boolean =>
  j >= 0 && j < r.turns && !r.rejected.includes(j + 1) && (r.changes?.[j]?.length ?? 0) > 0;

/**
 * Whether `tool` is a route in plan `body`: with its first call removed (`without`, the replay of
 * `withoutFirstCall`), a later call of it that changed the state in the reference (`reference`) is refused, changes
 * nothing, or is never played. Each step of a walk starts where the last one ended, so a route's added call cannot
 * go just anywhere: `placesOnRoute` says where it is tried. A decision per entity (a refund, a booking) holds without
 * the one made before it.
 */
export function reliesOnItself(body: readonly Action[], tool: string, reference: TurnsRun, without: TurnsRun): boolean {
  const first = body.findIndex((a) => a.tool === tool);
  return body.some((a, j) => j > first && a.tool === tool && changedAt(reference, j) && !changedAt(without, j - 1));
}

/** Places tried per route's added call: the reference's turns it may go right before (redteam-trust15 Z6, Z7). */
export const ROUTE_PLACES = 6;

/**
 * The places a route's added call on `entity` is tried at in plan `body` (redteam-trust14 Y8, redteam-trust15 Z6, Z7):
 * right before each of the reference's calls that decide (`decides`: a decisive tool's call that changed the state),
 * argument-free ones included (a turn-away of whoever is at the head), those naming the entity first (where the
 * reference decided about it), then the others in plan order; at most ROUTE_PLACES. Which one is the call's place
 * the world says (the first that accepts it: `withheld-routes.ts`), never the reference's text: a read names an entity
 * long before the walk reaches it, and a call that names nobody may be its decision.
 */
export function placesOnRoute(body: readonly Action[], entity: string, decides: (j: number) => boolean): number[] {
  const at = body.flatMap((_, j) => (decides(j) ? [j] : []));
  const naming = at.filter((j) => namesEntity(body[j] as Action, entity));
  return [...naming, ...at.filter((j) => !naming.includes(j))].slice(0, ROUTE_PLACES);
}

/**
 * Whether a route's added call on `entity` may also stand in for the reference's call `at` its place (its turn taken,
 * the reference's decision there replaced): a call on the same entity, or one that names nobody (a turn-away of the
 * head, a `next`), so the walk after it does not spend a turn the added call already took.
 */
export const takesTurnOf = (at: Action, entity: string): boolean =>
  namesEntity(at, entity) || Object.values(at.args).every((v) => typeof v !== 'string');

/**
 * The plans an added call on `entity` goes into at `place` of `body`: the plan, and on a route (`route`) where the
 * call takes the turn of the reference's call there (`takesTurnOf`), the plan without that call too.
 */
export const plansAt = (body: readonly Action[], place: number, entity: string, route: boolean): Action[][] =>
  route && place < body.length && takesTurnOf(body[place] as Action, entity)
    ? [[...body], body.filter((_, j) => j !== place)]
    : [[...body]];

/**
 * The earliest place of a plan where `entity` is known: 0 where the prompt or a look callable first (`opening`: the
 * replies of the listings played before the plan) names it, else just after the first call of the reference whose
 * reply names it, else 0.
 */
export function knownAt(ref: Rollout, entity: string, opening: readonly string[] = []): number {
  const names = (text: string | null | undefined) =>
    [...tokensOf(text ?? ''), ...piecesOf(text ?? '', [entity])].some((t) => lower(t) === lower(entity));
  const j = names(ref.prompt) || opening.some(names) ? -1 : (ref.observations ?? []).findIndex(names);
  return j + 1;
}

/**
 * Where an added call on `entity` also goes (redteam-trust20 T7, redteam-trust21 R6): where the entity is first known
 * (`knownAt`), when that is before `place`, so a refusal the allowed calls bring about later is no evidence for the
 * rule. The plan's later calls on the entity are left out there: one may replace the added call (an honest decision
 * made twice), and a read of it must not keep the early place from being tried. Null where there is no earlier place.
 */
export function knownLog(
  ref: Rollout,
  plan: readonly Action[],
  entity: string,
  opening: readonly string[],
  place: number,
): { plan: Action[]; at: number } | null {
  const at = knownAt(ref, entity, opening);
  if (at >= place) return null;
  return { plan: [...plan.slice(0, at), ...plan.slice(at).filter((a) => !namesEntity(a, entity))], at };
}

/** The log of a plan with `calls` (the reads, the added call, its follow-up) at `place`, then the finish. */
export const withCallsAt = (plan: readonly Action[], place: number, calls: readonly Action[], finish: Action) => [
  ...plan.slice(0, place),
  ...calls,
  ...plan.slice(place),
  finish,
];

/** Whether two logs make the same calls (a plan without a call and a cheap plan may meet: played once). */
export const sameLog = (a: readonly Action[], b: readonly Action[]): boolean => JSON.stringify(a) === JSON.stringify(b);

/** What `run` says of its turns after its first `n` (calls put ahead of a plan: the listings). */
export const afterLead = (run: TurnsRun, n: number): TurnsRun => ({
  turns: run.turns - n,
  rejected: run.rejected.filter((t) => t > n).map((t) => t - n),
  ...(run.changes ? { changes: run.changes.slice(n) } : {}),
});
