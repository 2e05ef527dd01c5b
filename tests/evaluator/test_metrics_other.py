"""tool_call_order, tool_call_count, tool_call_output, tool_error_rate, tool_latency."""

from __future__ import annotations

import pytest
from tracesim.evaluator.metrics import (
    tool_call_count,
    tool_call_order,
    tool_call_output,
    tool_error_rate,
    tool_latency,
)
from tracesim.schemas import ToolCall


def t(
    name: str,
    *,
    result: str | None = None,
    error: str | None = None,
    ms: float | None = None,
    **args,
) -> ToolCall:
    return ToolCall(name=name, arguments=args, result=result, error=error, duration_ms=ms)


def names(*items: str) -> list[ToolCall]:
    return [t(n) for n in items]


# --- order ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("actual", "expected", "value"),
    [
        ("abc", "abc", 1.0),
        ("axbyc", "abc", 1.0),
        ("cba", "abc", 1 / 3),
        ("acb", "abc", 2 / 3),
        ("", "ab", 0.0),
    ],
)
def test_order_is_lcs_over_expected(actual, expected, value) -> None:
    result = tool_call_order(names(*actual), [{"name": n} for n in expected])
    assert result.value == pytest.approx(value)
    assert result.passed is (value == 1.0)


def test_order_strict_is_exact_sequence() -> None:
    assert tool_call_order(names("a", "b"), ["a", "b"], strict=True).value == 1.0
    assert tool_call_order(names("a", "x", "b"), ["a", "b"], strict=True).value == 0.0


def test_order_details_and_not_graded() -> None:
    result = tool_call_order(names("b", "x", "a"), [ToolCall(name="a"), ToolCall(name="b")])
    assert result.details["missing"] == ["b"] or result.details["missing"] == ["a"]
    assert tool_call_order(names("a"), None).value is None
    assert tool_call_order(names("a"), []).passed is False  # [] = expect no call


# --- count ----------------------------------------------------------------------


def test_count_plain_and_comparators() -> None:
    actual = names("search", "search", "fetch")
    expected = {"search": 2, "fetch": (">=", 1), "delete": ["==", 0], "book": [">", 0]}
    result = tool_call_count(actual, expected)
    assert result.value == 0.75
    assert result.passed is False
    assert result.details["tools"]["book"] == {"expected": "> 0", "actual": 0, "passed": False}
    assert tool_call_count(actual, expected, strict=True).value == 0.0


@pytest.mark.parametrize(
    "op,count,passed",
    [
        ("==", 2, True),
        ("!=", 2, False),
        (">=", 2, True),
        ("<=", 1, False),
        (">", 1, True),
        ("<", 3, True),
    ],
)
def test_each_comparator(op, count, passed) -> None:
    assert tool_call_count(names("s", "s"), {"s": (op, count)}).passed is passed


def test_count_invalid_and_empty() -> None:
    assert tool_call_count([], {"s": ("~", 1)}).label == "invalid_expected"
    assert tool_call_count([], {"s": True}).label == "invalid_expected"
    assert tool_call_count([], None).value is None
    assert tool_call_count([], {}).passed is True  # {} = "call no tool" (issue 13)


# --- output ---------------------------------------------------------------------


def test_output_text_json_and_optimal_pairing() -> None:
    actual = [t("w", result='{"temp": 21.0}'), t("w", result="sunny"), t("n", result="42")]
    expected = [
        {"name": "w", "output": "sunny"},
        {"name": "w", "output": {"temp": 21}},
        {"name": "n", "result": 42},
        {"name": "n"},  # no output: skipped
    ]
    result = tool_call_output(actual, expected)
    assert result.value == 1.0 and result.passed


def test_output_partial_strict_and_not_graded() -> None:
    actual = [t("w", result="rain")]
    expected = [ToolCall(name="w", result="sunny"), ToolCall(name="n", result="1")]
    result = tool_call_output(actual, expected)
    assert result.value == 0.0
    assert result.details["calls"][0]["actual"] == ["rain"]
    assert tool_call_output([t("w", result="sunny")], expected, strict=True).value == 0.0
    assert tool_call_output([t("w", result="sunny")], expected).value == 0.5
    assert tool_call_output(actual, [{"name": "w"}]).value is None


def test_output_string_never_equals_number_text_mismatch() -> None:
    assert tool_call_output([t("n", result='"1"')], [{"name": "n", "output": 1}]).value == 0.0
    assert tool_call_output([t("n", result=None)], [{"name": "n", "output": None}]).value == 1.0


# --- error rate -----------------------------------------------------------------


def test_error_rate() -> None:
    actual = [t("a"), t("b", error="boom"), t("b", error="again"), t("c")]
    result = tool_error_rate(actual)
    assert result.value == 0.5 and result.passed is None
    assert result.details["errors_per_tool"] == {"b": 2}
    assert tool_error_rate(actual, max_rate=0.5).passed is True
    assert tool_error_rate(actual, max_rate=0.25).passed is False
    assert tool_error_rate([]).value is None


# --- latency --------------------------------------------------------------------


def test_latency_statistics_and_threshold() -> None:
    actual = [t("a", ms=10), t("a", ms=20), t("a", ms=30), t("b", ms=100), t("c")]
    result = tool_latency(actual)
    assert result.value is None and result.passed is None
    assert result.details["tools"]["a"] == {
        "count": 3,
        "p50_ms": 20.0,
        "p95_ms": pytest.approx(29.0),
        "max_ms": 30.0,
    }
    assert "c" not in result.details["tools"]
    assert result.details["overall"]["max_ms"] == 100.0
    assert (tool_latency(actual, max_ms=100).value, tool_latency(actual, max_ms=100).passed) == (
        1.0,
        True,
    )
    slow = tool_latency(actual, max_ms=50)
    assert (slow.value, slow.passed) == (0.0, False)
    assert slow.details["slow"] == [{"tool": "b", "duration_ms": 100.0}]
    assert tool_latency([t("c")]).value is None


def test_latency_a_span_ending_before_it_starts_is_no_time() -> None:
    # a clock or instrumentation fault gives a negative duration: it must not count as a
    # fast call that lets a max_ms gate pass, and it must be said
    only_backwards = tool_latency([t("a", ms=-5000)], max_ms=100)
    assert only_backwards.passed is None and only_backwards.value is None
    assert "ends before it starts" in only_backwards.reason
    mixed = tool_latency([t("a", ms=-5000), t("b", ms=40)], max_ms=100)
    assert mixed.details["overall"]["count"] == 1
    assert mixed.details["ends_before_start"] == ["a"]
    assert "1 call(s) not timed" in mixed.reason
