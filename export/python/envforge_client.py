"""The envforge reward service's client, shared by every Python shim of an export (standard library only).

It reads the export's settings from envforge.json beside it: the service's default URL, the environments the
rows come from (name, version, code hash) and, for episodic ones, their tools. Nothing a module wrote is ever
spliced into Python: module text reaches a shim only as JSON data.

It fails loudly rather than train on a silent 0: once per process it checks that the service serves the
export's environments (name, version, code hash); it raises when the service stays down or answers an item
with an identity error (E_UNKNOWN_ENV, E_LEVEL_RANGE: the dataset and the service disagree), and it logs every
other per-item error code once and counts it (item_errors()); ENVFORGE_STRICT=1 raises on those too.

Every request carries `Authorization: Bearer <token>` when ENVFORGE_TOKEN (a client token the operator issued
with --client-token, so that trainers on one host are told apart) or else ENVFORGE_OPERATOR_TOKEN (scores
recorded as the operator's, which steer level "auto" and the nightly loop) is set.
"""
import asyncio
import hashlib
import importlib.util
import json
import logging
import os
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

CONFIG_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "envforge.json")


def client_for(path):
    """The envforge_client.py beside `path`: this module, or another export's, loaded under a name of its own (so two
    exports can share a process, each with its own envforge.json)."""
    here = os.path.dirname(os.path.abspath(path))
    if os.path.dirname(os.path.abspath(__file__)) == here:
        return sys.modules[__name__]
    name = "envforge_client_" + hashlib.sha256(here.encode("utf-8")).hexdigest()[:12]
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(here, "envforge_client.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def _load_config(path):
    try:
        with open(path, encoding="utf-8") as handle:
            config = json.load(handle)
    except (OSError, ValueError) as exc:
        raise ImportError(f"envforge_client needs the export's envforge.json beside it ({path}): {exc}") from exc
    if (
        not isinstance(config, dict)
        or not isinstance(config.get("envs"), dict)
        or not isinstance(config.get("service_url"), str)
    ):
        raise ImportError(f"{path} is not an envforge export config (service_url, envs)")
    return config


CONFIG = _load_config(CONFIG_FILE)
DEFAULT_URL = CONFIG["service_url"]
URL = os.environ.get("ENVFORGE_URL", DEFAULT_URL).rstrip("/")
TIMEOUT = float(os.environ.get("ENVFORGE_TIMEOUT", "60"))
RETRIES = int(os.environ.get("ENVFORGE_RETRIES", "5"))
BACKOFF = float(os.environ.get("ENVFORGE_BACKOFF", "0.5"))
BATCH = int(os.environ.get("ENVFORGE_BATCH", "256"))
CHECK_MANIFEST = os.environ.get("ENVFORGE_CHECK_MANIFEST", "1") != "0"
STRICT = os.environ.get("ENVFORGE_STRICT", "0") == "1"

# The environments this export's rows come from: the service must serve exactly these (name, version, code).
ENVS = CONFIG["envs"]
MANIFEST = [{"name": name, "version": env["version"], "hash": env["hash"]} for name, env in ENVS.items()]
IDENTITY_ERRORS = frozenset(["E_UNKNOWN_ENV", "E_LEVEL_RANGE"])
EPISODE_OVER = "The episode is over: no more tool calls are taken."

_lock = threading.Lock()
_checked = False
_log = logging.getLogger("envforge")


class EnvforgeServiceError(RuntimeError):
    """The reward service could not be reached or answered something unusable; status is the HTTP status of a
    refusal."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


class EnvforgeManifestError(EnvforgeServiceError):
    """The reward service does not serve the environments this export was made from."""


class EnvforgeItemError(EnvforgeServiceError):
    """The service could not score an item: its identity is unknown there (or any item error, with
    ENVFORGE_STRICT=1)."""


def episodic_envs():
    """The episodic environments of the export: name -> {version, hash, kind, max_turns, tools}."""
    return {name: env for name, env in ENVS.items() if env.get("kind") == "episodic"}


def _send(method, url, body, headers=None):
    """One HTTP exchange: status, headers, body. A body type is named only when a body is sent."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    kind = {} if data is None else {"content-type": "application/json"}
    secret = os.environ.get("ENVFORGE_TOKEN") or os.environ.get("ENVFORGE_OPERATOR_TOKEN")  # read per request
    token = {"authorization": "Bearer " + secret} if secret else {}
    sent = {**kind, **token, "accept": "application/json", **(headers or {})}
    request = urllib.request.Request(url, data=data, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, response.headers, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read().decode("utf-8", "replace")


def request(method, path, body=None, on_status=None, headers=None):
    """A JSON request with retries on connection errors, 408, 429 and 5xx; on_status(status, text) may answer a non-200
    itself."""
    url = URL + path
    delay = BACKOFF
    error = None
    for attempt in range(RETRIES + 1):
        wait = delay
        try:
            status, answer_headers, text = _send(method, url, body, headers)
        except (urllib.error.URLError, OSError) as exc:
            error = exc
        else:
            if status == 200:
                try:
                    return json.loads(text)
                except ValueError as exc:
                    raise EnvforgeServiceError(f"{url} answered with invalid JSON: {text[:200]!r}") from exc
            handled = on_status(status, text) if on_status is not None else None
            if handled is not None:
                return handled
            error = EnvforgeServiceError(f"{url} answered HTTP {status}: {text[:500]}", status)
            if status not in (408, 429) and status < 500:
                raise error
            retry_after = (answer_headers.get("retry-after", "") if answer_headers is not None else "") or ""
            if retry_after.replace(".", "", 1).isdigit():
                wait = max(wait, min(float(retry_after), 30.0))
        if attempt < RETRIES:
            time.sleep(wait)
            delay = min(delay * 2, 8.0)
    raise EnvforgeServiceError(
        f"the envforge reward service at {URL} failed {RETRIES + 1} times (set ENVFORGE_URL?): {error}"
    )


def check_manifest():
    """Once per process: the service must serve every environment of this export, with the same code."""
    global _checked
    if _checked or not CHECK_MANIFEST:
        return
    with _lock:
        if _checked:
            return
        answer = request("GET", "/v1/envs?versions=all")
        envs = answer.get("envs") if isinstance(answer, dict) else None
        if not isinstance(envs, list):
            raise EnvforgeServiceError(f"{URL}/v1/envs answered without an envs list")
        served = {(e.get("name"), e.get("version")): e.get("hash") for e in envs if isinstance(e, dict)}
        other_code, missing = [], []
        for env in MANIFEST:
            key = (env["name"], env["version"])
            if key not in served:
                missing.append(f"{env['name']}@{env['version']} is not served")
            elif served[key] is not None and served[key] != env["hash"]:
                other_code.append(
                    f"{env['name']}@{env['version']} is served with other code "
                    f"(hash {str(served[key])[:12]}, the export's {env['hash'][:12]})"
                )
        problems = other_code + missing
        if problems:
            more = f" and {len(problems) - 5} more" if len(problems) > 5 else ""
            raise EnvforgeManifestError(
                f"the reward service at {URL} does not serve the environments this export was made from: "
                f"{'; '.join(problems[:5])}{more}. "
                "Start envforge serve --library <the library the export came from> and point ENVFORGE_URL at it "
                "(ENVFORGE_CHECK_MANIFEST=0 skips this check)."
            )
        _checked = True


# ---------------------------------------------------------------- tool schemas in words

def bounds_of(schema):
    """What the service enforces on a parameter beyond its type, description and enum, in words (for trainers whose
    tool schema drops minimum/maxLength/items/additionalProperties, so the model still reads the limits)."""
    parts = []
    kind = schema.get("type")
    names = {"string": ("minLength", "maxLength"), "array": ("minItems", "maxItems")}
    low, high = names.get(kind, ("minimum", "maximum"))
    unit = {"string": " characters", "array": " items"}.get(kind, "")
    if low in schema and high in schema:
        parts.append(f"{schema[low]} to {schema[high]}{unit}")
    elif low in schema:
        parts.append(f"at least {schema[low]}{unit}")
    elif high in schema:
        parts.append(f"at most {schema[high]}{unit}")
    if kind == "array" and isinstance(schema.get("items"), dict):
        parts.append("each item " + _value_words(schema["items"]))
    if kind == "object":
        parts.append(_fields_words(schema))
    return parts


def _value_words(schema):
    text = str(schema.get("type", "value"))
    if isinstance(schema.get("description"), str) and schema["description"]:
        text += f" ({schema['description']})"
    if isinstance(schema.get("enum"), list):
        text += ", one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    bounds = bounds_of(schema)
    return text + (", " + ", ".join(bounds) if bounds else "")


def _fields_words(schema):
    properties = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    fields = "; ".join(
        f"{name}{'' if name in required else ' (optional)'}: {_value_words(p)}" for name, p in properties.items()
    )
    closed = " and no others" if schema.get("additionalProperties") is False else ""
    return f"an object with the fields {fields}{closed}" if fields else "an empty object"


# ---------------------------------------------------------------- single-turn scoring

_item_errors = {}


def item_errors():
    """Items scored 0 because the service reported an error, by error code, since the process started."""
    with _lock:
        return dict(_item_errors)


def _item_error(error):
    code = str(error.get("code", "E_UNKNOWN")) if isinstance(error, dict) else "E_UNKNOWN"
    message = str(error.get("message", "")) if isinstance(error, dict) else str(error)
    with _lock:
        _item_errors[code] = _item_errors.get(code, 0) + 1
        first = _item_errors[code] == 1
    if STRICT or code in IDENTITY_ERRORS:
        raise EnvforgeItemError(
            f"{URL}/v1/verify could not score an item: {code}: {message} (a score of 0 would train on a broken reward)"
        )
    if first:
        _log.warning(
            "envforge: an item scored 0 because of %s: %s (logged once per code; item_errors() counts them)",
            code,
            message,
        )


# ---------------------------------------------------------------- the trainer tokenizer's grammar (T8-2)

_control_tokens = {}
_tokenizer = None
_warned_no_tokenizer = False


def control_tokens(tokenizer):
    """The strings `tokenizer` reads as one control token wherever they stand in a text (T8-2): its special tokens and
    added tokens, longest first; an added token of word characters only, or of blanks only, is text and left out."""
    key = id(tokenizer)
    if key not in _control_tokens:
        names = set(getattr(tokenizer, "all_special_tokens", None) or [])
        added = getattr(tokenizer, "added_tokens_decoder", None) or {}
        names.update(str(getattr(token, "content", token)) for token in added.values())
        marked = [n for n in names if len(n) > 1 and not n.strip().replace("_", "a").isalnum() and n.strip()]
        _control_tokens[key] = sorted(marked, key=len, reverse=True)
    return _control_tokens[key]


def tokenizer_text(text, tokenizer):
    """Module text as `tokenizer` will read it as text: a word joiner after the first character of each control token
    in it, so an observation or prompt cannot write a turn boundary or a role of the trainer's chat template."""
    text = str(text)
    for token in control_tokens(tokenizer) if tokenizer is not None else []:
        if token in text:
            text = text.replace(token, token[0] + "\u2060" + token[1:])
    return text


def load_tokenizer(name):
    """The trainer's tokenizer from a model name or folder, as the trainer loads it (transformers' AutoTokenizer)."""
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise ImportError(f"envforge: loading the tokenizer {name!r} needs transformers") from exc
    return AutoTokenizer.from_pretrained(name)


def use_tokenizer(tokenizer):
    """Names the trainer's tokenizer (an object, or a model name or folder) for shims that cannot reach it themselves
    (TRL's environment classes); ENVFORGE_TOKENIZER names it too."""
    global _tokenizer
    _tokenizer = load_tokenizer(tokenizer) if isinstance(tokenizer, str) else tokenizer


def trainer_tokenizer(held=None, warn=True):
    """The tokenizer module text is encoded for: the one the shim holds, else use_tokenizer's, else the one
    ENVFORGE_TOKENIZER names. With none, module text reaches the trainer as it is, and (warn) that is said once,
    loudly."""
    global _warned_no_tokenizer
    if held is not None:
        return held
    if _tokenizer is None and os.environ.get("ENVFORGE_TOKENIZER"):
        use_tokenizer(os.environ["ENVFORGE_TOKENIZER"])
    if _tokenizer is None and warn and not _warned_no_tokenizer:
        _warned_no_tokenizer = True
        _log.warning(
            "envforge: no tokenizer is known, so environment text reaches the trainer unencoded and may spell its "
            "chat template's control tokens (T8-2): set ENVFORGE_TOKENIZER to the model's name or folder, or call "
            "use_tokenizer(<the trainer's tokenizer>)"
        )
    return _tokenizer


def tokenizer_schema(schema, tokenizer):
    """A tool schema whose descriptions and string enum values are tokenizer_text (names stay as the service knows
    them; service_args maps enum values back)."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "description" and isinstance(value, str):
                out[key] = tokenizer_text(value, tokenizer)
            elif key == "enum" and isinstance(value, list):
                out[key] = [tokenizer_text(v, tokenizer) if isinstance(v, str) else v for v in value]
            else:
                out[key] = tokenizer_schema(value, tokenizer)
        return out
    if isinstance(schema, list):
        return [tokenizer_schema(v, tokenizer) for v in schema]
    return schema


def service_args(schema, args, tokenizer):
    """Arguments as the service expects them: an enum value the model copied as tokenizer_schema showed it is mapped
    back to the value itself (through nested objects and arrays too); everything else is left as written."""
    if tokenizer is None or not isinstance(schema, dict):
        return args
    enum = schema.get("enum")
    if isinstance(enum, list) and isinstance(args, str) and args not in enum:
        return next((v for v in enum if isinstance(v, str) and tokenizer_text(v, tokenizer) == args), args)
    if isinstance(args, dict) and isinstance(schema.get("properties"), dict):
        props = schema["properties"]
        return {k: service_args(props.get(k), v, tokenizer) for k, v in args.items()}
    if isinstance(args, list) and isinstance(schema.get("items"), dict):
        return [service_args(schema["items"], v, tokenizer) for v in args]
    return args


def tool_parameters(env, tool):
    """The parameter schema of an environment's tool in this export, or None."""
    found = [t for t in (ENVS.get(env) or {}).get("tools", []) if t.get("name") == tool]
    return (found[0].get("parameters") or {}) if found else None


def safe_prompt(prompt, tokenizer):
    """A row's prompt as text in the tokenizer's grammar: a string, or chat messages whose contents are (roles are
    the exporter's own and stay)."""
    if isinstance(prompt, str):
        return tokenizer_text(prompt, tokenizer)
    if isinstance(prompt, dict):
        return {k: v if k == "role" else safe_prompt(v, tokenizer) for k, v in prompt.items()}
    if isinstance(prompt, (list, tuple)):
        return [safe_prompt(m, tokenizer) for m in prompt]
    return prompt


PROMPT_COLUMNS = ("prompt", "input")


def safe_prompts(dataset, tokenizer, columns=PROMPT_COLUMNS):
    """The exported rows with their prompt columns (`prompt`, OpenRLHF's `input`) as safe_prompt: a datasets.Dataset
    (mapped) or an iterable of row dicts (a new list). Run it where the trainer loads the dataset, with its
    tokenizer (an object, or a model name or folder)."""
    if isinstance(tokenizer, str):
        tokenizer = load_tokenizer(tokenizer)

    def row_of(row):
        return {c: safe_prompt(row[c], tokenizer) for c in columns if c in row}

    if hasattr(dataset, "map") and hasattr(dataset, "column_names"):
        return dataset.map(row_of)
    return [{**row, **row_of(row)} for row in dataset]


def safe_prompts_file(source, target, tokenizer):
    """An exported .jsonl or .parquet file rewritten with safe_prompts (parquet needs datasets); returns the rows."""
    if source.endswith(".parquet"):
        from datasets import load_dataset

        dataset = safe_prompts(load_dataset("parquet", data_files=source, split="train"), tokenizer)
        dataset.to_parquet(target)
        return len(dataset)
    with open(source, encoding="utf-8") as handle:
        rows = safe_prompts([json.loads(line) for line in handle if line.strip()], tokenizer)
    with open(target, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return len(rows)


# The names in an OpenEnv answer that identify rather than tell (the service's own values, or the module's names that
# a call must send back as they are).
_OPENENV_NAMES = frozenset(["name", "tool_name", "episode_id", "client_episode_id", "env", "end", "type", "code"])


def openenv_observation(observation, tokenizer):
    """An OpenEnv answer's observation (envforge serve's /openenv) in the tokenizer's grammar: every text in it is
    tokenizer_text and every tool schema tokenizer_schema (names and identifiers stay; service_args maps enum values
    of a call back)."""
    if isinstance(observation, str):
        return tokenizer_text(observation, tokenizer)
    if isinstance(observation, list):
        return [openenv_observation(v, tokenizer) for v in observation]
    if not isinstance(observation, dict):
        return observation
    out = {}
    for key, value in observation.items():
        if key == "tools" and isinstance(value, list):
            out[key] = [tokenizer_schema(t, tokenizer) for t in value]
        elif key in ("input_schema", "inputSchema", "parameters"):
            out[key] = tokenizer_schema(value, tokenizer)
        elif key in _OPENENV_NAMES:
            out[key] = value
        else:
            out[key] = openenv_observation(value, tokenizer)
    return out


def ground_truth_text(value):
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def verify(ground_truths, responses):
    """Scores responses against envforge identities; one float in [0, 1] per item."""
    check_manifest()
    items = [
        {"ground_truth": ground_truth_text(g), "response": r if isinstance(r, str) else str(r)}
        for g, r in zip(ground_truths, responses)
    ]
    scores = []
    for start in range(0, len(items), BATCH):
        part = items[start:start + BATCH]
        answer = request("POST", "/v1/verify", {"items": part})
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, list) or len(results) != len(part):
            answered = len(results) if isinstance(results, list) else "no"
            raise EnvforgeServiceError(f"/v1/verify answered {answered} results for {len(part)} items")
        for result in results:
            if isinstance(result, dict) and result.get("error") is not None:
                _item_error(result["error"])
            score = result.get("score") if isinstance(result, dict) else None
            scores.append(float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else 0.0)
    return scores


# ---------------------------------------------------------------- episodes

def identity_of(value):
    """A row's identity: the JSON string {"env","version","seed","level"} or a mapping with those keys."""
    if isinstance(value, (str, bytes)):
        value = json.loads(value)
    try:
        return {
            "env": str(value["env"]),
            "version": int(value["version"]),
            "seed": int(value["seed"]),
            "level": int(value["level"]),
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not an envforge identity (env, version, seed, level): {value!r}") from exc


def _score_of(answer, what):
    score = answer.get("score") if isinstance(answer, dict) else None
    if not isinstance(score, (int, float)) or isinstance(score, bool):
        raise EnvforgeServiceError(f"{what} ended the episode without a score: {str(answer)[:300]}")
    return float(score)


def _refused_action(status, text):
    """A step the service refuses for its size (413) is the policy's error, not the trainer's: it becomes the
    observation."""
    if status != 413:
        return None
    try:
        message = json.loads(text)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = "the tool call is too large"
    return f"error: {message}"


class Episode:
    """One episode on the envforge service, from reset to its score. Blocking (async trainers call it through
    in_thread) and safe to share: a lock takes its calls one at a time, so two tool calls of one turn are two steps."""

    def __init__(self, identity):
        check_manifest()
        self.identity = identity_of(identity)
        # One key per episode: a create retried after a lost answer gets the same episode, not a second one.
        answer = request("POST", "/v1/episodes", self.identity, headers={"Idempotency-Key": uuid.uuid4().hex})
        if not isinstance(answer, dict) or not isinstance(answer.get("episode"), str):
            raise EnvforgeServiceError(f"{URL}/v1/episodes answered without an episode id: {str(answer)[:300]}")
        self.id = answer["episode"]
        self.prompt = str(answer.get("prompt", ""))
        self.tools = answer.get("tools") or []
        self.max_turns = answer.get("maxTurns")
        self.turn = 0
        self.done = False
        self.score = None
        self.end = None
        self._path = "/v1/episodes/" + urllib.parse.quote(self.id, safe="")
        self._lock = threading.Lock()

    def step(self, tool, args):
        """One tool call; returns the observation. Once the episode has ended, nothing is sent."""
        with self._lock:
            if self.done:
                return EPISODE_OVER
            args = {} if args is None else args
            if not isinstance(tool, str) or not 0 < len(tool) <= 200 or not isinstance(args, dict):
                # The service refuses such a call outright (400): the policy hears why, and the episode stays where it
                # was.
                return "error: a tool call needs the name of a tool and an object of arguments"
            body = {"tool": tool, "args": args, "turn": self.turn + 1}
            answer = request("POST", self._path + "/step", body, on_status=_refused_action)
            if isinstance(answer, str):
                return answer
            if not isinstance(answer, dict) or not isinstance(answer.get("turn"), int):
                raise EnvforgeServiceError(f"{URL}{self._path}/step answered without a turn: {str(answer)[:300]}")
            self.turn = answer["turn"]
            if answer.get("done"):
                self.score = _score_of(answer, f"step {self.turn} of {self.id}")
                self.end = answer.get("end")
                self.done = True
            return str(answer.get("observation", ""))

    def finish(self):
        """The episode's score: an episode still running is ended first ("truncated"), scored as its state stands."""
        with self._lock:
            if not self.done:
                answer = request("DELETE", self._path)
                self.score = _score_of(answer, f"ending {self.id}")
                self.end = answer.get("end")
                self.done = True
            return self.score


async def in_thread(fn, *args):
    """Blocking HTTP off the event loop, so a trainer's other rollouts run while one waits on the service."""
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)


def main(argv):
    """`python3 envforge_client.py safe-prompts TOKENIZER SOURCE TARGET`: an exported file with safe_prompts."""
    if len(argv) != 4 or argv[0] != "safe-prompts":
        print(main.__doc__.split("`")[1], file=sys.stderr)
        return 2
    rows = safe_prompts_file(argv[2], argv[3], argv[1])
    print(f"{rows} rows: {argv[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
