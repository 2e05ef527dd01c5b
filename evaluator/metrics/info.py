"""`tool_call_stats`: informational counts, never a pass or a fail (ADK's efficiency metrics).

Value = the number of tool calls in the turn or conversation (a count, not
a 0..1 score); `passed` is always None and the label `informational`, so
gates and turn success ignore it unless a threshold names it. Details hold
the calls per tool, failed calls, distinct tools and repeated identical
calls (the same tool with the same arguments).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tracesim.evaluator.calls.canonical import canonical_args
from tracesim.evaluator.metrics.vocabulary import normalize_name
from tracesim.schemas import MetricResult, ToolCall

__all__ = ["INFORMATIONAL", "tool_call_stats"]

NAME = "tool_call_stats"

INFORMATIONAL = "informational"
"""The label of a result that reports and never grades pass/fail."""


def tool_call_stats(actual: Sequence[ToolCall]) -> MetricResult:
    """Count the calls (value), per tool, failed and repeated; no pass/fail."""
    per_tool = Counter(normalize_name(call.name) for call in actual)
    signatures = Counter((normalize_name(c.name), canonical_args(c.arguments)) for c in actual)
    repeated = sum(n - 1 for n in signatures.values() if n > 1)
    failed = sum(1 for call in actual if call.error is not None)
    return MetricResult(
        name=NAME,
        value=float(len(actual)),
        passed=None,
        label=INFORMATIONAL,
        reason=f"{len(actual)} tool calls to {len(per_tool)} tools "
        f"({failed} failed, {repeated} repeated)",
        details={
            "calls": len(actual),
            "per_tool": dict(per_tool),
            "distinct_tools": len(per_tool),
            "failed": failed,
            "repeated": repeated,
        },
    )
