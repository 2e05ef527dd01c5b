"""`tool_error_rate`: the share of tool calls that failed.

Value = calls with an error / calls (lower is better, in [0, 1]). Not
graded when there were no calls: a rate of nothing is undefined, and 0.0
would read as "no errors". With `max_rate`, passed = value <= max_rate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tracesim.evaluator.metrics.expected import describe, not_graded
from tracesim.schemas import MetricResult, ToolCall

__all__ = ["tool_error_rate"]

NAME = "tool_error_rate"


def tool_error_rate(actual: Sequence[ToolCall], *, max_rate: float | None = None) -> MetricResult:
    """Errors / calls; None (not graded) when there are no calls."""
    if not actual:
        return not_graded(NAME, "no tool calls: no error rate")
    failed = [call for call in actual if call.error is not None]
    value = len(failed) / len(actual)
    per_tool = Counter(call.name for call in failed)
    return MetricResult(
        name=NAME,
        value=value,
        passed=None if max_rate is None else value <= max_rate,
        reason=f"{len(failed)} of {len(actual)} tool calls failed"
        + ("" if max_rate is None else f" (max rate {max_rate:g})"),
        details={
            "errors": len(failed),
            "calls": len(actual),
            "errors_per_tool": dict(per_tool),
            "failed": [{"call": describe(c.name, c.arguments), "error": c.error} for c in failed],
        },
    )
