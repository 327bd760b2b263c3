"""envforge reward for TRL, written by `envforge export --format trl`.

    from reward import envforge_reward
    trainer = GRPOTrainer(..., reward_funcs=envforge_reward, train_dataset=single_turn_rows)

TRL passes every dataset column to reward functions as a keyword argument; envforge_reward reads `ground_truth`
(the identity {"env","version","seed","level"}) and scores the whole batch in one request to the envforge reward
service (POST /v1/verify) at $ENVFORGE_URL, else the export's default.
"""
import hashlib
import importlib.util
import os
import sys


def _load_client():
    """The export's own envforge_client.py, beside this file, under a name of its own (two exports can share a process)."""
    here = os.path.dirname(os.path.abspath(__file__))
    name = "envforge_client_" + hashlib.sha256(here.encode("utf-8")).hexdigest()[:12]
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, os.path.join(here, "envforge_client.py"))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


client = _load_client()

item_errors = client.item_errors


def completion_text(completion):
    """A completion is a string, or (conversational datasets) a list of messages: the assistant's text."""
    if isinstance(completion, str):
        return completion
    parts = []
    for message in completion or []:
        if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
            content = message.get("content", "")
            if isinstance(content, list):
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            parts.append(content if isinstance(content, str) else str(content))
    return "".join(parts)


def envforge_reward(prompts, completions, ground_truth, **kwargs):
    """TRL reward function: one float in [0, 1] per completion."""
    return client.verify(list(ground_truth), [completion_text(c) for c in completions])
