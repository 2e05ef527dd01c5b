"""`tool_call_order`: were the expected tools called in the expected order?

Value = LCS(actual names, expected names) / len(expected): the share of the
expected sequence that appears, in order, within the actual calls (other
calls in between are allowed). ``strict=True``: 1.0 only when the actual
name sequence equals the expected one, else 0.0. Passed when the value is
1.0. Not graded when nothing is expected (an order of nothing says nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evaluator.matching import lcs_pairs
from evaluator.metrics.expected import ExpectedCallError, expected_calls, not_graded
from schemas import MetricResult, ToolCall

__all__ = ["tool_call_order"]

NAME = "tool_call_order"


def tool_call_order(
    actual: Sequence[ToolCall],
    expected: Sequence[ToolCall | Mapping[str, Any] | str],
    *,
    strict: bool = False,
) -> MetricResult:
    """Score the order of tool calls against the expected sequence of names.

    `expected` items may also be plain tool names.
    """
    try:
        wanted = [
            call.name
            for call in expected_calls({"name": i} if isinstance(i, str) else i for i in expected)
        ]
    except ExpectedCallError as exc:
        return not_graded(NAME, f"invalid expected tool calls: {exc}", label="invalid_expected")
    if not wanted:
        return not_graded(NAME, "no expected tool calls: no order to check")
    names = [call.name for call in actual]
    pairs = lcs_pairs(len(wanted), len(names), lambda i, j: wanted[i] == names[j])
    in_order = {i for i, _ in pairs}
    used = {j for _, j in pairs}
    if strict:
        value = 1.0 if names == wanted else 0.0
        reason = (
            "actual sequence equals the expected one"
            if value
            else "actual sequence differs from the expected one"
        )
    else:
        value = len(pairs) / len(wanted)
        reason = f"{len(pairs)} of {len(wanted)} expected calls appear in the expected order"
    return MetricResult(
        name=NAME,
        value=value,
        passed=value == 1.0,
        reason=reason,
        details={
            "strict": strict,
            "expected_order": wanted,
            "actual_order": names,
            "longest_common_subsequence": [wanted[i] for i, _ in pairs],
            "missing": [name for i, name in enumerate(wanted) if i not in in_order],
            "extra": [name for j, name in enumerate(names) if j not in used],
        },
    )
