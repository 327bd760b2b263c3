// The episode client the episodic Python shims (verl tools, TRL environments, OpenRLHF agents) embed after
// the transport of python-client.ts: start an episode from a row's identity, step it one tool call at a time
// (each step carries its turn number and each create an Idempotency-Key, so a retry after a lost answer is never
// applied twice), end and score it.
import type { ShimEnv } from './contract.js';
import { pythonTransport } from './python-client.js';

/** The transport and the episode client, the shared top of every episodic shim. */
export function pythonEpisodeClient(serviceUrl: string, envs: readonly ShimEnv[]): string {
  return `${pythonTransport(serviceUrl, envs)}
${PYTHON_EPISODES}`;
}

const PYTHON_EPISODES = `
import asyncio
import urllib.parse
import uuid

EPISODE_OVER = "The episode is over: no more tool calls are taken."


def identity_of(value):
    """A row's identity: the JSON string {"env","version","seed","level"} or a mapping with those keys."""
    if isinstance(value, (str, bytes)):
        value = json.loads(value)
    try:
        return {"env": str(value["env"]), "version": int(value["version"]), "seed": int(value["seed"]), "level": int(value["level"])}
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"not an envforge identity (env, version, seed, level): {value!r}") from exc


def _score_of(answer, what):
    score = answer.get("score") if isinstance(answer, dict) else None
    if not isinstance(score, (int, float)) or isinstance(score, bool):
        raise EnvforgeServiceError(f"{what} ended the episode without a score: {str(answer)[:300]}")
    return float(score)


def _refused_action(status, text):
    """A step the service refuses for its size (413) is the policy's error, not the trainer's: it becomes the observation."""
    if status != 413:
        return None
    try:
        message = json.loads(text)["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = "the tool call is too large"
    return f"error: {message}"


class Episode:
    """One episode on the envforge service, from reset to its score. Blocking: async trainers call it through in_thread."""

    def __init__(self, identity):
        check_manifest()
        self.identity = identity_of(identity)
        # One key per episode: a create retried after a lost answer gets the same episode, not a second one.
        answer = _request("POST", "/v1/episodes", self.identity, headers={"Idempotency-Key": uuid.uuid4().hex})
        if not isinstance(answer, dict) or not isinstance(answer.get("episode"), str):
            raise EnvforgeServiceError(f"{URL}/v1/episodes answered without an episode id: {str(answer)[:300]}")
        self.id = answer["episode"]
        self.prompt = str(answer.get("prompt", ""))
        self.tools = answer.get("tools") or []
        self.max_turns = answer.get("maxTurns")
        self.turn = 0
        self.done = False
        self.score = None
        self._path = "/v1/episodes/" + urllib.parse.quote(self.id, safe="")

    def step(self, tool, args):
        """One tool call; returns the observation. Once the episode has ended, nothing is sent."""
        if self.done:
            return EPISODE_OVER
        args = {} if args is None else args
        if not isinstance(tool, str) or not 0 < len(tool) <= 200 or not isinstance(args, dict):
            # The service refuses such a call outright (400): the policy hears why, and the episode stays where it was.
            return "error: a tool call needs the name of a tool and an object of arguments"
        answer = _request("POST", self._path + "/step", {"tool": tool, "args": args, "turn": self.turn + 1}, on_status=_refused_action)
        if isinstance(answer, str):
            return answer
        if not isinstance(answer, dict) or not isinstance(answer.get("turn"), int):
            raise EnvforgeServiceError(f"{URL}{self._path}/step answered without a turn: {str(answer)[:300]}")
        self.turn = answer["turn"]
        if answer.get("done"):
            self.score = _score_of(answer, f"step {self.turn} of {self.id}")
            self.done = True
        return str(answer.get("observation", ""))

    def finish(self):
        """The episode's score: an episode still running is ended first, and the service scores it as it stands."""
        if not self.done:
            self.score = _score_of(_request("DELETE", self._path), f"ending {self.id}")
            self.done = True
        return self.score


async def in_thread(fn, *args):
    """Blocking HTTP off the event loop, so a trainer's other rollouts run while one waits on the service."""
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)
`;
