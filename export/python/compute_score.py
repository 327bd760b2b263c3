"""envforge reward for verl, written by `envforge export --format verl` (custom_reward_function.path).

Single-turn rows: the response is scored by the envforge reward service (POST /v1/verify), which regenerates the
instance from the row's ground truth {"env","version","seed","level"} and runs the environment's verifier.
Episodic rows: envforge's agent loop (envforge_verl.py) played the row's episode on the service; its score reaches
compute_score as the trajectory's tool rewards, which verl's reward loop (the default, reward_model.use_reward_loop)
merges into extra_info. Rows whose data_source does not start with "envforge/" go to verl's built-in scorer.

    custom_reward_function.path=compute_score.py custom_reward_function.name=compute_score
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# the client beside this file, even with another export loaded
client = __import__("envforge_client").client_for(__file__)

DATA_SOURCE_PREFIX = "envforge/"
EPISODIC = frozenset(client.episodic_envs())
item_errors = client.item_errors


def _is_envforge(data_source):
    return isinstance(data_source, str) and data_source.startswith(DATA_SOURCE_PREFIX)


def _is_episodic(data_source):
    return _is_envforge(data_source) and data_source[len(DATA_SOURCE_PREFIX):] in EPISODIC


def _default_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    try:
        from verl.utils.reward_score import default_compute_score
    except ImportError:
        try:
            from verl.utils.reward_score import _default_compute_score as default_compute_score
        except ImportError as exc:
            raise ValueError(
                f"data_source {data_source!r} is not an envforge row, and verl's default scorer cannot be imported"
            ) from exc
    return default_compute_score(data_source, solution_str, ground_truth, extra_info, **kwargs)


def episode_score(data_source, extra_info):
    """An episodic row's score: the sum of its trajectory's tool rewards (envforge's agent loop gives 0 for every step
    but the one that ends the episode, and the episode's score when it ends: at its last step, or at release()).
    A row without them was not played by envforge's agent loop, or its reward path dropped them: an error, not a 0."""
    rewards = (extra_info or {}).get("tool_rewards")
    if not rewards:
        raise ValueError(
            f"{data_source}: the row carries no tool rewards, so its episode score never reached compute_score. "
            "Play episodic rows with envforge's agent loop "
            "(actor_rollout_ref.rollout.agent.agent_loop_config_path=agent_loop.yaml) and keep verl's reward loop "
            "(reward_model.use_reward_loop=True, the default): verl's legacy reward managers do not pass tool rewards."
        )
    return float(sum(rewards))


def compute_score(data_source, solution_str, ground_truth, extra_info=None, **kwargs):
    """verl's custom reward signature: the score in [0, 1] of one decoded response."""
    if not _is_envforge(data_source):
        return _default_score(data_source, solution_str, ground_truth, extra_info, **kwargs)
    if _is_episodic(data_source):
        return episode_score(data_source, extra_info)
    return client.verify([ground_truth], [solution_str])[0]


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None, **kwargs):
    """For verl's legacy batch reward manager (reward_model.use_reward_loop=False reward_model.reward_manager=batch):
    every single-turn envforge row of the batch in one request."""
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    mine = [i for i, source in enumerate(data_sources) if _is_envforge(source) and not _is_episodic(source)]
    scores = [None] * len(solution_strs)
    for i, score in zip(mine, client.verify([ground_truths[i] for i in mine], [solution_strs[i] for i in mine])):
        scores[i] = score
    for i, source in enumerate(data_sources):
        if scores[i] is None and _is_episodic(source):
            scores[i] = episode_score(source, extra_infos[i])
        elif scores[i] is None:
            scores[i] = _default_score(source, solution_strs[i], ground_truths[i], extra_infos[i], **kwargs)
    return scores
