// A rule's ablation composed with the plan's free choices (redteam-trust13 X1, X4): the guarded calls' entity ids
// sent in the other spellings a world may accept (case, surrounding spaces), and each state-changing switch the menu
// offers and the reference never plays (a tool that takes no argument) played first.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { requiredOf, type Action } from './adversaries.js';

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
