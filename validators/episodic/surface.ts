// The call surface the reference leaves unused, as cheap policies: every tool the reference never calls, and
// every (tool, optional argument) pair it never sends, applied to every entity the episode names (at most a
// small cap) with each value the schema or the references suggest, then the finishing call.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, argValues, finished, propsOf, type Action } from './adversaries.js';
import { idValue } from './structure.js';

/** One cheap policy of the unused surface on one episode: its name (the same across episodes) and its log. */
export interface SurfaceLog {
  policy: string;
  actions: Action[];
}

/** What the references use, over every episode: the tools called and the (tool, argument) pairs sent. */
export interface Used {
  tools: ReadonlySet<string>;
  args: ReadonlySet<string>;
  values: Map<string, unknown[]>;
}

export function usedSurface(refs: readonly Rollout[]): Used {
  const acts = refs.flatMap(actionsOf);
  return {
    tools: new Set(acts.map((a) => a.tool)),
    args: new Set(acts.flatMap((a) => Object.keys(a.args).map((k) => `${a.tool}.${k}`))),
    values: argValues([...refs]),
  };
}

/**
 * The entities of an episode for argument `arg`: the values the reference sends in an argument of that name, else every
 * id-like string it sends.
 */
function entitiesOf(r: Rollout, arg: string, cap: number): string[] {
  const acts = actionsOf(r);
  const named = acts.map((a) => a.args[arg]).filter(idValue);
  const any = acts.flatMap((a) => Object.values(a.args)).filter(idValue);
  return [...new Set(named.length > 0 ? named : any)].slice(0, cap);
}

/**
 * The values a policy may send in one argument: an enum's values, a boolean both ways, else what the references send in
 * it.
 */
function valuesOf(used: Used, tool: string, arg: string, schema: { type?: string; enum?: unknown[] }): unknown[] {
  if (Array.isArray(schema.enum)) return schema.enum.slice(0, 6);
  if (schema.type === 'boolean') return [true, false];
  const own = used.values.get(`${tool}.${arg}`) ?? [];
  const same = [...used.values].filter(([k]) => k.endsWith(`.${arg}`)).flatMap(([, v]) => v);
  return [...new Set((own.length ? own : same).map((v) => JSON.stringify(v)))]
    .slice(0, 4)
    .map((s) => JSON.parse(s) as unknown);
}

/**
 * One tool of the unused surface on one episode: the entity argument, the entities, and the assignments of the others.
 */
export interface SurfacePlan {
  tool: string;
  entity: string;
  universe: string[];
  assignments: Array<Record<string, unknown>>;
  unusedTool: boolean;
  /** The arguments `fill` gave the entity kept (named so in a policy, the same across episodes). */
  filled: string[];
}

/**
 * The unused surface of reference `r`, tool by tool: for each tool with an entity argument (a free string), an
 * unused tool with each assignment of its other arguments (one varied at a time from the first values, optional
 * ones absent first), and a used tool with each value of each optional argument the references never send (its
 * other arguments as the references send them). With `fill`, a required free string nobody sends (the ticket a
 * merge goes into) takes the episode's first entity, the one a composed log keeps (surface-compose.ts).
 */
export function surfacePlans(
  meta: EpisodicMeta,
  r: Rollout,
  used: Used,
  entityCap: number,
  fill = false,
): SurfacePlan[] {
  if (!finished(r)) return [];
  const finish = actionsOf(r).at(-1) as Action;
  const out: SurfacePlan[] = [];
  for (const tool of meta.tools) {
    if (tool.name === finish.tool) continue;
    const props = propsOf(meta, tool.name);
    const required = new Set((tool.parameters as { required?: string[] }).required ?? []);
    const unusedTool = !used.tools.has(tool.name);
    const entity = Object.keys(props).find(
      (a) => props[a]?.type === 'string' && !props[a]?.enum && (unusedTool || used.args.has(`${tool.name}.${a}`)),
    );
    if (entity === undefined) continue;
    const universe = entitiesOf(r, entity, Math.min(entityCap, Math.max(1, meta.maxTurns - 2)));
    if (universe.length === 0) continue;
    const others = Object.keys(props).filter((a) => a !== entity);
    const choices = new Map(others.map((a) => [a, valuesOf(used, tool.name, a, props[a] ?? {})]));
    const filled = others.filter(
      (a) => fill && (choices.get(a) ?? []).length === 0 && props[a]?.type === 'string' && !props[a]?.enum,
    );
    for (const a of filled) choices.set(a, [universe[0]]);
    // A required argument with no value to send leaves the tool out; optional ones start absent.
    if (others.some((a) => required.has(a) && (choices.get(a) ?? []).length === 0)) continue;
    const base: Record<string, unknown> = Object.fromEntries(
      others.filter((a) => required.has(a)).map((a) => [a, (choices.get(a) as unknown[])[0]]),
    );
    const varied = others.filter((a) => unusedTool || !used.args.has(`${tool.name}.${a}`));
    const assignments = [
      ...(unusedTool ? [base] : []),
      ...varied.flatMap((a) =>
        (choices.get(a) ?? [])
          .filter((v) => !(a in base) || JSON.stringify(v) !== JSON.stringify(base[a]))
          .map((v) => ({ ...base, [a]: v })),
      ),
    ].slice(0, 6);
    out.push({ tool: tool.name, entity, universe, assignments, unusedTool, filled });
  }
  return out;
}

/**
 * The unused-surface logs of reference `r` (none where it does not end with a finishing call): each assignment of
 * `surfacePlans` applied to every entity of the episode, then the reference's finishing call. At most `perEpisode`.
 */
export function surfaceLogs(
  meta: EpisodicMeta,
  r: Rollout,
  used: Used,
  entityCap: number,
  perEpisode: number,
): SurfaceLog[] {
  if (!finished(r)) return [];
  const finish = actionsOf(r).at(-1) as Action;
  return surfacePlans(meta, r, used, entityCap)
    .flatMap((p) =>
      p.assignments.map((assign) => ({
        policy: `${p.tool} ${JSON.stringify(assign)} on every entity`,
        actions: [...p.universe.map((e) => ({ tool: p.tool, args: { ...assign, [p.entity]: e } })), finish],
      })),
    )
    .slice(0, perEpisode);
}
