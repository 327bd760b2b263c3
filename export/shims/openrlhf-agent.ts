// OpenRLHF's side of an export with episodic environments: the text an episodic row's input shows (the task, the
// tools with their schemas and how to call them) and the README's part on agent_func.py, the shim
// (export/python/agent_func.py) that plays each row on the service.
import type { ExportRow, FormatContext, ShimEnv } from '../contract.js';
import { jsonText } from '../encode.js';
import { episodicEnvs } from '../python-files.js';

/** How the policy calls a tool in text (OpenRLHF hands the model's raw text to the agent): Hermes-style tags. */
const CALL_FORMAT =
  'Call a tool as <tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>; several calls in one turn ' +
  'are taken in order, and a turn without a tool call ends the episode.';

/** An episodic row's input: reset's prompt, then the tools with their parameter schemas and the call format. */
export function openrlhfInput(row: ExportRow, env: ShimEnv | undefined): string {
  if (!env?.episodic || row.task === undefined) return row.prompt;
  const tools = env.episodic.tools
    .map((t) => jsonText({ name: t.name, description: t.description, parameters: t.parameters }))
    .join('\n');
  return `${row.task}\n\nTools:\n${tools}\n\n${CALL_FORMAT}`;
}

/** The README's part on episodic rows; empty for an export without them. */
export function openrlhfEpisodicReadme(context: FormatContext): string {
  if (episodicEnvs(context.envs).length === 0) return '';
  return `
## Episodic environments (multi-turn tool use)

Their \`input\` is the task, the tools with their parameter schemas and the call format; \`agent_func.py\` plays
each row on the service: \`--train.agent_func_path agent_func.py\` (instead of \`--reward.remote_url\`; single-turn
rows of the same file are scored on their first turn). Each \`<tool_call>{"name": ..., "arguments": {...}}</tool_call>\`
of a turn is one step, in order; a turn without one ends the episode, and the step that ends it carries the score as
its reward. A rollout whose token budget runs out is ended by \`AgentExecutor\` ("truncated": scored as its state
stands) and gets that score. ENVFORGE_FEEDBACK_TEMPLATE (default \`<tool_response>{observation}</tool_response>\` on
lines of their own) shapes the feedback text for the model's chat format.
`;
}
