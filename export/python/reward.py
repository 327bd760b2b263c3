"""envforge reward for TRL, written by `envforge export --format trl`.

    from reward import envforge_reward
    trainer = GRPOTrainer(..., reward_funcs=envforge_reward, train_dataset=single_turn_rows)

TRL passes every dataset column to reward functions as a keyword argument; envforge_reward reads `ground_truth`
(the identity {"env","version","seed","level"}) and scores the whole batch in one request to the envforge reward
service (POST /v1/verify) at $ENVFORGE_URL, else the export's default.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the client beside this file, even with another export loaded
client = __import__("envforge_client").client_for(__file__)

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
