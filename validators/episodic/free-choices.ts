// A rule's ablation composed with the plan's free choices (redteam-trust13 X1, X4, redteam-trust14 Y7): the guarded
// calls' entity ids sent in the other spellings a world may accept (case, surrounding spaces), each state-changing
// switch the menu offers and the reference never plays (a tool that takes no argument) played first, and each of the
// reference's own state-changing calls that names no entity (a phase change: close the register, end the shift) moved
// to the front: a switch is any call a policy may make earlier than the reference did.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { keyOf, propsOf, requiredOf, type Action } from './adversaries.js';

/** The reference's own switches moved per ablation (a phase change comes late: the latest first, a tool each first). */
export const MOVED_SWITCHES = 4;

/**
 * The ablated log with each kept call's arguments that name an entity the removed step named re-spelled, one log a
 * spelling (nothing where no kept call names such an entity).
 */
export function respelledAblations(removed: Action[], ablated: Action[]): Array<{ how: string; actions: Action[] }> {
  const ids = new Set(
    removed.flatMap((a) => Object.values(a.args).filter((v): v is string => typeof v === 'string' && v.trim() !== '')),
  );
  const names = (a: Action) => Object.values(a.args).some((v) => typeof v === 'string' && ids.has(v));
  if (!ablated.slice(0, -1).some(names)) return [];
  const forms = [
    { how: 'in lower case', to: (s: string) => s.toLowerCase() },
    { how: 'in upper case', to: (s: string) => s.toUpperCase() },
    { how: 'with spaces around', to: (s: string) => ` ${s} ` },
  ];
  const last = ablated.length - 1;
  return forms.flatMap((f) => {
    const actions = ablated.map((a, i) =>
      i < last && names(a)
        ? {
            tool: a.tool,
            args: Object.fromEntries(
              Object.entries(a.args).map(([k, v]) => [k, typeof v === 'string' && ids.has(v) ? f.to(v) : v]),
            ),
          }
        : a,
    );
    const same = actions.every((a, i) => JSON.stringify(a) === JSON.stringify(ablated[i]));
    return same ? [] : [{ how: `the guarded ids ${f.how}`, actions }];
  });
}

/** The menu's tools a call needs no argument for that the reference never plays (its finish aside): the switches. */
export function switchesOf(meta: EpisodicMeta, used: ReadonlySet<string>): string[] {
  return meta.tools.filter((t) => !used.has(t.name) && requiredOf(meta, t.name).size === 0).map((t) => t.name);
}

/** The ablated log with each switch played first, one log a switch. */
export function switchedAblations(switches: string[], ablated: Action[]): Array<{ how: string; actions: Action[] }> {
  return switches.map((tool) => ({ how: `${tool} played first`, actions: [{ tool, args: {} }, ...ablated] }));
}

/** Whether a call names no entity: none of its arguments is a free string (an id, a name); an enum, a flag is none. */
export const namesNoEntity = (meta: EpisodicMeta, a: Action): boolean =>
  Object.entries(a.args).every(([k, v]) => typeof v !== 'string' || propsOf(meta, a.tool)[k]?.enum !== undefined);

/**
 * The reference's calls (`body`, its finish aside) that name no entity and changed its state (`changed`, per call;
 * every call where unknown), distinct, at most MOVED_SWITCHES: each tool's latest call, the latest first, then the
 * others (so calls of one tool played after a switch, a page listed thrice, cannot crowd it out).
 */
export function playedSwitches(meta: EpisodicMeta, body: readonly Action[], changed?: readonly boolean[]): Action[] {
  const latest = body
    .map((a, i) => ({ a, i }))
    .filter(({ a, i }) => (changed?.[i] ?? true) && namesNoEntity(meta, a))
    .reverse()
    .map(({ a }) => a);
  const tools = new Set<string>();
  const first = latest.filter((a) => !tools.has(a.tool) && tools.add(a.tool));
  const out = new Map<string, Action>();
  for (const a of [...first, ...latest]) if (out.size < MOVED_SWITCHES && !out.has(keyOf(a))) out.set(keyOf(a), a);
  return [...out.values()];
}

/**
 * The ablated log with each switch's first call moved to the front, one log a switch (none where the ablation
 * dropped it, or where it is first already). A finish moved there ends the episode early: a low score, no finding.
 */
export function movedAblations(switches: Action[], ablated: Action[]): Array<{ how: string; actions: Action[] }> {
  const last = ablated.length - 1;
  return switches.flatMap((s) => {
    const at = ablated.findIndex((a, i) => i < last && keyOf(a) === keyOf(s));
    if (at <= 0) return [];
    const actions = [ablated[at] as Action, ...ablated.filter((_, i) => i !== at)];
    return [{ how: `${s.tool} moved first`, actions }];
  });
}
