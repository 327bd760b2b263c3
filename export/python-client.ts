// The HTTP client every Python reward shim embeds. It fails loudly rather than train on a silent 0: once
// per process it checks that the service serves the export's environments (name, version, code hash),
// it raises when the service stays down or answers an item with an identity error (E_UNKNOWN_ENV,
// E_LEVEL_RANGE: the dataset and the service disagree), and it logs every other per-item error code
// once and counts it (item_errors()); ENVFORGE_STRICT=1 raises on those too.
import type { ShimEnv } from './contract.js';
import { pyString } from './shims/python.js';


/** Item error codes that mean the row's identity does not exist on the service: never a score of 0. */
const IDENTITY_ERROR_CODES = ['E_UNKNOWN_ENV', 'E_LEVEL_RANGE'] as const;

/** The reward service's client with verify(): what the single-turn reward shims embed. */
export function pythonClient(serviceUrl: string, envs: readonly ShimEnv[]): string {
  return `${pythonTransport(serviceUrl, envs)}
${PYTHON_VERIFY}`;
}

/** The transport every shim embeds: settings, retries with backoff (honouring retry-after), the manifest check. */
export function pythonTransport(serviceUrl: string, envs: readonly ShimEnv[]): string {
  const manifest = JSON.stringify(envs.map(({ name, version, hash }) => ({ name, version, hash })));
  return `import json
import logging
import os
import threading
import time
import urllib.error
import urllib.request

DEFAULT_URL = ${pyString(serviceUrl)}
URL = os.environ.get("ENVFORGE_URL", DEFAULT_URL).rstrip("/")
TIMEOUT = float(os.environ.get("ENVFORGE_TIMEOUT", "60"))
RETRIES = int(os.environ.get("ENVFORGE_RETRIES", "5"))
BACKOFF = float(os.environ.get("ENVFORGE_BACKOFF", "0.5"))
BATCH = int(os.environ.get("ENVFORGE_BATCH", "256"))
CHECK_MANIFEST = os.environ.get("ENVFORGE_CHECK_MANIFEST", "1") != "0"
STRICT = os.environ.get("ENVFORGE_STRICT", "0") == "1"

# The environments this export's rows come from: the service must serve exactly these (name, version, code).
MANIFEST = json.loads(${pyString(manifest)})
IDENTITY_ERRORS = frozenset(${pyString(IDENTITY_ERROR_CODES.join(' '))}.split())

_lock = threading.Lock()
_checked = False
_log = logging.getLogger("envforge")


class EnvforgeServiceError(RuntimeError):
    """The reward service could not be reached or answered something unusable."""


class EnvforgeManifestError(EnvforgeServiceError):
    """The reward service does not serve the environments this export was made from."""


class EnvforgeItemError(EnvforgeServiceError):
    """The service could not score an item: its identity is unknown there (or any item error, with ENVFORGE_STRICT=1)."""


def _send(method, url, body, headers=None):
    """One HTTP exchange (the standard library only: no package to install beside a trainer): status, headers, body."""
    data = None if body is None else json.dumps(body).encode("utf-8")
    # A body type only with a body: a DELETE that names one and sends nothing is a malformed request.
    kind = {} if data is None else {"content-type": "application/json"}
    request = urllib.request.Request(url, data=data, method=method, headers={**kind, "accept": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, response.headers, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read().decode("utf-8", "replace")


def _request(method, path, body=None, on_status=None, headers=None):
    """A JSON request with retries on connection errors, 408, 429 and 5xx; on_status(status, text) may answer a non-200 itself."""
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
            error = EnvforgeServiceError(f"{url} answered HTTP {status}: {text[:500]}")
            if status not in (408, 429) and status < 500:
                raise error
            retry_after = (answer_headers.get("retry-after", "") if answer_headers is not None else "") or ""
            if retry_after.replace(".", "", 1).isdigit():
                wait = max(wait, min(float(retry_after), 30.0))
        if attempt < RETRIES:
            time.sleep(wait)
            delay = min(delay * 2, 8.0)
    raise EnvforgeServiceError(f"the envforge reward service at {URL} failed {RETRIES + 1} times (set ENVFORGE_URL?): {error}")


def check_manifest():
    """Once per process: the service must serve every environment of this export, with the same code."""
    global _checked
    if _checked or not CHECK_MANIFEST:
        return
    with _lock:
        if _checked:
            return
        answer = _request("GET", "/v1/envs?versions=all")
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
                other_code.append(f"{env['name']}@{env['version']} is served with other code (hash {str(served[key])[:12]}, the export's {env['hash'][:12]})")
        problems = other_code + missing
        if problems:
            more = f" and {len(problems) - 5} more" if len(problems) > 5 else ""
            raise EnvforgeManifestError(
                f"the reward service at {URL} does not serve the environments this export was made from: {'; '.join(problems[:5])}{more}. "
                "Start envforge serve --library <the library the export came from> and point ENVFORGE_URL at it "
                "(ENVFORGE_CHECK_MANIFEST=0 skips this check)."
            )
        _checked = True
`;
}

/** verify() and its per-item error accounting (IDENTITY_ERRORS and STRICT come from the transport). */
const PYTHON_VERIFY = `
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
        raise EnvforgeItemError(f"{URL}/v1/verify could not score an item: {code}: {message} (a score of 0 would train on a broken reward)")
    if first:
        _log.warning("envforge: an item scored 0 because of %s: %s (logged once per code; item_errors() counts them)", code, message)


def _ground_truth(value):
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def verify(ground_truths, responses):
    """Scores responses against envforge identities; one float in [0, 1] per item."""
    check_manifest()
    items = [{"ground_truth": _ground_truth(g), "response": r if isinstance(r, str) else str(r)} for g, r in zip(ground_truths, responses)]
    scores = []
    for start in range(0, len(items), BATCH):
        part = items[start:start + BATCH]
        answer = _request("POST", "/v1/verify", {"items": part})
        results = answer.get("results") if isinstance(answer, dict) else None
        if not isinstance(results, list) or len(results) != len(part):
            raise EnvforgeServiceError(f"/v1/verify answered {len(results) if isinstance(results, list) else 'no'} results for {len(part)} items")
        for result in results:
            if isinstance(result, dict) and result.get("error") is not None:
                _item_error(result["error"])
            score = result.get("score") if isinstance(result, dict) else None
            scores.append(float(score) if isinstance(score, (int, float)) and not isinstance(score, bool) else 0.0)
    return scores
`;
