"""`trajectory`: does the sequence of tool calls fit the expected trajectory?

Default: ``order="strict"``, ``arg_mode="exact"`` (the safe default, as
agentevals and ADK: same calls, same order, same arguments; calls one model
message made in parallel may come in any order). A call fits an expected
call when the tool names agree (after `normalize_name`; by call id when the
expected call gives one) and the arguments agree under the argument mode
(see `evaluator.metrics.vocabulary`; the expected call's own `arg_mode`
overrides the metric's, `arg_matchers` override per tool). An expected call
without args is compared by name only.

| order       | passes when                                              | value                        |
|-------------|----------------------------------------------------------|------------------------------|
| `strict`    | same length, call i fits expected i (groups: any order)  | fitting positions / max(len) |
| `unordered` | a perfect matching exists (same multiset)                | matched pairs / max(len)     |
| `contains`  | every expected call matched to a distinct actual call    | matched / len(expected)      |
| `within`    | every actual call matched to a distinct expected call    | matched / len(actual)        |
| `in_order`  | expected is a subsequence of actual (DP, not greedy)     | LCS / len(expected)          |

Under ``partial_credit`` "matched" sums each pair's score and passing needs
every pair at 1.0. ``all_or_nothing``: value 1.0 when passed, else 0.0.
`expected=None`: not graded (only the forbidden tools are checked, when
given); ``[]``: passes only when no tool was called.
Forbidden tools: any actual call to one fails the metric, sets the value to
0.0 (the match value stays in details) and lists the calls.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from tracesim.evaluator.calls.matching import max_matching
from tracesim.evaluator.metrics.argmatch import ArgMatcherError
from tracesim.evaluator.metrics.expected import (
    ExpectedCall,
    ExpectedCallError,
    describe,
    expect_no_calls,
    expected_calls,
    not_graded,
)
from tracesim.evaluator.metrics.pairing import CallScorer, pair_calls, plain_fits
from tracesim.evaluator.metrics.vocabulary import (
    ARG_MODES,
    ORDERS,
    VocabularyError,
    normalize_name,
    resolve_arg_mode,
    resolve_order,
)
from tracesim.schemas import MetricResult, ToolCall

__all__ = ["MODES", "call_fits", "trajectory"]

NAME = "trajectory"

MODES = ORDERS
"""Deprecated name of `vocabulary.ORDERS`."""

_ORDER_SET = frozenset(ORDERS)
_MATCHING_ORDERS = frozenset({"unordered", "contains", "within"})
_ARG_MODE_SET = frozenset(ARG_MODES)


@lru_cache(maxsize=256)
def _normalised(banned: tuple[str, ...]) -> frozenset[str]:
    """Forbidden tool names, normalised once per distinct list."""
    return frozenset(normalize_name(name) for name in banned)


def call_fits(want: ExpectedCall, call: ToolCall, *, arg_mode: str) -> bool:
    """True when `call` fully satisfies `want` under its (or the given) argument mode."""
    return CallScorer(arg_mode=resolve_arg_mode(arg_mode)).score(want, call) >= 1.0


def _ratio(matched: float, total: int) -> float:
    return 1.0 if total == 0 else matched / total


def _invalid(reason: str) -> MetricResult:
    return not_graded(NAME, reason, label="invalid_expected")


def trajectory(
    actual: Sequence[ToolCall],
    expected: Sequence[ToolCall | Mapping[str, Any] | str] | None,
    *,
    order: str | None = None,
    arg_mode: str = "exact",
    forbidden: Iterable[str] = (),
    all_or_nothing: bool = False,
    arg_matchers: Mapping[str, Any] | None = None,
    mode: str | None = None,
) -> MetricResult:
    """Compare the actual tool calls with the expected trajectory (see module doc).

    `mode` is the deprecated name of `order`.
    """
    order = order or mode or "strict"
    try:
        if order not in _ORDER_SET:
            order = resolve_order(order)
        if arg_mode not in _ARG_MODE_SET:
            arg_mode = resolve_arg_mode(arg_mode)
        scorer = CallScorer.for_mode(arg_mode, arg_matchers)
    except (VocabularyError, ArgMatcherError) as exc:
        return _invalid(str(exc))
    banned = forbidden if type(forbidden) is tuple else tuple(forbidden)
    forbidden_calls: list[str] = []
    if banned:
        normalised = _normalised(banned)
        forbidden_calls = [
            describe(c.name, c.arguments)
            for c in actual
            if c.name in banned or normalize_name(c.name) in normalised
        ]
    if expected is None:
        if not banned:
            return not_graded(NAME, "no expected trajectory given")
        return MetricResult(
            name=NAME,
            value=0.0 if forbidden_calls else 1.0,
            passed=not forbidden_calls,
            reason=f"forbidden tools called: {', '.join(forbidden_calls)}"
            if forbidden_calls
            else "no forbidden tool called (no expected trajectory given)",
            details={"order": order, "arg_mode": arg_mode, "forbidden": forbidden_calls},
        )
    try:
        wanted = expected_calls(expected)
    except ExpectedCallError as exc:
        return _invalid(f"invalid expected tool calls: {exc}")
    if not wanted:
        result = expect_no_calls(NAME, actual)
        result.details.update(order=order, arg_mode=arg_mode, forbidden=forbidden_calls)
        return result

    if order in _MATCHING_ORDERS and scorer.plain and not scorer.uses_weights(wanted):
        # the common case, kept lean: 0/1 fits, cardinality matching
        pairs = max_matching(len(wanted), len(actual), plain_fits(wanted, actual, arg_mode, False))
        scores, shape_ok = [1.0] * len(pairs), True
    else:
        pairs, scores, shape_ok = pair_calls(wanted, actual, scorer, order=order)
    matched = sum(scores)
    full = len(scores) if matched == len(scores) else sum(1 for s in scores if s >= 1.0)
    n_expected, n_actual = len(wanted), len(actual)
    if order in ("strict", "unordered"):
        value = _ratio(matched, max(n_expected, n_actual))
        passed = shape_ok and full == n_expected == n_actual
    elif order in ("contains", "in_order"):
        value = _ratio(matched, n_expected)
        passed = full == n_expected
    else:  # within
        value = _ratio(matched, n_actual)
        passed = full == n_actual
    if all_or_nothing:
        value = 1.0 if passed else 0.0

    matched_expected = {i for i, _ in pairs}
    matched_actual = {j for _, j in pairs}
    match_value = value
    reason = (
        f"{order}: {len(pairs)} matched of {n_expected} expected and {n_actual} actual calls "
        f"(args: {arg_mode})"
    )
    if order == "strict" and not shape_ok and full == n_expected == n_actual:
        reason += "; parallel groups differ from the expected ones"
    if forbidden_calls:
        value, passed = 0.0, False
        reason = f"forbidden tools called: {', '.join(forbidden_calls)}; " + reason
    return MetricResult(
        name=NAME,
        value=min(1.0, max(0.0, value)),
        passed=passed,
        reason=reason,
        details={
            "mode": order,
            "order": order,
            "arg_mode": arg_mode,
            "all_or_nothing": all_or_nothing,
            "match_value": match_value,
            "pairs": [
                {
                    "expected": describe(wanted[i].name, wanted[i].args),
                    "actual": describe(actual[j].name, actual[j].arguments),
                    "expected_index": i,
                    "actual_index": j,
                    "score": scores[k],
                }
                for k, (i, j) in enumerate(pairs)
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
