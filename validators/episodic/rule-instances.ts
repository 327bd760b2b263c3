// A step the prompt names in more than one rule sentence answers more than one rule: each of its calls is an instance
// of some rule, so a call that matters to no rule is a rule nothing enforces, not a look-up the reference makes beyond
// what one rule covers.
import { sentencesOf, statedRules } from './stated-rules.js';

// A condition joined to another by "or" ("a stay over 7 nights, or a guest under 18, needs ..."): two rules in one.
const EITHER = /,\s*or\s|\bor\s+(?:a|an|any|if|when|whose|where)\b/i;

/** The steps of `tools` that two or more rule sentences of `text` name (a step shared by two rules). */
export function sharedSteps(text: string, tools: readonly string[]): Set<string> {
  const counts = new Map<string, number>();
  for (const sentence of sentencesOf(text))
    for (const rule of statedRules(sentence, tools))
      counts.set(rule.tool, (counts.get(rule.tool) ?? 0) + (EITHER.test(sentence) ? 2 : 1));
  return new Set([...counts].filter(([, n]) => n >= 2).map(([tool]) => tool));
}
