// A made-up episodic module's metadata for the reshaping tests: calls, tools by their argument schemas, the meta.
import type { EpisodicMeta } from '../../contract/episodic.js';

/** A call of `tool` with `args`. */
export const A = (tool: string, args: Record<string, unknown> = {}) => ({ tool, args });

/** A tool whose arguments are `properties`, described by its name. */
export const tool = (name: string, properties: Record<string, unknown>) => ({
  name,
  description: name,
  parameters: { type: 'object', properties, additionalProperties: false },
});

/** One level's metadata over `tools`, 40 turns. */
export const metaWith = (tools: ReturnType<typeof tool>[]): EpisodicMeta =>
  ({
    name: 'm',
    title: 'm',
    description: 'm',
    skills: [],
    levels: 1,
    kind: 'episodic',
    maxTurns: 40,
    tools,
  }) as unknown as EpisodicMeta;
