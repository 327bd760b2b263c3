"""envforge's agent loop and tools for verl, written by `envforge export --format verl`.

Rows of episodic environments carry agent_name "envforge_agent"; agent_loop.yaml registers this module's
EnvforgeAgentLoop under that name (actor_rollout_ref.rollout.agent.agent_loop_config_path=agent_loop.yaml; put the
export folder on PYTHONPATH). verl makes one agent loop per trajectory, and this one plays it as one episode on the
envforge service ($ENVFORGE_URL, else the export's default):

- the row is offered its own environment's tools only, with the bounds the service enforces stated in their
  descriptions (verl's tool schema keeps type, description and string enums and drops the rest);
- the trajectory's episode starts before the first turn (EnvforgeTool.create) and ends when the trajectory ends
  (EnvforgeTool.release): an episode the model left unfinished ends "truncated" and scores as its state stands, and
  its slot on the service is freed at once;
- every tool call is one step, taken one at a time in the order the model wrote them (two calls in one turn are two
  steps); a call to a tool the environment does not declare reaches the episode too, so it counts toward the
  episode's error limit as it would anywhere else;
- the step that ends the episode returns its score as the tool reward (the others 0), and release() appends the
  score of an episode it ended, so the trajectory's tool rewards sum to the episode's score: compute_score.py reads
  them back from extra_info (verl's reward loop merges them there);
- a tool call the service refuses (too large, out of turn) is the policy's error and becomes the tool's text; a
  service that is down or serves other environments raises EnvforgeServiceFailure, which is no Exception, so the run
  stops instead of training on a silent 0.
"""
import asyncio
import json
import os
import sys
import threading
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the client beside this file, even with another export loaded
client = __import__("envforge_client").client_for(__file__)

try:
    from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse
except ImportError as exc:
    raise ImportError(
        "envforge_verl.py runs inside verl: verl's agent loop and tool classes could not be imported"
    ) from exc

AGENT_NAME = "envforge_agent"


class EnvforgeServiceFailure(BaseException):
    """The service is down, refuses an episode or serves other environments. verl shows a tool's Exception to the
    model as text and goes on, which would train on a silent 0: this one is no Exception, so the run stops."""


# ---------------------------------------------------------------- the schema the model sees

def verl_schema(tool):
    """A contract tool in the form verl's OpenAIFunctionToolSchema keeps: type, description and string enums per
    parameter; every other bound the service enforces is stated in the description instead of being dropped."""
    parameters = tool.get("parameters") or {}
    properties = {}
    for name, prop in (parameters.get("properties") or {}).items():
        description = prop.get("description") if isinstance(prop.get("description"), str) else ""
        bounds = client.bounds_of(prop)
        if "enum" in prop and not all(isinstance(v, str) for v in prop["enum"]):
            bounds.append("one of " + ", ".join(json.dumps(v) for v in prop["enum"]))
        if bounds:
            description = (description + " " if description else "") + "(" + "; ".join(bounds) + ")"
        kept = {"type": prop.get("type", "string")}
        if description:
            kept["description"] = description
        if "enum" in prop and all(isinstance(v, str) for v in prop["enum"]):
            kept["enum"] = list(prop["enum"])
        properties[name] = kept
    description = tool.get("description", "")
    if parameters.get("additionalProperties") is False and properties:
        description += " (Takes only the parameters listed.)"
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(parameters.get("required") or []),
            },
        },
    }


# ---------------------------------------------------------------- episodes and tools

_episodes = {}
_episodes_lock = threading.Lock()


def _loud(fn, *args):
    """A service failure stops the run (BaseException); a refusal of one call is that call's text."""
    try:
        return fn(*args)
    except client.EnvforgeServiceError as exc:
        raise EnvforgeServiceFailure(str(exc)) from exc


def _step(episode, tool, args):
    try:
        return episode.step(tool, args)
    except client.EnvforgeServiceError as exc:
        if exc.status is not None and 400 <= exc.status < 500 and not isinstance(exc, client.EnvforgeManifestError):
            return f"error: {exc}"
        raise


class EnvforgeTool(BaseTool):
    """One tool of one environment. An instance is one trajectory's episode: create() starts it from the row's identity
    (create_kwargs), execute() is one step, calc_reward() ends it and returns its score, release() ends it ("truncated"
    when unfinished) and forgets it."""

    def __init__(self, config, tool_schema=None):
        self.env = str(config["env"])
        self.tool = str(config["tool"])
        env = client.ENVS.get(self.env)
        found = [t for t in (env or {}).get("tools", []) if t.get("name") == self.tool]
        if not found:
            raise ValueError(f"{self.env} has no tool {self.tool!r} in this export")
        self._schema = verl_schema(found[0])
        super().__init__(config, tool_schema)

    def get_openai_tool_schema(self):
        return OpenAIFunctionToolSchema.model_validate(self._schema)

    async def create(self, instance_id=None, **kwargs):
        instance_id = instance_id or uuid.uuid4().hex
        identity = client.identity_of(kwargs.get("create_kwargs") or kwargs)
        if identity["env"] != self.env:
            raise ValueError(f"a row of {identity['env']} reached a tool of {self.env}")
        episode = await client.in_thread(_loud, client.Episode, identity)
        with _episodes_lock:
            _episodes[instance_id] = episode
        return instance_id, ToolResponse()

    async def execute(self, instance_id, parameters, **kwargs):
        return await execute_call(instance_id, self.name, parameters)

    async def calc_reward(self, instance_id, **kwargs):
        episode = _episodes.get(instance_id)
        return 0.0 if episode is None else await client.in_thread(_loud, episode.finish)

    async def release(self, instance_id, **kwargs):
        with _episodes_lock:
            episode = _episodes.pop(instance_id, None)
        if episode is not None and not episode.done:
            await client.in_thread(_loud, episode.finish)


async def execute_call(instance_id, name, parameters):
    """One tool call of a trajectory's episode: (response, reward, metrics); the reward is the score on the step that
    ends it."""
    episode = _episodes[instance_id]
    ended = episode.done
    observation = await client.in_thread(_loud, _step, episode, name, parameters)
    reward = episode.score if episode.done and not ended else 0.0
    return ToolResponse(text=observation), reward, {"turn": episode.turn, "done": episode.done}


_tools = {}


def tools_of(env):
    """The EnvforgeTool objects of an environment, made once per process (verl prints each schema when it makes one)."""
    with _episodes_lock:
        if env not in _tools:
            spec = client.episodic_envs().get(env)
            if spec is None:
                raise ValueError(f"{env} is not an episodic environment of this export")
            _tools[env] = [EnvforgeTool({"type": "native", "env": env, "tool": t["name"]}, None) for t in spec["tools"]]
        return _tools[env]


class EnvforgeAgentLoop(ToolAgentLoop):
    """verl's tool agent loop, playing each trajectory as one envforge episode (see the module's docstring)."""

    async def run(self, sampling_params, **kwargs):
        ground_truth = (kwargs.get("reward_model") or {}).get("ground_truth")
        identity = client.identity_of(ground_truth or kwargs.get("extra_info"))
        tools = tools_of(identity["env"])
        self.tools = {tool.name: tool for tool in tools}
        self._envforge_env = identity["env"]
        # the prompt and the tools' descriptions and enum values as text in the grammar of the tokenizer that renders
        # them (T8-2)
        kwargs = {**kwargs, "raw_prompt": client.safe_prompt(list(kwargs.get("raw_prompt") or []), self._tokenizer())}
        schemas = [tool.tool_schema.model_dump(exclude_unset=True, exclude_none=True) for tool in tools]
        self.tool_schemas = [client.tokenizer_schema(schema, self._tokenizer()) for schema in schemas]
        self._envforge_order = asyncio.Lock()  # calls of one turn run one after another, in the order written
        self._envforge_tool = tools[0]
        self._envforge_id, _ = await tools[0].create(create_kwargs=identity)
        episode = self.envforge_episode = _episodes[self._envforge_id]
        output = None
        try:
            output = await super().run(sampling_params, **kwargs)
        finally:
            unfinished = not episode.done
            await tools[0].release(self._envforge_id)
        if unfinished and output is not None:
            output.extra_fields.setdefault("tool_rewards", []).append(episode.score)
        return output

    def _tokenizer(self):
        return client.trainer_tokenizer(getattr(self, "tokenizer", None))

    async def _call_tool(self, tool_call, tools_kwargs, agent_data):
        async with self._envforge_order:
            try:
                args = json.loads(tool_call.arguments)
            except (TypeError, ValueError):
                return ToolResponse(text="error: the tool call's arguments are not JSON"), 0.0, {}
            parameters = client.tool_parameters(self._envforge_env, tool_call.name)
            args = client.service_args(parameters, args, self._tokenizer())
            response, reward, metrics = await execute_call(self._envforge_id, tool_call.name, args)
        # the observation as text in the grammar of the tokenizer that reads it next (T8-2)
        text = client.tokenizer_text(response.text or "", self._tokenizer())
        limit = self.max_tool_response_length
        if limit and len(text) > limit:
            # verl's own truncation of a long tool answer, by tool_response_truncate_side.
            side = self.tool_response_truncate_side
            if side == "left":
                text = text[:limit] + "...(truncated)"
            elif side == "right":
                text = "(truncated)..." + text[-limit:]
            else:
                text = text[: limit // 2] + "...(truncated)..." + text[-(limit // 2):]
        return ToolResponse(text=text), reward, metrics
