"""`tool_latency`: how long tool calls took.

Details hold, per tool and overall, the call count and p50 / p95 / max of
`duration_ms` (linear interpolation between ranks). Without `max_ms` the
metric only reports: value None, passed None. With `max_ms`, value 1.0 and
passed True when every timed call took at most `max_ms`, else 0.0 / False.
Not graded when no call has a duration. A negative duration (a span that ends
before it starts: a clock or instrumentation fault) is no time: such calls are
counted as untimed and named in the reason, never taken as fast.
"""

from __future__ import annotations

from collections.abc import Sequence

from tracesim.evaluator.metrics.expected import not_graded
from tracesim.schemas import MetricResult, ToolCall

__all__ = ["percentile", "tool_latency"]

NAME = "tool_latency"


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) of ascending values, linearly interpolated."""
    if not sorted_values:
        raise ValueError("percentile of no values")
    position = (len(sorted_values) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(sorted_values) - 1)
    return sorted_values[low] + (sorted_values[high] - sorted_values[low]) * (position - low)


def _summary(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {
        "count": len(values),
        "p50_ms": percentile(values, 50),
        "p95_ms": percentile(values, 95),
        "max_ms": values[-1],
    }


def tool_latency(actual: Sequence[ToolCall], *, max_ms: float | None = None) -> MetricResult:
    """Per-tool latency statistics; a pass/fail value only when `max_ms` is given."""
    per_tool: dict[str, list[float]] = {}
    backwards: list[str] = []
    for call in actual:
        if call.duration_ms is None:
            continue
        if call.duration_ms < 0:
            backwards.append(call.name)
            continue
        per_tool.setdefault(call.name, []).append(float(call.duration_ms))
    untimed = (
        f"; {len(backwards)} call(s) not timed: their span ends before it starts "
        f"({', '.join(sorted(set(backwards)))})"
        if backwards
        else ""
    )
    if not per_tool:
        return not_graded(NAME, "no timed tool calls: no latency" + untimed)
    every = [d for durations in per_tool.values() for d in durations]
    overall = _summary(every)
    details = {
        "tools": {tool: _summary(durations) for tool, durations in per_tool.items()},
        "overall": overall,
        "max_allowed_ms": max_ms,
    }
    if backwards:
        details["ends_before_start"] = backwards
    if max_ms is None:
        return MetricResult(
            name=NAME,
            value=None,
            passed=None,
            reason=(
                f"{overall['count']} timed calls, p50 {overall['p50_ms']:.1f} ms, "
                f"max {overall['max_ms']:.1f} ms{untimed}"
            ),
            details=details,
        )
    slow = [
        {"tool": tool, "duration_ms": d}
        for tool, durations in per_tool.items()
        for d in durations
        if d > max_ms
    ]
    details["slow"] = slow
    return MetricResult(
        name=NAME,
        value=0.0 if slow else 1.0,
        passed=not slow,
        reason=f"{len(slow)} of {overall['count']} timed calls over {max_ms:g} ms{untimed}",
        details=details,
    )
