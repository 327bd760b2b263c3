// The settlements a text allows side by side (redteam-s17 F6): "either shipped now or refunded", "refund or store
// credit" name two tools as allowed ways to settle an entity, so a reference that picks one withholds the other by
// choice, not by a rule. The withheld family then adds the other call next to the reference's decision (the plain
// plan), never in its place, unless a text forbids the call somewhere (a prohibition outranks a permission).
import type { Action } from './adversaries.js';
import { namesEntity } from './cheap-plan.js';
import { exemptSteps, forbiddenSteps } from './scoped-rules.js';
import { mentionAt, sentencesOf } from './stated-rules.js';

/** Per tool, the tools a text names as its allowed alternatives; the tools a text forbids anywhere; its exemptions. */
export interface Settlements {
  alternatives: ReadonlyMap<string, ReadonlySet<string>>;
  forbidden: ReadonlySet<string>;
  /** The steps the withheld family leaves untried (scoped-rules.ts exemptSteps). */
  exempt: ReadonlySet<string>;
}

/** "or" joining two steps, not "or not" / "whether or not" (a step made free) nor "nor" (both denied). */
const OR = /\bor\b(?!\s+not\b)/i;
/** Words that break an alternative between two names: a clause's end, an order, a condition. */
const APART = /[.;:!?]|\b(?:before|after|then|first|once|until|unless|if|when)\b/i;

/**
 * The settlements `text` allows (see the module's sentence): two tools a sentence names within a few words of each
 * other, joined by "or" with no order or condition between, neither forbidden by that sentence ("do not ship or
 * refund" denies both); with the text's exemptions beside.
 */
export function settlementsOf(text: string, tools: readonly string[]): Settlements {
  const alternatives = new Map<string, Set<string>>();
  for (const sentence of sentencesOf(text)) {
    const named = tools
      .map((t) => [t, mentionAt(sentence, t)] as const)
      .filter(([, i]) => i >= 0)
      .sort((a, b) => a[1] - b[1]);
    const denied = forbiddenSteps(sentence, tools);
    named.forEach(([t, i], k) => {
      const [u, j] = named[k + 1] ?? [];
      if (u === undefined || j === undefined || denied.has(t) || denied.has(u)) return;
      const between = sentence.slice(i, j).replace(/^[\w'-]+/, '');
      if (!OR.test(between) || APART.test(between) || (between.match(/\S+/g) ?? []).length > 8) return;
      for (const [a, b] of [
        [t, u],
        [u, t],
      ] as const)
        alternatives.set(a, new Set([...(alternatives.get(a) ?? []), b]));
    });
  }
  return { alternatives, forbidden: forbiddenSteps(text, tools), exempt: exemptSteps(text, tools) };
}

/** The calls of `body` naming `entity` by one of `tools`. */
const callsOn = (body: readonly Action[], entity: string, tools: ReadonlySet<string>) =>
  body.filter((a) => tools.has(a.tool) && namesEntity(a, entity)).length;

/**
 * Whether a withheld log (`actions`, adding `tool` on `entity`) replaces the reference's decision on the entity
 * (`body`: its plan) by an allowed alternative: it drops a call of a tool the texts name beside `tool`, and no text
 * forbids `tool`. Such a log is the other allowed settlement, not a rule ignored.
 */
export function replacesAllowed(
  s: Settlements,
  body: readonly Action[],
  l: { tool: string; entity: string; actions: readonly Action[] },
): boolean {
  const others = s.alternatives.get(l.tool);
  if (!others || s.forbidden.has(l.tool)) return false;
  return callsOn(l.actions, l.entity, others) < callsOn(body, l.entity, others);
}
