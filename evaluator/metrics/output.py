"""`tool_call_output`: did the expected tools return the expected results?

Expected calls with an output are paired with actual calls of the same name
whose result matches (maximum bipartite matching). A result matches when
its text equals the expected string, or when both parse as JSON and are
canonically equal (`{"a": 1}` and `{"a":1.0}`); a non-string expected value
is compared with the result parsed as JSON; expected null matches a call
without a result. Value = matched / expected calls with an output;
``all_or_nothing=True`` (old ``strict=True``): all or nothing. Names
compare after `normalize_name`. Expected calls without an output are
skipped; not graded when none has one or `expected` is None; ``[]``:
passes only when no tool was called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tracesim.evaluator.calls.canonical import canonical, parse_json_text
from tracesim.evaluator.calls.matching import max_matching
from tracesim.evaluator.metrics.expected import (
    UNSPECIFIED,
    ExpectedCallError,
    expect_no_calls,
    expected_calls,
    not_graded,
)
from tracesim.evaluator.metrics.pairing import CallScorer
from tracesim.schemas import MetricResult, ToolCall

__all__ = ["output_matches", "tool_call_output"]

NAME = "tool_call_output"

_BY_NAME = CallScorer(arg_mode="ignore")


def output_matches(expected: Any, result: str | None) -> bool:
    """True when a call's `result` text satisfies the `expected` output."""
    if result is None:
        return expected is None
    if isinstance(expected, str):
        if result == expected:
            return True
        ok_expected, parsed_expected = parse_json_text(expected)
        ok_result, parsed_result = parse_json_text(result)
        return ok_expected and ok_result and canonical(parsed_expected) == canonical(parsed_result)
    ok, parsed = parse_json_text(result)
    return ok and canonical(parsed) == canonical(expected)


def tool_call_output(
    actual: Sequence[ToolCall],
    expected: Sequence[ToolCall | Mapping[str, Any]] | None,
    *,
    all_or_nothing: bool | None = None,
    strict: bool | None = None,
) -> MetricResult:
    """Score how many expected outputs were produced by a call of the same tool.

    `strict` is the deprecated spelling of `all_or_nothing`.
    """
    strict = bool(all_or_nothing if all_or_nothing is not None else strict)
    if expected is None:
        return not_graded(NAME, "no expected tool outputs given: nothing to compare")
    try:
        everything = expected_calls(expected)
    except ExpectedCallError as exc:
        return not_graded(NAME, f"invalid expected tool calls: {exc}", label="invalid_expected")
    if not everything:
        return expect_no_calls(NAME, actual)
    wanted = [c for c in everything if c.output is not UNSPECIFIED]
    if not wanted:
        return not_graded(NAME, "no expected tool outputs: nothing to compare")
    pairs = max_matching(
        len(wanted),
        len(actual),
        lambda i, j: (
            _BY_NAME.fits_name(wanted[i], actual[j])
            and output_matches(wanted[i].output, actual[j].result)
        ),
    )
    matched_to = dict(pairs)
    calls = []
    for i, want in enumerate(wanted):
        j = matched_to.get(i)
        seen = [c.result for c in actual if _BY_NAME.fits_name(want, c)]
        calls.append(
            {
                "name": want.name,
                "expected": want.output,
                "actual": actual[j].result if j is not None else (seen or None),
                "matched": j is not None,
            }
        )
    matched, total = len(pairs), len(wanted)
    value = (1.0 if matched == total else 0.0) if strict else matched / total
    return MetricResult(
        name=NAME,
        value=value,
        passed=matched == total,
        reason=f"{matched} of {total} expected tool outputs produced",
        details={
            "strict": strict,
            "all_or_nothing": strict,
            "calls": calls,
            "missing": [c["name"] for c in calls if not c["matched"]],
        },
    )
