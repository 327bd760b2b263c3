// verl's side of an export with episodic environments: agent_loop.yaml, which registers envforge's agent loop
// (export/python/envforge_verl.py) under the name the rows' agent_name gives, and the README's part on it. The YAML
// holds no module text: the loop reads the environments' tools from envforge.json.
import type { FormatContext } from '../contract.js';
import { episodicEnvs } from '../python-files.js';

export const AGENT_NAME = 'envforge_agent';
export const AGENT_LOOP_FILE = 'agent_loop.yaml';

/** agent_loop.yaml for actor_rollout_ref.rollout.agent.agent_loop_config_path (verl loads it with OmegaConf). */
export function verlAgentLoopYaml(): string {
  return (
    `# envforge's agent loop for verl (actor_rollout_ref.rollout.agent.agent_loop_config_path), ` +
    `written by envforge export.
# Rows of episodic environments name it in agent_name; the class is in envforge_verl.py (put this folder on PYTHONPATH).
- name: ${AGENT_NAME}
  _target_: envforge_verl.EnvforgeAgentLoop
`
  );
}

/**
 * The README's part on episodic rows; empty for an export without them. `longest` is the longest task plus its tools,
 * in characters.
 */
export function verlEpisodicReadme(context: FormatContext, longest: number): string {
  if (episodicEnvs(context.envs).length === 0) return '';
  const train = `${context.splits[0] ?? 'train'}.parquet`;
  return (
    `
## Episodic environments (multi-turn tool use)

Their rows carry \`agent_name: "${AGENT_NAME}"\`; \`${AGENT_LOOP_FILE}\` registers envforge's agent loop under that name
(\`envforge_verl.EnvforgeAgentLoop\`, verl's tool agent loop playing each trajectory as one episode on the service).
Single-turn rows of the same file keep verl's \`single_turn_agent\`.

\`\`\`sh
export PYTHONPATH=$PWD:$PYTHONPATH ENVFORGE_URL=${context.serviceUrl}
python3 -m verl.trainer.main_ppo \\
  data.train_files=${train} data.return_raw_chat=True data.max_prompt_length=` +
    `${Math.max(1024, 256 * Math.ceil(longest / 3 / 256))} \\
  actor_rollout_ref.rollout.mode=async actor_rollout_ref.rollout.multi_turn.enable=True \\
  actor_rollout_ref.rollout.agent.agent_loop_config_path=${AGENT_LOOP_FILE} \\
  custom_reward_function.path=compute_score.py custom_reward_function.name=compute_score ...
\`\`\`

- Each row is offered its own environment's tools only (the longest task with its tools here is ${longest} characters:
  size \`data.max_prompt_length\` for it, verl's default is 512 tokens). Leave ` +
    `\`multi_turn.tool_config_path\` unset: the
  loop reads the tools from \`envforge.json\`, with the bounds the service enforces stated in their descriptions.
- The trajectory's episode starts before the first turn and ends with the trajectory: one the model left unfinished
  ends "truncated", scores as its state stands and frees its slot on the service at once.
- Tool calls are steps, one at a time in the order the model wrote them (any ` +
    `\`multi_turn.max_parallel_calls\`); a call to
  a tool the environment does not declare reaches the episode and counts toward its error limit.
- The episode's score reaches \`compute_score\` as the trajectory's tool rewards, which verl's reward loop
  (\`reward_model.use_reward_loop=True\`, the default, with the default ` +
    `\`reward_model.reward_manager=naive\`) merges into
  \`extra_info\`. With \`use_reward_loop=False\` they never arrive, and \`compute_score\` raises rather than score 0.
- A service that is down or serves other environments raises \`EnvforgeServiceFailure\` (no \`Exception\`, so verl's
  tool loop cannot turn it into text) and the run stops.
`
  );
}
