// A split is a plan over the whole tool menu (redteam-trust11 H4: book at most 7 nights, then extend_stay by the rest):
// an amount the reference sends in one call is cut into parts, one part sent in the call's own tool and the others
// through another tool of the menu (called by the reference or not) that names the same entity and holds an integer.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Bind } from '../../sandbox/protocol.js';
import { filledFrom, propsOf, requiredOf, type Action } from './adversaries.js';
import { bindsOf, issuesOf, shapeOf } from './issued.js';
import { pointOf } from './points.js';
import { splitAmount } from './quantities.js';
import type { Reshaped } from './sequences.js';

/** How many plans over the menu an ablated log gets (defaults: validators/options-episodic.ts). */
export interface MenuOptions {
  /** The most partner tools (and integer arguments of theirs) an amount's parts are sent through. */
  tools: number;
  /** The most plans one log gets. */
  logs: number;
  /** The most parts one amount is cut into (each plan also cut in two). */
  most: number;
}

type NumberSchema = { type?: string; enum?: unknown[]; minimum?: number };
const integerArgs = (meta: EpisodicMeta, tool: string) =>
  Object.entries(propsOf(meta, tool) as Record<string, NumberSchema>).flatMap(([arg, s]) =>
    !s.enum && (s.type === 'integer' || s.type === 'number') ? [{ arg, min: Math.max(1, s.minimum ?? 1) }] : [],
  );

/** A partner of one amount: another tool of the menu, its integer argument, and how its calls are filled. */
interface Partner {
  tool: string;
  arg: string;
  min: number;
  /** The required string argument the amount's own call sends none of: the id that call is answered (or null). */
  needs: string | null;
  /** The partner call for call `a` sent `n` (`issued`: the id for `needs`), or null where it cannot be filled. */
  call(a: Action, n: number, issued: string | null): Action | null;
}

/**
 * Each tool but the amount's own and those in `never` (the guarded step, the finish) with an integer argument that
 * names the entity of `sample` (a call of the amount's tool): a string argument filled by name, or one required string
 * it does not send: the id that call is answered (a booking), else the one entity the call names, under the partner's
 * name for it. A tool the reference calls is a partner too (redteam-trust12 W4: it extends one short stay itself).
 */
function partnersOf(
  meta: EpisodicMeta,
  sample: Action,
  q: string,
  used: ReadonlySet<string>,
  never: ReadonlySet<string>,
  o: MenuOptions,
) {
  const out: Partner[] = [];
  for (const u of meta.tools.filter((t) => t.name !== sample.tool && !never.has(t.name))) {
    const props = propsOf(meta, u.name) as Record<string, { type?: string }>;
    const strings = Object.keys(props).filter((n) => props[n]?.type === 'string');
    const missing = [...requiredOf(meta, u.name)].filter((n) => strings.includes(n) && !(n in sample.args));
    const needs = missing.length === 1 ? (missing[0] as string) : null;
    const named = strings.some((n) => typeof sample.args[n] === 'string');
    if (missing.length > 1 || (!named && !needs)) continue;
    for (const { arg, min } of integerArgs(meta, u.name).sort((x, y) => Number(y.arg === q) - Number(x.arg === q))) {
      const call = (a: Action, n: number, issued: string | null): Action | null => {
        const args = filledFrom(meta, u.name, a, [arg], needs && issued ? { [needs]: issued, [arg]: n } : { [arg]: n });
        return args ? { tool: u.name, args } : null;
      };
      out.push({ tool: u.name, arg, min, needs, call });
    }
  }
  // The partners that name the entity by the call's own argument first, then those that need it under another name;
  // within each, the tools the reference never calls first.
  const rank = (p: Partner) => 2 * Number(p.needs !== null) + Number(used.has(p.tool));
  return out.sort((x, y) => rank(x) - rank(y)).slice(0, o.tools);
}

/** The one string argument of a call that is not a date or time: the entity it names (none or several: null). */
function entityOf(a: Action): string | null {
  const names = Object.values(a.args).filter((v): v is string => typeof v === 'string' && !pointOf(v, false));
  return names.length === 1 ? (names[0] as string) : null;
}

/** The id call `a` was answered that none of its arguments holds: the first token with a digit, not a date or time. */
function issuedIn(a: Action, observation: string | undefined): { value: string; shape: string; nth: number } | null {
  const sent = new Set(Object.values(a.args).map(String));
  for (const token of (observation ?? '').slice(0, 20_000).match(/[A-Za-z0-9][A-Za-z0-9_-]*[A-Za-z0-9]/g) ?? []) {
    if (!/\d/.test(token) || /^\d+$/.test(token) || sent.has(token) || pointOf(token, false)) continue;
    const shape = shapeOf(token);
    const found: string[] = (observation ?? '').slice(0, 20_000).match(new RegExp(shape, 'g')) ?? [];
    const nth = found.indexOf(token);
    return nth >= 0 ? { value: token, shape, nth } : null;
  }
  return null;
}

/**
 * The plans of `log` (its last call the finish; `used` the tools the reference calls, `observations` what each call
 * was answered, `guarded` the step whose calls were removed: never a partner, nor the finish) that cut each amount a
 * tool's calls hold into parts and send the parts but one through a partner tool: the call's own tool first (the
 * partner then adds the rest) or last (the partner opens with the first parts), the amount in two parts and in as many
 * as the turns left allow (at most `o.most`).
 */
export function menuSplits(
  meta: EpisodicMeta,
  log: readonly Action[],
  maxTurns: number,
  used: ReadonlySet<string>,
  o: MenuOptions,
  observations?: readonly (string | undefined)[],
  guarded?: string,
): Reshaped[] {
  const body = log.slice(0, -1);
  const never = new Set([log.at(-1)?.tool, guarded].filter((t): t is string => t !== undefined));
  const issues = issuesOf(log, observations);
  const out: Reshaped[] = [];
  const seen = new Set<string>();
  for (const tool of [...new Set(body.map((a) => a.tool))]) {
    for (const { arg: q, min } of integerArgs(meta, tool)) {
      const at = body.flatMap((a, i) => (a.tool === tool && Number.isInteger(a.args[q]) ? [i] : []));
      if (at.length === 0) continue;
      const room = maxTurns - 1 - log.length;
      const most = Math.min(o.most, 1 + Math.floor(room / at.length));
      for (const p of partnersOf(meta, body[at[0] as number] as Action, q, used, never, o))
        for (const first of [true, false])
          for (const k of [...new Set([2, most])].filter((n) => n >= 2 && n <= most)) {
            const plan = planned(body, at, q, Math.max(min, p.min), p, first, k);
            const key = JSON.stringify(plan.placed);
            if (plan.split && !seen.has(key) && out.length < o.logs) {
              seen.add(key);
              const part = first ? 'the rest' : 'the first';
              const how = `each ${tool}.${q} split into ${k} parts, ${part} through ${p.tool}.${p.arg}`;
              out.push(assembled(how, plan.placed, plan.issuers, log, issues));
            }
          }
    }
  }
  return out;

  /** The body with each call at `at` replaced by its parts (tagged with the call they came from: -1 the partner's). */
  function planned(
    body: readonly Action[],
    at: number[],
    q: string,
    min: number,
    p: Partner,
    first: boolean,
    k: number,
  ) {
    const placed: Array<Array<[number, Action]>> = body.map((a, i) => [[i, a]]);
    const issuers: Array<{ at: number; by: number; id: ReturnType<typeof issuedIn> }> = [];
    let split = false;
    for (const i of at) {
      const a = body[i] as Action;
      const parts = splitAmount(a.args[q] as number, k, true, min);
      const id = p.needs ? issuedIn(a, observations?.[i]) : null;
      // No id answered: the entity the call names, sent under the partner's name for it.
      const entity = p.needs && !id ? entityOf(a) : null;
      // A partner call that needs an id its amount's own call issues can only follow that call.
      if (!parts || (p.needs && !id && !entity) || (id && !first)) continue;
      const own = (n: number): [number, Action] => [i, { tool: a.tool, args: { ...a.args, [q]: n } }];
      const rest = (n: number) => p.call(a, n, id?.value ?? entity);
      const others = (first ? parts.slice(1) : parts.slice(0, -1)).map(rest);
      if (others.some((c) => c === null)) continue;
      const theirs = others.map((c): [number, Action] => [-1, c as Action]);
      placed[i] = first ? [own(parts[0] as number), ...theirs] : [...theirs, own(parts.at(-1) as number)];
      if (id) issuers.push({ at: i, by: i, id });
      split = true;
    }
    return { placed, issuers, split };
  }
}

/** A plan's log from each call's replacements, the issued ids its kept calls and its partner calls use bound. */
function assembled(
  how: string,
  placed: Array<Array<[number, Action]>>,
  issuers: Array<{ at: number; id: ReturnType<typeof issuedIn> }>,
  log: readonly Action[],
  issues: ReturnType<typeof issuesOf>,
): Reshaped {
  const flat: Array<[number, Action]> = [...placed.flat(), [log.length - 1, log.at(-1) as Action]];
  const origins = flat.map(([i]) => i);
  const binds: Bind[] = bindsOf(origins, issues);
  // Each partner call that sends an id its own call was answered: bound to that call's new answer.
  for (const { at, id } of issuers) {
    if (!id) continue;
    const from = origins.indexOf(at);
    for (let j = from + 1; j < flat.length && origins[j] === -1; j++)
      for (const [arg, v] of Object.entries((flat[j] as [number, Action])[1].args))
        if (v === id.value) binds.push({ at: j, arg, value: id.value, from, shape: id.shape, nth: id.nth });
  }
  return { how, actions: flat.map(([, a]) => a), ...(binds.length > 0 ? { binds } : {}) };
}
