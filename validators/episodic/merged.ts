// A rule may bind a call's value, not only its presence (redteam-s18e E5): where the reference sends one entity the
// same tool several times, differing only in a number, and a number a text about the tool states lies between the
// largest part and their sum (a cap per call), the log with those calls merged into one (the sum, once) is an
// ablation of its own.
import type { EpisodicMeta } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';
import { actionsOf, type Action } from './adversaries.js';
import { tokensOf } from './probes.js';
import { mentionAt, sentencesOf } from './stated-rules.js';
import { toolTexts } from './tool-texts.js';

/** A merged log: the tool whose calls were merged, the sentence stating the number they pass, the log (finish last). */
export interface MergedLog {
  tool: string;
  sentence: string;
  actions: Action[];
}

/**
 * The reference's log with each tool's calls merged past a number stated about that tool: in a sentence of the prompt
 * or the description that names it, or in its own texts (its description, its parameters').
 */
export function mergedLogs(meta: EpisodicMeta, r: Rollout, tools: readonly string[]): MergedLog[] {
  const acts = actionsOf(r);
  const told = sentencesOf(`${r.prompt ?? ''}\n${meta.description}`);
  return tools.flatMap((tool) => {
    const own = meta.tools.find((t) => t.name === tool);
    const text = [...told.filter((x) => mentionAt(x, tool) >= 0), ...(own ? [toolTexts(own)] : [])].join('\n');
    const merged = mergedCalls(acts.slice(0, -1), tool, text);
    return merged ? [{ tool, sentence: merged.sentence, actions: [...merged.actions, acts.at(-1) as Action] }] : [];
  });
}

/**
 * `body` with the calls of `tool` on each entity merged (at the first, the sum of the one argument they differ in)
 * where some number of `text` is at least each part and less than the sum, and the sentence stating that number; null
 * where no group is merged.
 */
export function mergedCalls(
  body: readonly Action[],
  tool: string,
  text: string,
): { actions: Action[]; sentence: string } | null {
  const sentences = sentencesOf(text);
  const numbersOf = (t: string) =>
    tokensOf(t)
      .map(Number)
      .filter((n) => Number.isFinite(n));
  const stated = numbersOf(text);
  let sentence = '';
  const groups = new Map<string, number[]>();
  body.forEach((a, i) => {
    if (a.tool !== tool) return;
    const rest = Object.entries(a.args).filter(([, v]) => typeof v !== 'number');
    const key = JSON.stringify([rest, Object.keys(a.args).sort()]);
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  const drop = new Set<number>();
  const out = [...body];
  for (const at of groups.values()) {
    if (at.length < 2) continue;
    const calls = at.map((i) => body[i] as Action);
    const varying = Object.keys(calls[0]?.args ?? {}).filter(
      (n) => typeof calls[0]?.args[n] === 'number' && calls.some((c) => c.args[n] !== calls[0]?.args[n]),
    );
    const numeric = Object.keys(calls[0]?.args ?? {}).filter((n) => typeof calls[0]?.args[n] === 'number');
    // One number carries the parts (the others, a unit or a rate, the same on every call).
    const arg = varying.length === 1 ? varying[0] : numeric.length === 1 ? numeric[0] : undefined;
    if (arg === undefined || calls.some((c) => numeric.some((n) => n !== arg && c.args[n] !== calls[0]?.args[n])))
      continue;
    const parts = calls.map((c) => c.args[arg] as number);
    const sum = parts.reduce((s, x) => s + x, 0);
    const cap = stated.find((n) => n >= Math.max(...parts) && n < sum);
    if (cap === undefined) continue;
    sentence ||= sentences.find((x) => numbersOf(x).includes(cap)) ?? '';
    out[at[0] as number] = { tool, args: { ...(calls[0] as Action).args, [arg]: sum } };
    for (const i of at.slice(1)) drop.add(i);
  }
  return drop.size === 0 ? null : { actions: out.filter((_, i) => !drop.has(i)), sentence };
}
