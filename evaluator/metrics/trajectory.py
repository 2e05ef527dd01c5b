"""`trajectory`: does the sequence of tool calls fit the expected trajectory?

A call fits an expected call when the names are equal and the arguments
agree under the argument mode (the expected call's own `arg_match_mode`
overrides the metric's `arg_mode`): ``ignore`` (names only), ``exact``
(canonically equal), ``subset`` (expected a deep subset of actual). An
expected call without args is compared by name only.

Modes (matching is optimal, never greedy):

| mode        | passes when                                              | value                       |
|-------------|----------------------------------------------------------|-----------------------------|
| `strict`    | same length, call i fits expected i for every i          | fitting positions / max(len) |
| `unordered` | a perfect matching exists (same multiset)                | matched pairs / max(len)     |
| `contains`  | every expected call matched to a distinct actual call    | matched / len(expected)      |
| `within`    | every actual call matched to a distinct expected call    | matched / len(actual)        |
| `in_order`  | expected is a subsequence of actual (DP, not greedy)     | LCS / len(expected)          |

A zero denominator means the condition holds vacuously: value 1.0.
Forbidden tools: any actual call to one fails the metric, sets the value to
0.0 (the match value stays in details) and lists the calls. Always graded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from evaluator.canonical import args_equal, is_deep_subset
from evaluator.matching import lcs_pairs, max_matching
from evaluator.metrics.expected import (
    ARG_MODES,
    ExpectedCall,
    ExpectedCallError,
    describe,
    expected_calls,
    not_graded,
)
from schemas import MetricResult, ToolCall

__all__ = ["MODES", "call_fits", "trajectory"]

NAME = "trajectory"

MODES = ("strict", "unordered", "contains", "within", "in_order")


def call_fits(want: ExpectedCall, call: ToolCall, *, arg_mode: str) -> bool:
    """True when `call` satisfies `want` under its (or the given) argument mode."""
    if call.name != want.name:
        return False
    mode = want.arg_match_mode or arg_mode
    if mode == "ignore" or want.args is None:
        return True
    if mode == "subset":
        return is_deep_subset(want.args, call.arguments)
    return args_equal(want.args, call.arguments)


def _ratio(matched: int, total: int) -> float:
    return 1.0 if total == 0 else matched / total


def trajectory(
    actual: Sequence[ToolCall],
    expected: Sequence[ToolCall | Mapping[str, Any]],
    *,
    mode: str = "unordered",
    arg_mode: str = "ignore",
    forbidden: Iterable[str] = (),
) -> MetricResult:
    """Compare the actual tool calls with the expected trajectory (see module doc)."""
    if mode not in MODES:
        return not_graded(
            NAME, f"unknown mode {mode!r}: one of {', '.join(MODES)}", label="invalid_expected"
        )
    if arg_mode not in ARG_MODES:
        return not_graded(
            NAME,
            f"unknown arg_mode {arg_mode!r}: one of {', '.join(ARG_MODES)}",
            label="invalid_expected",
        )
    try:
        wanted = expected_calls(expected)
    except ExpectedCallError as exc:
        return not_graded(NAME, f"invalid expected tool calls: {exc}", label="invalid_expected")

    def fits(i: int, j: int) -> bool:
        return call_fits(wanted[i], actual[j], arg_mode=arg_mode)

    n_expected, n_actual = len(wanted), len(actual)
    if mode == "strict":
        pairs = [(i, i) for i in range(min(n_expected, n_actual)) if fits(i, i)]
        value = _ratio(len(pairs), max(n_expected, n_actual))
        passed = n_expected == n_actual and len(pairs) == n_expected
    elif mode == "in_order":
        pairs = lcs_pairs(n_expected, n_actual, fits)
        value = _ratio(len(pairs), n_expected)
        passed = len(pairs) == n_expected
    else:
        pairs = max_matching(n_expected, n_actual, fits)
        matched = len(pairs)
        if mode == "unordered":
            value = _ratio(matched, max(n_expected, n_actual))
            passed = matched == n_expected == n_actual
        elif mode == "contains":
            value = _ratio(matched, n_expected)
            passed = matched == n_expected
        else:  # within
            value = _ratio(matched, n_actual)
            passed = matched == n_actual

    matched_expected = {i for i, _ in pairs}
    matched_actual = {j for _, j in pairs}
    banned = set(forbidden)
    forbidden_calls = [describe(c.name, c.arguments) for c in actual if c.name in banned]
    match_value = value
    reason = f"{mode}: {len(pairs)} matched of {n_expected} expected and {n_actual} actual calls (args: {arg_mode})"
    if forbidden_calls:
        value, passed = 0.0, False
        reason = f"forbidden tools called: {', '.join(forbidden_calls)}; " + reason
    return MetricResult(
        name=NAME,
        value=min(1.0, max(0.0, value)),
        passed=passed,
        reason=reason,
        details={
            "mode": mode,
            "arg_mode": arg_mode,
            "match_value": match_value,
            "pairs": [
                {
                    "expected": describe(wanted[i].name, wanted[i].args),
                    "actual": describe(actual[j].name, actual[j].arguments),
                    "expected_index": i,
                    "actual_index": j,
                }
                for i, j in pairs
            ],
            "missing": [
                describe(w.name, w.args) for i, w in enumerate(wanted) if i not in matched_expected
            ],
            "extra": [
                describe(c.name, c.arguments)
                for j, c in enumerate(actual)
                if j not in matched_actual
            ],
            "forbidden": forbidden_calls,
        },
    )
