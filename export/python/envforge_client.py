"""The envforge reward service's client, shared by every Python shim of an export (standard library only).

It reads the export's settings from envforge.json beside it: the service's default URL, the environments the
rows come from (name, version, code hash) and, for episodic ones, their tools. Nothing a module wrote is ever
spliced into Python: module text reaches a shim only as JSON data.

It fails loudly rather than train on a silent 0: once per process it checks that the service serves the
export's environments (name, version, code hash); it raises when the service stays down or answers an item
with an identity error (E_UNKNOWN_ENV, E_LEVEL_RANGE: the dataset and the service disagree), and it logs every
other per-item error code once and counts it (item_errors()), and so an episode the environment failed (end
"failed": a throw, a timeout; never the policy's 0); ENVFORGE_STRICT=1 raises on those too.

Every request carries `Authorization: Bearer <token>` when ENVFORGE_TOKEN (a client token the operator issued
with --client-token, so that trainers on one host are told apart) or else ENVFORGE_OPERATOR_TOKEN (scores
recorded as the operator's, which steer level "auto" and the nightly loop) is set.
"""
import asyncio
import contextlib
import hashlib
import http.client
import importlib.util
import json
import logging
import os
import re
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
    """A JSON request with retries on connection errors, answers lost on the way, 408, 429 and 5xx; on_status(status,
    text) may answer a non-200 itself.

    An answer cut short (a body shorter than its content-length, a malformed status line: any http.client.HTTPException,
    which is no OSError; a 200 whose JSON does not parse) is a lost answer, retried with the same body and headers, so
    under the same idempotency: a step's turn, a create's Idempotency-Key. The service answers such a retry with what it
    already did (V25-6). What leaves here is only ever an EnvforgeServiceError."""
    url = URL + path
    delay = BACKOFF
    error = None
    for attempt in range(RETRIES + 1):
        wait = delay
        try:
            status, answer_headers, text = _send(method, url, body, headers)
            answer = json.loads(text) if status == 200 else None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            error = exc
        except ValueError:  # a 200 whose JSON does not parse: an answer cut short on its way
            error = EnvforgeServiceError(f"{url} answered with invalid JSON: {text[:200]!r}")
        else:
            if status == 200:
                return answer
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


def _item_error(error, what=None):
    """A score of 0 that is the service's or the environment's failure, not the policy's: counted by code, logged once
    per code, raised under ENVFORGE_STRICT=1. `what`: the episode that ended so (else an item of /v1/verify)."""
    code = str(error.get("code", "E_UNKNOWN")) if isinstance(error, dict) else "E_UNKNOWN"
    message = str(error.get("message", "")) if isinstance(error, dict) else str(error)
    # an environment's message (a throw's text is the module's) is data: one line, quoted when it would break lines
    message = message[:500] if message[:500].isprintable() else json.dumps(message[:500])
    with _lock:
        _item_errors[code] = _item_errors.get(code, 0) + 1
        first = _item_errors[code] == 1
    failed = f"episode {what} failed (the environment's failure)" if what else None
    failed = failed or f"{URL}/v1/verify could not score an item"
    if STRICT or code in IDENTITY_ERRORS:
        raise EnvforgeItemError(f"{failed}: {code}: {message} (a score of 0 would train on a broken reward)")
    if first:
        _log.warning(
            "envforge: %s scored 0 because of %s: %s (logged once per code; item_errors() counts them)",
            "an episode" if what else "an item",
            code,
            message,
        )


# ---------------------------------------------------------------- the trainer tokenizer's grammar (T8-2, T10)

_tokenizer = None
_warned_no_tokenizer = False
JOINER = "\u2060"
# Breaks tried in order where the tokenizer reads a control token: the word joiner (invisible, reversible: a joiner
# already in module text is doubled), then visible separators for a normalizer that deletes it (T10-1).
BREAKS = (JOINER, "\u00b7", " ")
_PASSES = 8
_CANNOT = (TypeError, KeyError, ValueError, AttributeError, NotImplementedError)


def _is_marker(content):
    """A token string that is not plain text: not only word characters, not only blanks, longer than one character."""
    return len(content) > 1 and bool(content.strip()) and not content.strip().replace("_", "a").isalnum()


def control_tokens(tokenizer):
    """The strings `tokenizer` declares as control tokens, read from it now (no cache: a tokenizer gains tokens, e.g.
    by TRL's clone_chat_template): its special tokens and added tokens that are not plain words or blanks, longest
    first."""
    names = set(getattr(tokenizer, "all_special_tokens", None) or [])
    added = getattr(tokenizer, "added_tokens_decoder", None) or {}
    names.update(str(getattr(token, "content", token)) for token in added.values())
    return sorted((n for n in names if _is_marker(n)), key=len, reverse=True)


def control_ids(tokenizer):
    """The ids `tokenizer` reads as control tokens, read from it now: its special ids (not the unknown token's, which
    unknown text encodes to) and added tokens that are special or not plain words or blanks."""
    ids = set(getattr(tokenizer, "all_special_ids", None) or [])
    for i, token in (getattr(tokenizer, "added_tokens_decoder", None) or {}).items():
        if getattr(token, "special", False) or _is_marker(str(getattr(token, "content", token))):
            ids.add(i)
    ids.discard(getattr(tokenizer, "unk_token_id", None))
    return ids


def _reading(tokenizer, text, ids):
    """(spans, found): the character spans of the control tokens `tokenizer` reads in `text` (None where it reports no
    offsets: slow tokenizers), and whether it reads any (None where it cannot encode: then the caller searches)."""
    try:
        encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        spans = [tuple(span) for i, span in zip(encoded["input_ids"], encoded["offset_mapping"]) if i in ids]
        return spans, bool(spans)
    except _CANNOT:
        pass
    try:
        return None, any(i in ids for i in tokenizer(text, add_special_tokens=False)["input_ids"])
    except _CANNOT:
        return None, None


def _normalized(tokenizer, text):
    """`text` after the tokenizer's normalizer, where it has one that can say (fast tokenizers), else `text`."""
    normalizer = getattr(getattr(tokenizer, "backend_tokenizer", None), "normalizer", None)
    return normalizer.normalize_str(text) if normalizer is not None else text


def _break_at(text, spans, mark):
    """`text` with `mark` after the first character of each span (replacing a one-character span, which has no
    inside), right to left so earlier offsets stay."""
    for start, end in sorted(set(spans), reverse=True):
        if end - start >= 2:
            text = text[: start + 1] + mark + text[start + 1 :]
        elif end > start:
            text = text[:start] + "\ufffd" + text[end:]
    return text


def _searched(text, tokenizer, mark):
    """A tokenizer that cannot report offsets: each declared control token found in `text`, or in its normalized form
    broken with `mark`."""
    for token in control_tokens(tokenizer):
        text = text.replace(token, token[0] + mark + token[1:])
    return text


def _broken(text, tokenizer, mark):
    """`text` with every control token the tokenizer reads broken with `mark`, re-read until none or _PASSES; None
    where `mark` does not do it (the normalizer removes it, or it forms another token)."""
    ids = control_ids(tokenizer)
    for _ in range(_PASSES):
        spans, found = _reading(tokenizer, text, ids)
        if spans is None:  # no offsets: the declared strings, then the tokenizer's own reading (or its normalizer's)
            text = _searched(text, tokenizer, mark)
            spans, found = _reading(tokenizer, text, ids)
            if found is None:
                found = any(token in _normalized(tokenizer, text) for token in control_tokens(tokenizer))
            return None if found else text
        if not spans:
            return text
        text = _break_at(text, spans, mark)
    return None


_SENTINEL = "envforgesentinel{}x"


def template_markers(tokenizer):
    """The turn syntax of the tokenizer's chat template that the tokenizer does not declare (T10-3: `[INST]`, Zephyr's
    `<|user|>`): the template rendered with a sentinel content per role, and the fixed text around the sentinels in
    pieces (split at blanks and at declared control tokens) that are not words; longest first."""
    render = getattr(tokenizer, "apply_chat_template", None)
    template = getattr(tokenizer, "chat_template", None)
    if not isinstance(template, str) or not callable(render):
        return []
    # Rendered once per template and token set (what the markers depend on), not once per observation: this runs on
    # every tool call of every rollout; a tokenizer that gains tokens or a template gets a new key (T10-2).
    tokens = control_tokens(tokenizer)
    key = (template, tuple(tokens))
    if key not in _TEMPLATE_MARKERS:
        if len(_TEMPLATE_MARKERS) >= 64:
            _TEMPLATE_MARKERS.clear()
        _TEMPLATE_MARKERS[key] = _rendered_markers(render, tokens)
    return _TEMPLATE_MARKERS[key]


# Template markers by (chat template, control tokens): template_markers' memo.
_TEMPLATE_MARKERS = {}


def _rendered_markers(render, tokens):
    """The non-word pieces around sentinel contents in the template rendered for each role, longest first."""
    roles = ("system", "user", "assistant", "user", "assistant", "user")
    rendered = []
    for first in (0, 1):  # some templates refuse a system turn
        messages = [{"role": r, "content": _SENTINEL.format(k)} for k, r in enumerate(roles) if k >= first]
        try:
            rendered.append(str(render(messages, tokenize=False, add_generation_prompt=True)))
        except Exception:  # noqa: BLE001 - a template's own refusal (raise_exception) is any exception
            continue
    split = "|".join([re.escape(_SENTINEL.format(k)) for k in range(len(roles))] + [r"\s+"])
    split += "".join("|" + re.escape(t) for t in tokens)
    pieces = {p for text in rendered for p in re.split(split, text) if _is_marker(p)}
    return sorted(pieces, key=len, reverse=True)


def _marks(tokenizer):
    """The breaks this tokenizer keeps, in BREAKS' order: one its normalizer removes (as it says, or as its reading of
    a broken control token shows) is left out. One tokenizer's text is written with one mark, so it decodes."""
    ids, tokens = control_ids(tokenizer), control_tokens(tokenizer)
    kept = []
    for mark in BREAKS:
        if mark not in _normalized(tokenizer, "a" + mark + "b"):
            continue
        if tokens and _reading(tokenizer, tokens[-1][0] + mark + tokens[-1][1:], ids)[1]:
            continue
        kept.append(mark)
    return kept or list(BREAKS)


def tokenizer_text(text, tokenizer):
    """Module text as `tokenizer` reads it as text, checked by the tokenizer itself (T8-2, T10-1): encoding the result
    (add_special_tokens=False) yields no control id. Each control token it reads is broken where it stands (offsets)
    by a word joiner, or, where the normalizer removes that, a visible separator; that mark already in the text is
    doubled, so the encoding is injective and decode_text gives the text back."""
    text = str(text)
    if tokenizer is None:
        return text
    markers = template_markers(tokenizer)
    for mark in _marks(tokenizer):
        escaped = text.replace(mark, mark + mark)
        for marker in markers:  # plain text to the tokenizer, turn syntax to the template (T10-3)
            escaped = escaped.replace(marker, marker[0] + mark + marker[1:])
        done = _broken(escaped, tokenizer, mark)
        if done is not None:
            return done
    return _dropped(text, tokenizer)


def _dropped(text, tokenizer):
    """The last resort where no break survives the tokenizer's normalizer: the text without what it reads as control
    tokens (their characters, or their ids), or nothing."""
    _log.warning("envforge: no break survives this tokenizer's normalizer, so control-token text was dropped (T10-1)")
    ids = control_ids(tokenizer)
    for _ in range(_PASSES):
        spans, found = _reading(tokenizer, text, ids)
        if not found:
            return text if found is not None else _searched(text, tokenizer, " ")
        if spans is None:
            kept = tokenizer(text, add_special_tokens=False)["input_ids"]
            text = tokenizer.decode([i for i in kept if i not in ids])
        else:
            text = "".join(c for k, c in enumerate(text) if not any(s <= k < e for s, e in spans))
    return ""


def decode_text(text, mark=JOINER):
    """A string tokenizer_text wrote with `mark`, as the module wrote it: a lone mark is a break and goes, a doubled
    one is the module's own."""
    if not isinstance(text, str) or mark not in text:
        return text
    return re.sub(re.escape(mark) + "+", lambda m: mark * (len(m.group(0)) // 2), text)


def module_text(text, tokenizer):
    """A string the model copied from tokenizer_text's output, as the module wrote it (T10-4): decoded with the mark
    tokenizer_text writes for this tokenizer."""
    return decode_text(text, _marks(tokenizer)[0])


@contextlib.contextmanager
def text_exits(tokenizer):
    """An exception leaving a shim toward the trainer carries tokenizer_text in its message too (T10-5): TRL writes
    str(exception) into the tool message the model reads."""
    try:
        yield
    except Exception as exc:
        exc.args = tuple(tokenizer_text(a, tokenizer) if isinstance(a, str) else a for a in exc.args)
        raise


def load_tokenizer(name):
    """The trainer's tokenizer from a model name or folder, as the trainer loads it (transformers' AutoTokenizer)."""
    try:
        from transformers import AutoTokenizer
    except ImportError as exc:
        raise ImportError(f"envforge: loading the tokenizer {name!r} needs transformers") from exc
    return AutoTokenizer.from_pretrained(name)


def use_tokenizer(tokenizer):
    """Names the trainer's tokenizer (an object, or a model name or folder) for shims that cannot reach it themselves
    (TRL's environment classes); ENVFORGE_TOKENIZER names it too. A name loads the published tokenizer: where the
    training script adds tokens (clone_chat_template, add_tokens), pass the object or the folder it was saved to."""
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
    """Arguments as the service expects them (T10-4): every string the model copied from what tokenizer_text and
    tokenizer_schema showed it, enum value or free text, is the module's text again (through nested objects and
    arrays); everything else is left as written."""
    if tokenizer is None:
        return args
    if isinstance(args, str):
        return module_text(args, tokenizer)
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(args, dict):
        props = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        return {k: service_args(props.get(k), v, tokenizer) for k, v in args.items()}
    if isinstance(args, list):
        return [service_args(schema.get("items"), v, tokenizer) for v in args]
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


def _ended(episode, answer, what):
    """Takes an ended episode's score and how it ended; one the environment failed (end "failed") is an item error,
    never a silent 0 (after the episode is marked done, so a raise under STRICT sends nothing more)."""
    episode.score = _score_of(answer, what)
    episode.end = answer.get("end")
    episode.done = True
    if episode.end == "failed":
        _item_error(answer.get("error") or {"code": "E_UNKNOWN", "message": "no error given"}, episode.id)


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
                _ended(self, answer, f"step {self.turn} of {self.id}")
            return str(answer.get("observation", ""))

    def finish(self):
        """The episode's score: an episode still running is ended first ("truncated"), scored as its state stands."""
        with self._lock:
            if not self.done:
                _ended(self, request("DELETE", self._path), f"ending {self.id}")
            elif STRICT and self.end == "failed":  # counted when it ended; a trainer that caught that raise (TRL
                # writes a tool's exception into its message) meets it again where it takes the reward
                raise EnvforgeItemError(f"episode {self.id} failed (the environment's failure): its score of 0 would "
                                        "train on a broken reward")
            return self.score


async def in_thread(fn, *args):
    """Blocking HTTP off the event loop, so a trainer's other rollouts run while one waits on the service."""
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)


def main(argv):
    """`python3 envforge_client.py safe-prompts TOKENIZER SOURCE TARGET`: an exported file with safe_prompts. TOKENIZER
    is the folder of the trainer's final tokenizer, the one it renders with: where the training script changes it
    (TRL's clone_chat_template, add_tokens, add_special_tokens), save it after that (save_pretrained) and pass that
    folder; a model's name gives its published tokenizer, which may lack those tokens."""
    if len(argv) != 4 or argv[0] != "safe-prompts":
        print(" ".join(main.__doc__.replace("`", "").split()), file=sys.stderr)
        return 2
    rows = safe_prompts_file(argv[2], argv[3], argv[1])
    print(f"{rows} rows: {argv[3]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
