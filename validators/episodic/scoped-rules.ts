// The steps a text obliges only within a scope (redteam-trust21 R7, R8): a step a sentence lifts ("cheaper orders
// need no check", "verify_order is not needed for gift cards"), by name or, naming no tool, as the step the sentence
// before stated. Such a step is no prohibition where the reference leaves it out (a call it adds is one the text
// allows) and its ablation is judged over the episodes together (an episode whose scope is empty needs no step). A
// lift is about one step, the one it frees, never the step whose precondition it was; and an exemption never
// outranks a prohibition: a tool a sentence forbids stays tried where the reference withholds it (redteam-s17 F5).
import { liftsAny, liftsIn, normalized, type Lift } from './rule-clauses.js';
import { mentionAt, sentencesOf, statedRules } from './stated-rules.js';

/** "needs no", "requires no": what follows is not needed. */
const NEEDS_NO = /\b(?:needs?|requires?)\s+no\b/gi;

/** The tool of `named` a lift frees in `sentence` (rule-clauses.ts liftsIn: its side), or null where none is there. */
function liftedBy(sentence: string, lift: Lift, named: readonly string[]): string | null {
  const after = named
    .map((t) => [t, mentionAt(sentence.slice(lift.to), t)] as const)
    .filter(([, i]) => i >= 0)
    .sort((a, b) => a[1] - b[1]);
  // The subject: the last tool named before the lift ends (a name inside it too: "no verify_order is required").
  const before = named
    .map((t) => [t, mentionAt(sentence.slice(0, lift.to), t)] as const)
    .filter(([, i]) => i >= 0 && i < lift.to)
    .sort((a, b) => b[1] - a[1]);
  if (lift.side === 'object') return after[0]?.[0] ?? null;
  // "Nothing stops you from refunding before verify_order": the step barred is refund, the barrier verify_order.
  if (lift.side === 'barred') return after[1]?.[0] ?? before[0]?.[0] ?? null;
  return before[0]?.[0] ?? (lift.side === 'itself' ? (after[0]?.[0] ?? null) : null);
}

/** The steps of `tools` that `text` lifts for some of its cases (see the module's sentence). */
export function scopedSteps(text: string, tools: readonly string[]): Set<string> {
  const out = new Set<string>();
  let prev = '';
  for (const sentence of sentencesOf(text)) {
    const named = tools.filter((t) => mentionAt(sentence, t) >= 0);
    for (const lift of liftsIn(sentence)) {
      const t = liftedBy(sentence, lift, named);
      if (t !== null) out.add(t);
    }
    // "needs no X" lifts the step it names right after it ("Gift cards need no verify_order"), not the sentence's
    // other steps ("never drain a server that needs no patch" lifts no drain).
    for (const m of sentence.matchAll(NEEDS_NO))
      for (const t of named)
        if (mentionAt(sentence.slice(m.index + m[0].length, m.index + m[0].length + 40), t) >= 0) out.add(t);
    // A lift naming no tool is about the step the sentence before orders first (not a prohibition it states:
    // "Never refund a gift card; other orders need no approval" lifts no refund).
    if (named.length === 0 && liftsAny(sentence))
      for (const r of statedRules(prev, tools).filter((q) => q.before !== null)) out.add(r.tool);
    prev = sentence;
  }
  return out;
}

/** A negation that forbids the call named within three words after it ("never refund"; not "whether or not X"). */
const FORBIDS = /(?<!\bor\s+)\b(?:never|not|no|cannot|[a-z]+n['\u2019]t)\s+(?:[\w'\u2019$-]+\s+){0,3}?$/i;

/**
 * The tools of `tools` a sentence of `text` forbids on some entities: a negation right before the tool's name, read
 * once lifts are read as permissions (rule-clauses.ts normalized: "do not depend on X" forbids nothing).
 */
export function forbiddenSteps(text: string, tools: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const sentence of sentencesOf(text).map(normalized))
    for (const t of tools) {
      const at = mentionAt(sentence, t);
      if (at >= 0 && FORBIDS.test(sentence.slice(Math.max(0, at - 60), at))) out.add(t);
    }
  return out;
}

/** The steps the withheld family leaves untried: those `text` scopes, less those it forbids (see the module). */
export const exemptSteps = (text: string, tools: readonly string[]): Set<string> => {
  const forbidden = forbiddenSteps(text, tools);
  return new Set([...scopedSteps(text, tools)].filter((t) => !forbidden.has(t)));
};
