// The opening a learned reader plays on each reference episode before deciding anything: the listings, the reads of
// every entity decided about and near misses of their ids; its replies join the texts the readers fit.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, propsOf, requiredOf, type Action } from './adversaries.js';
import { decisionsOf, type Axis } from './adversaries-values.js';
import { nearMissCalls } from './near-miss.js';

/**
 * The opening a cheap policy plays before deciding anything: every tool without arguments (a listing) once,
 * then each tool whose required arguments the entity of a decision fills (a read of it), for every entity the
 * reference decides about (the finish and the decisions' own tools aside), each followed by the listings again
 * (up to three: a difference they show is a reading of the entity, differential.ts); then the reference's calls
 * that name only entities again, each id a near miss (near-miss.ts). At most `limit` calls.
 */
export function openingLog(meta: EpisodicMeta, r: Rollout, axes: readonly Axis[], limit: number): Action[] {
  const acts = actionsOf(r);
  const finish = acts.at(-1)?.tool;
  const deciding = new Set(axes.map((a) => a.tool));
  const tools = meta.tools.filter((t) => t.name !== finish && !deciding.has(t.name));
  const listings: Action[] = tools
    .filter((t) => Object.keys(t.parameters.properties ?? {}).length === 0)
    .map((t) => ({ tool: t.name, args: {} }));
  const out: Action[] = [...listings];
  const seen = new Set<string>();
  for (const axis of axes) {
    for (const d of decisionsOf(r, axis)) {
      for (const tool of tools) {
        const names = Object.keys(propsOf(meta, tool.name));
        const required = [...requiredOf(meta, tool.name)];
        const args = Object.fromEntries(names.filter((n) => n in d.entity).map((n) => [n, d.entity[n]]));
        const key = tool.name + JSON.stringify(args);
        if (names.length === 0 || Object.keys(args).length === 0 || !required.every((n) => n in args) || seen.has(key))
          continue;
        seen.add(key);
        out.push({ tool: tool.name, args }, ...listings.slice(0, 3));
      }
    }
  }
  return [...out, ...nearMissCalls(acts.slice(0, -1), (tool, arg) => propsOf(meta, tool)[arg]?.maxLength)].slice(
    0,
    limit,
  );
}

/** Replies and the tool that gave each (the opening a reader played on one episode). */
export interface Replies {
  tools: string[];
  observations: string[];
  /** Where each reply is printed, where it is not the tool's plain reply (near-miss.ts `openingSources`). */
  sources?: string[];
  /** Per entity id (lower case), the differential fields of the opening (differential.ts). */
  diffs?: Map<string, string[]>;
}
