"""envforge environments for TRL's GRPOTrainer (environment_factory), written by `envforge export --format trl`.

    from environment import environment_factory
    trainer = GRPOTrainer(..., train_dataset=episodic_rows, environment_factory=environment_factory)

One class per episodic environment of the export, made at import from envforge.json (no module text is spliced into
Python): each public method is one of the environment's tools, with a typed signature and a Google-style docstring
for transformers' schema reader, and one step of the episode. reset(**row) starts the row's episode on the envforge
service ($ENVFORGE_URL, else the export's default) and returns its prompt, which TRL appends to the row's empty user
message; an episode the instance still had running (TRL reuses instances across batches) is ended first.
get_reward() ends the episode if the model left it running ("truncated": scored as its state stands, its slot freed)
and returns its score; TRL logs it under the class's name. Calls to tools the environment does not declare are
answered by TRL itself ("Tool ... not found") and never reach the episode.
The prompt, observations, descriptions and enum values are text in the trainer tokenizer's grammar (T8-2): the calling
GRPOTrainer's processing_class, or the tokenizer use_tokenizer() or ENVFORGE_TOKENIZER names (needed for docstrings).
"""
import inspect
import json
import keyword
import logging
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the client beside this file, even with another export loaded
client = __import__("envforge_client").client_for(__file__)

PY_TYPES = {"string": str, "integer": int, "number": float, "boolean": bool, "array": list, "object": dict}
RESERVED = frozenset(["reset", "get_reward"])
# The words transformers' docstring reader treats as structure (section heads, the choices suffix): a word joiner
# before their colon keeps a description's text from being read as structure.
_DOC_MARKERS = re.compile(r"(args|returns|raises|choices)(?=:)", re.IGNORECASE)
# What str.strip() takes off: transformers strips every enum value it reads, so a value with such an end cannot be
# offered.
_EDGE_SPACE = re.compile(r"^\s|\s$")


def doc_text(text):
    """A description as one line of docstring prose that transformers' reader takes as text only."""
    return _DOC_MARKERS.sub("\\1\u2060", " ".join(str(text).split()))


def choices_json(values):
    """The enum as the JSON list transformers reads back, its structure words written as JSON escapes (same values)."""
    return re.sub(r"(args|returns|raises|choices):", r"\1\\u003a", json.dumps(values), flags=re.IGNORECASE)


class EnvforgeEnvironment:
    """The part every environment class shares: the row's episode and its score."""

    _env_name = None

    def __init__(self):
        self._episode = None

    def reset(self, **row):
        """Starts the episode of the row (its env, version, seed and level columns) and returns its prompt."""
        if self._episode is not None and not self._episode.done:
            self._episode.finish()
        tokenizer = self._tokenizer()
        with client.text_exits(tokenizer):
            identity = client.identity_of(row.get("ground_truth") or row)
            if identity["env"] != self._env_name:
                raise ValueError(
                    f"a row of {identity['env']} reached the environment of {self._env_name}: "
                    "route rows by their environment column"
                )
            self._episode = client.Episode(identity)
            return client.tokenizer_text(self._episode.prompt, tokenizer)

    def _tokenizer(self):
        """The tokenizer the trainer renders this environment's text with (T8-2): the calling GRPOTrainer's own, else
        the one use_tokenizer or ENVFORGE_TOKENIZER named."""
        held = _caller_tokenizer()
        if held is not None and _documented["tokenizer"] is None and not _documented["warned"]:
            _documented["warned"] = True
            logging.getLogger("envforge").warning(
                "envforge: the tools' descriptions and enum values reached the trainer unencoded for its tokenizer "
                "(T8-2): call environment.use_tokenizer(processing_class) before making the trainer"
            )
        return client.trainer_tokenizer(held)

    def get_reward(self):
        """The episode's score in [0, 1]; an episode the model left running is ended and scored as it stands."""
        return 0.0 if self._episode is None else self._episode.finish()

    def _step(self, tool, args):
        if self._episode is None:
            raise RuntimeError("a tool was called before reset()")
        tokenizer = self._tokenizer()
        with client.text_exits(tokenizer):  # TRL writes a raised exception's text into the tool message
            args = client.service_args(client.tool_parameters(self._env_name, tool), args, tokenizer)
            observation = self._episode.step(tool, {k: v for k, v in args.items() if v is not None})
            return client.tokenizer_text(observation, tokenizer)


def _caller_tokenizer():
    """The tokenizer of the trainer whose method called the environment: GRPOTrainer calls reset and the tools from
    its own methods and holds its tokenizer as processing_class (a processor holds it as .tokenizer); None when no
    caller holds one."""
    frame = sys._getframe(1)
    while frame is not None:
        owner = frame.f_locals.get("self")
        held = getattr(owner, "processing_class", None) if owner is not None else None
        if held is not None:
            return held if hasattr(held, "all_special_tokens") else getattr(held, "tokenizer", None)
        frame = frame.f_back
    return None


# The tokenizer the tools' docstrings were last written for (None: unencoded), and whether that was said.
_documented = {"tokenizer": None, "warned": False}


def _parameters(tool, tokenizer=None):
    schema = client.tokenizer_schema(tool.get("parameters") or {}, tokenizer)
    required = set(schema.get("required") or [])
    params = []
    for name, prop in (schema.get("properties") or {}).items():
        bounds = client.bounds_of(prop)
        words = doc_text((prop.get("description") or name) + (" (" + "; ".join(bounds) + ")" if bounds else ""))
        if "enum" in prop:
            words += " (choices: " + choices_json(prop["enum"]) + ")"
        kind = PY_TYPES.get(prop.get("type"), str)
        params.append({"name": name, "type": kind, "required": name in required, "doc": words})
    return [p for p in params if p["required"]] + [p for p in params if not p["required"]]


def refusal(tool):
    """Why a tool cannot be a method of a TRL environment class, or None when it can."""
    name = tool.get("name")
    if (
        not isinstance(name, str)
        or not name.isidentifier()
        or keyword.iskeyword(name)
        or name.startswith("_")
        or name in RESERVED
    ):
        return (
            f"its tool {name!r} cannot be a method of a TRL environment class "
            "(a Python keyword or a name TRL reserves)"
        )
    for pname, prop in ((tool.get("parameters") or {}).get("properties") or {}).items():
        if not pname.isidentifier() or keyword.iskeyword(pname) or pname == "self":
            return f"the parameter {pname!r} of its tool {name!r} cannot be a Python keyword argument"
        if any(isinstance(v, str) and _EDGE_SPACE.search(v) for v in prop.get("enum") or []):
            return (
                f"an enum value of the parameter {pname!r} of its tool {name!r} begins or ends with whitespace, "
                "which transformers' reader strips"
            )
    return None


def _docstring(tool, tokenizer):
    """A tool's docstring from its descriptions, in the grammar of the tokenizer that renders it (T8-2)."""
    args = "".join(f"\n    {p['name']}: {p['doc']}" for p in _parameters(tool, tokenizer))
    return (
        doc_text(client.tokenizer_text(tool.get("description") or tool["name"], tokenizer))
        + (f"\n\nArgs:{args}" if args else "")
        + "\n\nReturns:\n    What the environment answers."
    )


def _method(tool):
    """A tool as a method: signature and annotations from its parameters, docstring from its descriptions."""
    params = _parameters(tool)
    name = tool["name"]

    def method(self, **kwargs):
        return self._step(name, kwargs)

    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(
                p["name"],
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                annotation=p["type"] if p["required"] else p["type"] | None,
                **({} if p["required"] else {"default": None}),
            )
            for p in params
        ],
        return_annotation=str,
    )
    annotations = {p["name"]: (p["type"] if p["required"] else p["type"] | None) for p in params}
    method.__annotations__ = {**annotations, "return": str}
    _documented["tokenizer"] = client.trainer_tokenizer(warn=False)
    method.__doc__ = _docstring(tool, _documented["tokenizer"])
    return method


def _environment_class(env_name, spec):
    """The environment_factory class of one environment."""
    methods = {tool["name"]: _method(tool) for tool in spec["tools"]}
    doc = (
        "An envforge environment on the envforge service: one episode per rollout, "
        f"at most {int(spec['max_turns'])} tool calls."
    )
    namespace = {"_env_name": env_name, "__doc__": doc, "__module__": __name__, **methods}
    return type(spec["class_name"], (EnvforgeEnvironment,), namespace)


def _classes():
    classes, names = {}, set()
    for env_name, spec in client.episodic_envs().items():
        class_name = spec.get("class_name")
        if (
            not isinstance(class_name, str)
            or not class_name.isidentifier()
            or keyword.iskeyword(class_name)
            or class_name in names
            or class_name in globals()
        ):
            raise ImportError(
                f"envforge.json gives {env_name} the class name {class_name!r}, "
                "which is not a Python identifier or is taken"
            )
        problem = next((r for r in map(refusal, spec["tools"]) if r), None)
        if problem:
            raise ImportError(f"{env_name}: {problem}; the export should have left it out")
        names.add(class_name)
        classes[env_name] = _environment_class(env_name, spec)
    return classes


ENVIRONMENTS = _classes()


def use_tokenizer(tokenizer):
    """Names the trainer's tokenizer (GRPOTrainer's processing_class, or a model name or folder): prompts,
    observations, tool descriptions and enum values are then text in its grammar (T8-2). Call it before making the
    GRPOTrainer, which reads the tools' docstrings; ENVFORGE_TOKENIZER does the same at import."""
    client.use_tokenizer(tokenizer)
    _documented["tokenizer"] = client.trainer_tokenizer()
    for env_name, cls in ENVIRONMENTS.items():
        for tool in client.episodic_envs()[env_name]["tools"]:
            getattr(cls, tool["name"]).__doc__ = _docstring(tool, _documented["tokenizer"])


globals().update({cls.__name__: cls for cls in ENVIRONMENTS.values()})
# One environment: its class; several: the name -> class mapping TRL routes by the rows' environment column.
environment_factory = next(iter(ENVIRONMENTS.values())) if len(ENVIRONMENTS) == 1 else ENVIRONMENTS


def envforge_episode_reward(completions, environments=None, **kwargs):
    """A TRL reward function: each rollout's episode score (pass it when the environment's get_reward is not used)."""
    if environments is None:
        raise ValueError("envforge_episode_reward needs GRPOTrainer's environments (an environment_factory run)")
    return [e.get_reward() for e in environments]
