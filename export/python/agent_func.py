"""envforge episodes for OpenRLHF's agent rollout, written by `envforge export --format openrlhf`.

    --train.agent_func_path agent_func.py   # with --input_key input --label_key label

Each row is played on the envforge service ($ENVFORGE_URL, else the export's default); its label is the identity.
An episodic row's reset starts its episode; each model turn's <tool_call>{"name", "arguments"}</tool_call> blocks are
steps, taken in order (two calls in one turn are two steps; calls after the one that ends the episode are not
taken), and their observations come back as environment feedback (ENVFORGE_FEEDBACK_TEMPLATE, with {observation});
a turn without a tool call ends the episode. A call to a tool the environment does not declare reaches the episode
too, so it counts toward its error limit. The step that ends the episode carries its score as the reward.
OpenRLHF stops a rollout whose token budget runs out without telling the agent: AgentExecutor then ends the episode
("truncated": scored as its state stands, its slot on the service freed) and adds its score to the rollout's reward.
A single-turn row is scored on its first turn (POST /v1/verify), so one file can mix both kinds.
Observations are text in the grammar of the tokenizer OpenRLHF hands the executor (T8-2); the rows' input is not
(OpenRLHF's dataset code reads it: the README's safe-prompts pass).
"""
import contextvars
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the client beside this file, even with another export loaded
client = __import__("envforge_client").client_for(__file__)

try:
    from openrlhf.utils.agent import AgentInstanceBase, MultiTurnAgentExecutor
except ImportError as exc:
    raise ImportError("agent_func.py runs inside OpenRLHF: openrlhf.utils.agent could not be imported") from exc

TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
FEEDBACK = os.environ.get("ENVFORGE_FEEDBACK_TEMPLATE", "\n<tool_response>\n{observation}\n</tool_response>\n")
# The feedback template's own tags (<tool_response>, </tool_response>, or whatever ENVFORGE_FEEDBACK_TEMPLATE writes):
# an observation that spelled one would close its block and write text outside it (T8-2), so a word joiner after its
# "<" keeps each one text. The tags are read from the template itself.
_TAGS = sorted(set(re.findall(r"<[^<>{}\s]+>", FEEDBACK)), key=len, reverse=True)
_TEMPLATE_TAG = re.compile("|".join(map(re.escape, _TAGS))) if _TAGS else None


def feedback_text(observation):
    """An observation as text inside the feedback template: none of the template's tags survives in it as a tag."""
    text = str(observation)
    return _TEMPLATE_TAG.sub(lambda m: "<\u2060" + m.group(0)[1:], text) if _TEMPLATE_TAG else text


# The agent instances one execute() made, so the executor can end the episodes OpenRLHF left running.
_instances = contextvars.ContextVar("envforge_agent_instances", default=None)
# The tokenizer OpenRLHF hands execute() (hf_tokenizer): the grammar observations are written in (T8-2).
_tokenizer = contextvars.ContextVar("envforge_agent_tokenizer", default=None)


class Reward(float):
    """A float with item(), as OpenRLHF reads a step's rewards (no torch needed here)."""

    def item(self):
        return float(self)


def parse_calls(text):
    """The tool calls of a model turn, in order: (tool, args) each, or (None, problem) for a malformed one."""
    calls = []
    for match in TOOL_CALL.finditer(text or ""):
        try:
            call = json.loads(match.group(1))
        except ValueError:
            calls.append((None, "the tool call is not JSON"))
            continue
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            calls.append((None, 'the tool call needs {"name": ..., "arguments": {...}}'))
            continue
        args = call.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError:
                calls.append((None, "the tool call's arguments are not JSON"))
                continue
        calls.append((call["name"], args))
    return calls


class AgentInstance(AgentInstanceBase):
    """One row: an episode, or a single-turn item scored on the first turn."""

    def __init__(self, *args, **kwargs):
        self.episode = None
        self.single = None
        live = _instances.get()
        if live is not None:
            live.append(self)

    async def reset(self, states, **kwargs):
        identity = client.identity_of(states["label"])
        if identity["env"] in client.episodic_envs():
            self.episode = await client.in_thread(client.Episode, identity)
        else:
            self.single = identity
        return {"observation": states["observation"]}

    async def step(self, states, **kwargs):
        text = states.get("action_text", "")
        if self.single is not None:
            score = Reward((await client.in_thread(client.verify, [self.single], [text]))[0])
            return {
                "rewards": score,
                "scores": score,
                "environment_feedback": "",
                "done": True,
                "sampling_params": states.get("sampling_params", None),
                "extra_logs": {"turns": Reward(1)},
            }
        calls = parse_calls(text)
        tokenizer = client.trainer_tokenizer(_tokenizer.get())
        env = self.episode.identity["env"]
        observations = []
        if not calls:
            await client.in_thread(self.episode.finish)
        for tool, args in calls:
            if self.episode.done:
                break
            if tool is None:
                observations.append("error: " + args)
                continue
            args = client.service_args(client.tool_parameters(env, tool), args, tokenizer)
            observations.append(await client.in_thread(self.episode.step, tool, args))
        reward = Reward(self.episode.score if self.episode.done else 0.0)
        return {
            "rewards": reward,
            "scores": reward,
            "environment_feedback": "".join(
                FEEDBACK.format(observation=client.tokenizer_text(feedback_text(o), tokenizer)) for o in observations
            ),
            "done": self.episode.done,
            "sampling_params": states.get("sampling_params", None),
            "extra_logs": {"turns": Reward(self.episode.turn)},
        }


class AgentExecutor(MultiTurnAgentExecutor):
    """OpenRLHF's multi-turn executor, ending what a rollout left running (see the module's docstring)."""

    def __init__(self):
        super().__init__(AgentInstance)

    async def execute(self, *args, **kwargs):
        live = []
        token = _instances.set(live)
        held = _tokenizer.set(kwargs.get("hf_tokenizer", args[4] if len(args) > 4 else None))
        try:
            result = await super().execute(*args, **kwargs)
        finally:
            _instances.reset(token)
            _tokenizer.reset(held)
            ended = [i.episode for i in live if i.episode is not None and not i.episode.done]
            for episode in ended:
                await client.in_thread(episode.finish)
        if ended and isinstance(result, dict):
            score = sum(e.score for e in ended)
            result["reward"] = float(result.get("reward") or 0.0) + score
            result["scores"] = score
        return result
