"""Per-conversation inputs of budgets and trials: the agent's usage, and metric means.

`usage_results` adds the agent's tokens and cost (`evaluator.metrics.usage`) and,
when a budget or the trial rule names them, its turn and tool-call counts.
`metric_means` is what a conversation brings to its scenario's trials
(`evaluator.stats.trials`).
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING

from tracesim.evaluator.metrics.usage import agent_usage, count_metric
from tracesim.schemas import MetricResult
from tracesim.schemas.eval_config import EvalConfig

if TYPE_CHECKING:
    from tracesim.evaluator.pipeline.stages import ConversationWork

__all__ = ["metric_means", "usage_results"]


def _gated(config: EvalConfig) -> frozenset[str]:
    """Metric names a gate or the trial rule bounds (a `run_` total counts as its metric)."""
    rule = config.trial_pass
    names = {*config.thresholds, *config.max_thresholds, *rule.min_metrics, *rule.max_metrics}
    return frozenset(n.removeprefix("run_") for n in names)


def usage_results(work: ConversationWork, config: EvalConfig, num_calls: int) -> list[MetricResult]:
    """The agent's tokens and cost (when its spans carry token counts), and the turn and
    tool-call counts when a budget or the trial rule names them."""
    spans = chain.from_iterable(work.data.spans_by_turn.values())
    results = agent_usage(spans, prices=config.prices)
    gated = _gated(config)
    if "num_turns" in gated:
        results.append(count_metric("num_turns", len(work.data.turns), "turns"))
    if "num_tool_calls" in gated:
        results.append(count_metric("num_tool_calls", num_calls, "tool calls"))
    return results


def metric_means(work: ConversationWork) -> dict[str, float]:
    """Metric -> mean of its graded values in the conversation (turn and conversation level)."""
    sums: dict[str, list[float]] = {}
    for result in chain(chain.from_iterable(work.turn_results), work.conv_results):
        if result.value is not None:
            acc = sums.setdefault(result.name, [0.0, 0.0])
            acc[0] += result.value
            acc[1] += 1
    return {name: total / count for name, (total, count) in sums.items()}
