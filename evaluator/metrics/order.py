"""`tool_call_order`: were the expected tools called in the expected order?

Value = LCS(actual names, expected names) / len(expected): the share of the
expected sequence that appears, in order, within the actual calls (other
calls in between are allowed). ``order="strict"`` (old ``strict=True``):
1.0 only when the actual name sequence equals the expected one (calls of
one parallel group in any order), else 0.0. ``all_or_nothing``: 1.0 only
when passed. Passed when the value is 1.0. Names compare after
`normalize_name`. `expected=None`: not graded; ``[]``: passes only when no
tool was called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tracesim.evaluator.calls.matching import lcs_pairs
from tracesim.evaluator.metrics.expected import (
    ExpectedCallError,
    expect_no_calls,
    expected_calls,
    not_graded,
)
from tracesim.evaluator.metrics.pairing import CallScorer, pair_calls
from tracesim.evaluator.metrics.vocabulary import VocabularyError, normalize_name, resolve_order
from tracesim.schemas import MetricResult, ToolCall

__all__ = ["tool_call_order"]

NAME = "tool_call_order"


_BY_NAME = CallScorer(arg_mode="ignore")


def tool_call_order(
    actual: Sequence[ToolCall],
    expected: Sequence[ToolCall | Mapping[str, Any] | str] | None,
    *,
    order: str | None = None,
    all_or_nothing: bool = False,
    strict: bool | None = None,
) -> MetricResult:
    """Score the order of tool calls against the expected sequence of names.

    `expected` items may be plain tool names. `order` is ``in_order``
    (default) or ``strict``; `strict=True` is its deprecated spelling.
    """
    try:
        order = resolve_order(order or ("strict" if strict else "in_order"))
    except VocabularyError as exc:
        return not_graded(NAME, str(exc), label="invalid_expected")
    if order not in ("in_order", "strict"):
        return not_graded(
            NAME,
            f"order {order!r}: tool_call_order takes in_order or strict",
            label="invalid_expected",
        )
    if expected is None:
        return not_graded(NAME, "no expected tool calls given: no order to check")
    try:
        calls = expected_calls(expected)
    except ExpectedCallError as exc:
        return not_graded(NAME, f"invalid expected tool calls: {exc}", label="invalid_expected")
    if not calls:
        return expect_no_calls(NAME, actual)
    wanted = [call.name for call in calls]
    names = [call.name for call in actual]
    if order == "in_order" and not any(call.id for call in calls):  # lean common case
        shape_ok = True
        pairs = lcs_pairs(
            len(wanted),
            len(names),
            lambda i, j: (
                wanted[i] == names[j] or normalize_name(wanted[i]) == normalize_name(names[j])
            ),
        )
    else:
        pairs, _, shape_ok = pair_calls(calls, actual, _BY_NAME, order=order)
    in_order = {i for i, _ in pairs}
    used = {j for _, j in pairs}
    if order == "strict":
        same = shape_ok and len(pairs) == len(wanted) == len(names)
        value = 1.0 if same else 0.0
        reason = (
            "actual sequence equals the expected one"
            if value
            else "actual sequence differs from the expected one"
        )
    else:
        value = len(pairs) / len(wanted)
        reason = f"{len(pairs)} of {len(wanted)} expected calls appear in the expected order"
    if all_or_nothing and value < 1.0:
        value = 0.0
    return MetricResult(
        name=NAME,
        value=value,
        passed=value == 1.0,
        reason=reason,
        details={
            "order": order,
            "strict": order == "strict",
            "all_or_nothing": all_or_nothing,
            "expected_order": wanted,
            "actual_order": names,
            "longest_common_subsequence": [wanted[i] for i, _ in pairs],
            "missing": [name for i, name in enumerate(wanted) if i not in in_order],
            "extra": [name for j, name in enumerate(names) if j not in used],
        },
    )
