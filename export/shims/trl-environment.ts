// TRL's side of an export with episodic environments: which environments a TRL environment class can carry (each
// tool becomes a method, each parameter a keyword argument) and the README's part on environment.py, the shim
// (export/python/environment.py) that builds one environment_factory class per environment from envforge.json.
import type { Tool } from '../../contract/episodic.js';
import type { FormatContext, ShimEnv } from '../contract.js';
import { markdownText } from '../../contract/text.js';
import { episodicEnvs } from '../python-files.js';

/** Method names the environment class keeps for itself (TRL's reserved ones). */
const RESERVED = new Set(['reset', 'get_reward']);

/** Python's keywords (3.12, soft keywords included): no method or parameter may take these names. */
const KEYWORDS = new Set(
  (
    'False None True and as assert async await break class continue def del elif else except finally for from ' +
    'global if import in is lambda nonlocal not or pass raise return try while with yield match case type _'
  ).split(' '),
);

/** Whether a name can be a Python identifier that a shim defines (a method, a keyword argument). */
export function isPyName(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name);
}

function parametersOf(tool: Tool): Array<[string, { enum?: unknown[] }]> {
  return Object.entries((tool.parameters as { properties?: Record<string, { enum?: unknown[] }> }).properties ?? {});
}

/** Whitespace Python's str.strip() takes off an end (JavaScript's \s, and the separators Python also counts). */
const EDGE_SPACE = /^[\s\x1c-\x1f\x85]|[\s\x1c-\x1f\x85]$/;

/** Why TRL cannot carry an environment: a tool or parameter name that cannot be a Python method or keyword argument. */
export function trlRefuses(env: ShimEnv): string | undefined {
  for (const tool of env.episodic?.tools ?? []) {
    if (!isPyName(tool.name) || tool.name.startsWith('_') || RESERVED.has(tool.name))
      return (
        `its tool "${tool.name}" cannot be a method of a TRL environment class (a Python keyword ` +
        `or a name TRL reserves)`
      );
    const bad = parametersOf(tool).find(([p]) => !isPyName(p) || p === 'self');
    if (bad) return `the parameter "${bad[0]}" of its tool "${tool.name}" cannot be a Python keyword argument`;
    // transformers strips every enum value it reads from a docstring: the model would be offered a value the service
    // refuses.
    const spaced = parametersOf(tool).find(([, p]) => p.enum?.some((v) => typeof v === 'string' && EDGE_SPACE.test(v)));
    if (spaced)
      return (
        `an enum value of the parameter "${spaced[0]}" of its tool "${tool.name}" begins or ends with ` +
        `whitespace, which transformers' docstring reader strips`
      );
  }
  return undefined;
}

/** The README's part on episodic rows; empty for an export without them. */
export function trlEpisodicReadme(context: FormatContext): string {
  const envs = episodicEnvs(context.envs);
  if (envs.length === 0) return '';
  const first = context.splits[0] ?? 'train';
  return (
    `
## Episodic environments (multi-turn tool use)

Their rows are in \`<split>.episodic.jsonl\` / \`<split>.episodic.parquet\` (` +
    `${envs.map((e) => markdownText(e.name)).join(', ')}), apart
from single-turn rows: every one of them names its environment (the \`environment\` column TRL routes by) and has a
conversational \`prompt\` whose user message is empty. \`environment.py\` holds one class per environment, whose
methods are its tools (needs transformers>=5.2):

\`\`\`python
from datasets import load_dataset
from trl import GRPOConfig, GRPOTrainer
from environment import environment_factory   # the class, or {name: class} for several environments

dataset = load_dataset("parquet", data_files={"${first}": "${first}.episodic.parquet"})["${first}"]
trainer = GRPOTrainer(model=..., train_dataset=dataset, environment_factory=environment_factory, args=GRPOConfig(...))
\`\`\`

\`reset(**row)\` starts the row's episode on the service and returns its prompt (TRL appends it to the user
message; an instance TRL reuses ends its previous episode first); \`get_reward()\` ends the episode if the model left
it running ("truncated": scored as its state stands) and returns its score, logged under the class's name
(\`envforge_episode_reward\` is the same as a reward function). TRL answers a call to a tool the environment does not
declare itself, so such calls never reach the episode. Train single-turn rows (\`reward.py\`) in a run of their own.
`
  );
}
