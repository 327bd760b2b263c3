// Cuts of the reference ended the trainers' way (FINDINGS-rt4 R15): a prefix of the plan, or the plan without
// one tool's calls, followed by a reply with no tool call instead of the finishing call; with value transfers
// between entities (R10): a numeric decision moved from one entity to another, the total kept.
import type { EpisodicMeta } from '../../contract/episodic.js';
import { actionsOf, keyOf, spread, type Action } from './adversaries.js';
import type { Rollout } from '../../sandbox/rollouts.js';

/** One adversary log and the tools whose calls it leaves out (judged only where one of them decides the score). */
export interface Cut {
  actions: Action[];
  needs: string[];
}

/** The tools of `body.slice(k)` whose calls are not already made (with the same arguments) before `k`. */
export function leftOut(body: Action[], k: number): string[] {
  const kept = new Set(body.slice(0, k).map(keyOf));
  return [
    ...new Set(
      body
        .slice(k)
        .filter((a) => !kept.has(keyOf(a)))
        .map((a) => a.tool),
    ),
  ];
}

/**
 * Logs that stop without the finishing call (the policy replies with no tool call): prefixes cut before and
 * just after the first call of each tool and at a spread of other points, and the plan without each tool.
 * The full plan minus the finish is the fixed `incomplete` probe already, so it is not repeated.
 */
export function stopCuts(r: Rollout): Cut[] {
  const body = actionsOf(r).slice(0, -1);
  const tools = [...new Set(body.map((a) => a.tool))];
  const firsts = tools.flatMap((t) => [body.findIndex((a) => a.tool === t), body.findIndex((a) => a.tool === t) + 1]);
  const cuts = [...new Set([...firsts, ...spread([...body.keys()], 6)])]
    .filter((k) => k >= 0 && k < body.length)
    .sort((a, b) => a - b);
  const out: Cut[] = cuts.map((k) => ({ actions: body.slice(0, k), needs: leftOut(body, k) }));
  if (tools.length > 1)
    for (const tool of tools) out.push({ actions: body.filter((a) => a.tool !== tool), needs: [tool] });
  return out;
}

type NumberSchema = { type?: string; enum?: unknown[]; maximum?: number };

/**
 * Transfers of a numeric decision between entities: for each numeric argument of `tool` that the reference sets
 * on two or more calls naming different entities, the amount of one call added to another's, the first call
 * then sent 0 or left out. A checker of each entity pays less; one that reconciles only the total does not.
 */
export function transferLogs(meta: EpisodicMeta, r: Rollout, tool: string): Action[][] {
  const acts = actionsOf(r);
  const finish = acts.at(-1) as Action;
  const body = acts.slice(0, -1);
  const props = (meta.tools.find((t) => t.name === tool)?.parameters.properties ?? {}) as Record<string, NumberSchema>;
  const at = body.flatMap((a, i) => (a.tool === tool ? [i] : []));
  const logs: Action[][] = [];
  for (const arg of Object.keys(props)) {
    const s = props[arg] ?? {};
    if (s.enum || (s.type !== 'number' && s.type !== 'integer')) continue;
    const calls = at.filter((i) => typeof (body[i] as Action).args[arg] === 'number');
    const other = (i: number) => JSON.stringify({ ...(body[i] as Action).args, [arg]: null });
    if (calls.length < 2 || new Set(calls.map(other)).size < 2) continue;
    const pairs: Array<[number, number]> = [
      [calls[0] as number, calls[1] as number],
      [calls.at(-1) as number, calls[0] as number],
    ];
    for (const [from, to] of pairs) {
      const a = (body[from] as Action).args[arg] as number;
      const b = (body[to] as Action).args[arg] as number;
      const sum = Math.round((a + b) * 100) / 100;
      if (from === to || other(from) === other(to) || a === 0 || (s.maximum !== undefined && sum > s.maximum)) continue;
      const moved = body.map((c, i) =>
        i === to ? { tool, args: { ...c.args, [arg]: sum } } : i === from ? { tool, args: { ...c.args, [arg]: 0 } } : c,
      );
      logs.push([...moved, finish], [...moved.filter((_, i) => i !== from), finish]);
    }
    if (logs.length > 0) break; // one numeric argument per tool: the first the reference sets on several entities
  }
  return logs;
}
