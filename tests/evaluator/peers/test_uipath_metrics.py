"""Cases ported from UiPath/uipath-python (packages/uipath/tests/evaluators): their tool-call helper scores (test_evaluator_helpers.py): tool_calls_order_score -> tool_call_order
(strict -> order="strict"), tool_calls_count_score -> tool_call_count, tool_calls_args_score ->
tool_call_args (strict -> all_or_nothing, subset -> arg_mode="subset"), tool_calls_output_score ->
tool_call_output; a UiPath `id` is matched by our mapping key "id"."""

from __future__ import annotations

import pytest
from tracesim.evaluator import extract_tool_calls
from tracesim.evaluator.metrics import (
    normalize_name,
    tool_call_args,
    tool_call_count,
    tool_call_order,
    tool_call_output,
)
from tracesim.evaluator.metrics.vocabulary import names_match
from tracesim.schemas import ToolCall

from tests.evaluator.peers._common import span_row


def calls(*names: str) -> list[ToolCall]:
    return [ToolCall(name=n) for n in names]


def outs(*pairs) -> list[ToolCall]:
    return [ToolCall(name=n, result=o) for n, o in pairs]


def trace(*spans: dict) -> list[ToolCall]:
    """Extract the calls of UiPath-style spans (tool.name, input.value, output.value)."""
    return extract_tool_calls(
        [span_row(a, i + 1, a.get("tool.name", "span")) for i, a in enumerate(spans)]
    )


# --- tool_calls_order_score ----------------------------------------------------------


@pytest.mark.parametrize(
    ("actual", "expected", "strict", "check"),
    [
        ([], [], False, lambda v: v == 1.0),
        ([], ["tool1"], False, lambda v: v == 0.0),
        (["tool1"], [], False, lambda v: v == 0.0),
        (["tool1", "tool2", "tool3"], ["tool1", "tool2", "tool3"], False, lambda v: v == 1.0),
        (["tool1", "tool2", "tool3"], ["tool1", "tool2", "tool3"], True, lambda v: v == 1.0),
        (["tool1", "tool3", "tool2"], ["tool1", "tool2", "tool3"], False, lambda v: 0 < v < 1),
        (["tool2", "tool1"], ["tool1", "tool2"], True, lambda v: v == 0.0),
    ],
    ids=[
        "empty_both",
        "empty_actual",
        "empty_expected",
        "perfect",
        "perfect_strict",
        "partial",
        "mismatch_strict",
    ],
)
def test_order_score(actual, expected, strict, check) -> None:
    result = tool_call_order(calls(*actual), expected, order="strict" if strict else "in_order")
    assert check(result.value), result.reason


# --- tool_calls_count_score ----------------------------------------------------------


def counted(counts: dict[str, int]) -> list[ToolCall]:
    return [ToolCall(name=name) for name, n in counts.items() for _ in range(n)]


@pytest.mark.parametrize(
    ("actual", "expected", "strict", "value"),
    [
        ({}, {}, False, 1.0),
        ({}, {"tool1": ("==", 1)}, False, 0.0),
        ({"tool1": 1}, {}, False, 0.0),
        ({"tool1": 2, "tool2": 1}, {"tool1": ("==", 2), "tool2": ("==", 1)}, False, 1.0),
        ({"tool1": 2, "tool2": 0}, {"tool1": ("==", 2), "tool2": ("==", 1)}, False, 0.5),
        ({"tool1": 2, "tool2": 0}, {"tool1": ("==", 2), "tool2": ("==", 1)}, True, 0.0),
        ({"tool1": 5}, {"tool1": (">", 3)}, False, 1.0),
        ({"tool1": 5}, {"tool1": ("<=", 5)}, False, 1.0),
        ({"tool1": 5}, {"tool1": ("!=", 3)}, False, 1.0),
    ],
    ids=[
        "empty_both",
        "empty_actual",
        "empty_expected",
        "perfect",
        "partial",
        "mismatch_strict",
        "gt",
        "le",
        "ne",
    ],
)
def test_count_score(actual, expected, strict, value) -> None:
    assert tool_call_count(counted(actual), expected, all_or_nothing=strict).value == value


# --- tool_calls_args_score ----------------------------------------------------------


def tc(name, **args):
    return ToolCall(name=name, args=args)


@pytest.mark.parametrize(
    ("actual", "expected", "kwargs", "value"),
    [
        ([], [], {}, 1.0),
        ([], [tc("tool1", arg="val")], {}, 0.0),
        ([tc("tool1", arg="val")], [], {}, 0.0),
        ([tc("tool1", arg1="val1", arg2="val2")], [tc("tool1", arg1="val1", arg2="val2")], {}, 1.0),
        (
            [tc("tool1", arg1="val1", arg2="val2", extra="val")],
            [tc("tool1", arg1="val1", arg2="val2")],
            {"arg_mode": "subset"},
            1.0,
        ),
        ([tc("tool1", arg1="val1")], [tc("tool1", arg1="val1", arg2="val2")], {}, 0.0),
        (
            [tc("tool1", arg1="val1"), tc("tool2", arg2="val2")],
            [tc("tool1", arg1="val1"), tc("tool2", arg2="val2")],
            {},
            1.0,
        ),
        (
            [tc("tool1", arg1="val1"), tc("tool2", arg2="wrong")],
            [tc("tool1", arg1="val1"), tc("tool2", arg2="val2")],
            {"all_or_nothing": True},
            0.0,
        ),
    ],
    ids=[
        "empty_both",
        "empty_actual",
        "empty_expected",
        "exact",
        "subset",
        "mismatch",
        "multiple",
        "strict_mismatch",
    ],
)
def test_args_score(actual, expected, kwargs, value) -> None:
    assert tool_call_args(actual, expected, **kwargs).value == value


# --- tool_calls_output_score --------------------------------------------------------


@pytest.mark.parametrize(
    ("actual", "expected", "strict", "value"),
    [
        ([], [], False, 1.0),
        ([], [("tool1", "output1")], False, 0.0),
        ([("tool1", "output1")], [], False, 0.0),
        (
            [("tool1", "output1"), ("tool2", "output2")],
            [("tool1", "output1"), ("tool2", "output2")],
            False,
            1.0,
        ),
        (
            [("tool1", "output1"), ("tool2", "output2")],
            [("tool1", "output1"), ("tool2", "output2")],
            True,
            1.0,
        ),
        (
            [("tool1", "output1"), ("tool2", "wrong_output")],
            [("tool1", "output1"), ("tool2", "output2")],
            False,
            0.5,
        ),
        (
            [("tool1", "output1"), ("tool2", "wrong_output")],
            [("tool1", "output1"), ("tool2", "output2")],
            True,
            0.0,
        ),
        (
            [("tool1", "output1"), ("tool1", "output2")],
            [("tool1", "output1"), ("tool1", "output2")],
            False,
            1.0,
        ),
    ],
    ids=[
        "empty_both",
        "empty_actual",
        "empty_expected",
        "perfect",
        "perfect_strict",
        "partial",
        "mismatch_strict",
        "duplicate_names",
    ],
)
def test_output_score(actual, expected, strict, value) -> None:
    result = tool_call_output(outs(*actual), outs(*expected), all_or_nothing=strict)
    assert result.value == value


# --- id-aware and sanitised-name matching ------------------------------------------------


def test_args_match_by_id_when_names_differ() -> None:
    actual = [ToolCall(name="Web_Search", id="uuid-1", args={"q": "x"})]
    assert (
        tool_call_args(actual, [{"name": "Web Search", "id": "uuid-1", "args": {"q": "x"}}]).value
        == 1.0
    )


@pytest.mark.spec_override(
    reason="SPEC §4: our id is the model's tool-call id, which nearly every call carries; a "
    "name-keyed expectation must still match an id-bearing call (UiPath: id-only, 0.0)"
)
def test_args_no_name_fallback_when_actual_has_id() -> None:
    actual = [ToolCall(name="Web_Search", id="uuid-1", args={"q": "x"})]
    assert tool_call_args(actual, [tc("Web_Search", q="x")]).value == 1.0


def test_args_name_only_when_actual_has_no_id() -> None:
    assert tool_call_args([tc("Web_Search", q="x")], [tc("Web Search", q="x")]).value == 1.0


def test_args_no_match_when_ids_differ() -> None:
    actual = [ToolCall(name="Web_Search", id="uuid-A", args={"q": "x"})]
    expected = [{"name": "Web_Search", "id": "uuid-B", "args": {"q": "x"}}]
    assert tool_call_args(actual, expected).value == 0.0


def test_output_match_by_id() -> None:
    actual = [ToolCall(name="Web_Search", id="uuid-1", result="ok")]
    assert (
        tool_call_output(actual, [{"name": "Web Search", "id": "uuid-1", "output": "ok"}]).value
        == 1.0
    )


@pytest.mark.spec_override(
    reason="SPEC §4: calls are counted by tool name (an id is a per-call id, not a tool "
    "identity), so an id-bearing call is counted under its name too; an id key still counts"
)
def test_count_by_name_and_id() -> None:
    actual = [
        ToolCall(name="Web_Search", id="uuid-1"),
        ToolCall(name="Web_Search", id="uuid-1"),
        ToolCall(name="get_temp"),
    ]
    assert tool_call_count(actual, {"uuid-1": 2, "get_temp": 1}).value == 1.0
    assert tool_call_count(actual, {"Web_Search": 2}).value == 1.0  # UiPath: not counted by name


def test_order_with_ids_matches_id_keyed_expected() -> None:
    actual = [ToolCall(name="Web_Search", id="uuid-1"), ToolCall(name="Web_Search", id="uuid-1")]
    assert tool_call_order(actual, [{"id": "uuid-1"}, {"id": "uuid-1"}]).value == 1.0


@pytest.mark.spec_override(
    reason="SPEC §4: a name-keyed expectation matches id-bearing calls (UiPath: 0.0, and a "
    "mixed id/name expectation scores between 0 and 1)"
)
def test_order_with_ids_name_keyed_expected() -> None:
    actual = [ToolCall(name="Web_Search", id="uuid-1"), ToolCall(name="Web_Search", id="uuid-1")]
    assert tool_call_order(actual, ["Web_Search", "Web_Search"]).value == 1.0
    assert tool_call_order(actual, [{"id": "uuid-1"}, "Web_Search"]).value == 1.0


def test_order_with_ids_back_compat_when_id_absent() -> None:
    assert (
        tool_call_order(calls("get_temp", "get_humidity"), ["get_temp", "get_humidity"]).value
        == 1.0
    )


def _reference_sanitize(name: str) -> str:
    import re

    return re.sub(r"[^a-zA-Z0-9_-]", "", "_".join(name.split()))[:64]


@pytest.mark.parametrize(
    "raw",
    [
        "Web Search",
        "Google Sheets / Read",
        "Add Numbers",
        "tool with spaces and (parens)",
        "snake_case_tool",
        "kebab-case-tool",
        "alreadySanitised",
        " multiple whitespace ",
        "very-long-name-" + "x" * 100,
        "",
    ],
)
def test_normalize_matches_langchain_reference(raw) -> None:
    assert normalize_name(raw) == _reference_sanitize(raw)


def test_normalize_handles_none() -> None:
    assert normalize_name(None) == ""


def test_match_key_display_vs_sanitised() -> None:
    assert names_match("Web Search", "Web_Search")


@pytest.mark.spec_override(
    reason="SPEC §4: an id-bearing call still answers a name-keyed expectation "
    "(UiPath rejects 'Web Search' against an actual with id webSearch1)"
)
def test_match_key_id_wins_when_present() -> None:
    actual = [ToolCall(name="Web_Search", id="webSearch1")]
    assert tool_call_order(actual, [{"id": "webSearch1"}]).passed
    assert tool_call_order(actual, ["Web Search"]).passed


def test_match_key_mismatch_after_sanitising() -> None:
    assert not names_match("Image_Search", "Web_Search")


def test_calls_match_display_vs_sanitised() -> None:
    assert tool_call_args([tc("Web_Search")], [tc("Web Search")]).passed


def test_calls_match_id_equality_unchanged() -> None:
    actual = [ToolCall(name="Web_Search", id="webSearch1")]
    assert tool_call_args(actual, [{"name": "totally different", "id": "webSearch1"}]).passed


def test_calls_match_output_display_vs_sanitised() -> None:
    assert tool_call_output(
        outs(("Web_Search", "x")), [{"name": "Web Search", "output": "x"}]
    ).passed


def test_count_display_name_matches_sanitised_actual() -> None:
    assert (
        tool_call_count(calls("Web_Search", "Web_Search"), {"Web Search": ("==", 2)}).value == 1.0
    )


def test_count_id_keyed_expected_still_wins() -> None:
    actual = [ToolCall(name="Web_Search", id="webSearch1")]
    assert tool_call_count(actual, {"webSearch1": (">=", 1)}).value == 1.0
