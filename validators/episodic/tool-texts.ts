// The texts a policy is shown that may state rules (redteam-trust21 R9): the episode's prompt, the description, each
// tool's description and every text of its parameters' schema (descriptions, titles, nested schemas), a rule binding
// wherever a function-calling model reads it.
import type { EpisodicMeta, Tool } from '../../contract/episodic.js';
import type { Rollout } from '../../sandbox/rollouts.js';

/** The description and title texts of a schema, nested schemas included (depth and count bounded). */
export function schemaTexts(schema: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 6 || out.length >= 64 || schema === null || typeof schema !== 'object') return out;
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if ((key === 'description' || key === 'title') && typeof value === 'string') out.push(value.slice(0, 2_000));
    else if (value !== null && typeof value === 'object') schemaTexts(value, depth + 1, out);
  }
  return out;
}

/** A tool's texts: its description, then its parameters' (each its own line, read as its own sentences). */
export const toolTexts = (tool: Tool): string => [tool.description, ...schemaTexts(tool.parameters)].join('\n');

/** Every text the episode shows that states rules: the prompt, the description, the tools' texts. */
export const textsOf = (meta: EpisodicMeta, r: Rollout): string =>
  [r.prompt ?? '', meta.description, ...meta.tools.map(toolTexts)].join('\n');
