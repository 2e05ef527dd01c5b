"""Cases ported from UiPath/uipath-python (packages/uipath/tests/evaluators:
test_evaluator_helpers.py, test_evaluator_methods.py tool-call evaluators,
test_documentation_examples.py tool-call examples).

Their helpers map to ours: tool_calls_order_score -> tool_call_order
(strict -> order="strict"), tool_calls_count_score -> tool_call_count,
tool_calls_args_score -> tool_call_args (strict -> all_or_nothing, subset ->
arg_mode="subset"), tool_calls_output_score -> tool_call_output; their span
extractors -> extract_tool_calls. A UiPath `id` is matched by our mapping
key "id". Cases that need UiPath span extraction (`{"content": ...}` output
envelope, `tool.synthesized`) belong to the extraction helper (conform).
"""

from __future__ import annotations

import pytest

from evaluator import extract_tool_calls
from evaluator.metrics import (
    normalize_name,
    tool_call_args,
    tool_call_count,
    tool_call_order,
    tool_call_output,
)
from evaluator.metrics.vocabulary import names_match
from schemas import ToolCall
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


# --- span extraction ---------------------------------------------------------------

SAMPLE = [
    {
        "tool.name": "tool1",
        "input.value": "{'arg1': 'value1', 'arg2': 42}",
        "output.value": '{"content": "result1"}',
    },
    {
        "tool.name": "tool2",
        "input.value": "{'param': 'test'}",
        "output.value": '{"content": "result2"}',
    },
    {"span.type": "other", "some.data": "value"},
    {"tool.name": "tool3", "input.value": "{}", "output.value": '{"content": ""}'},
]


def test_extract_names_empty() -> None:
    assert extract_tool_calls([]) == []


def test_extract_names_filters_non_tool_spans_in_order() -> None:
    assert [c.name for c in trace(*SAMPLE)] == ["tool1", "tool2", "tool3"]


@pytest.mark.spec_override(
    reason="SPEC §5: calls are ordered by span start time, then span id, not by input order"
)
def test_extract_names_preserves_input_order() -> None:
    rows = [span_row(a, i + 1) for i, a in enumerate(SAMPLE)]
    assert [c.name for c in extract_tool_calls(list(reversed(rows)))] == ["tool1", "tool2", "tool3"]


def test_extract_args_from_python_literal_and_empty() -> None:
    got = trace(*SAMPLE)
    assert [c.arguments for c in got] == [{"arg1": "value1", "arg2": 42}, {"param": "test"}, {}]


def test_extract_args_dict_input() -> None:
    (call,) = trace({"tool.name": "dict_tool", "input.value": {"direct": "dict", "num": 456}})
    assert call.arguments == {"direct": "dict", "num": 456}


@pytest.mark.spec_override(
    reason="SPEC §5: input that is not an object is kept as {'input': text} (or replaced by "
    "the model span's request), never silently dropped to {}"
)
def test_extract_args_invalid_input() -> None:
    (call,) = trace({"tool.name": "invalid_tool", "input.value": "invalid json {"})
    assert call.arguments == {"input": "invalid json {"}


def test_extract_args_missing_input() -> None:
    (call,) = trace({"tool.name": "missing_input_tool", "output.value": "result"})
    assert call.arguments == {}


@pytest.mark.spec_override(
    reason="SPEC §5: an empty value counts as missing: result None, not '' (UiPath: '')"
)
def test_extract_outputs_unwrap_content_envelope() -> None:
    assert [c.result for c in trace(*SAMPLE)] == ["result1", "result2", None]


@pytest.mark.spec_override(
    reason="SPEC §4: a call without an output has result None (no result), not ''"
)
def test_extract_outputs_missing_output() -> None:
    (call,) = trace({"tool.name": "missing_output_tool", "input.value": "{}"})
    assert call.result is None


def test_extract_skips_synthesized_tool_spans() -> None:
    got = trace(
        {
            "tool.name": "FlowExecution",
            "tool.synthesized": True,
            "input.value": '{"instanceId": "abc"}',
            "output.value": "Status: Completed",
        },
        {
            "tool.name": "ServiceTask: Autonomous Agent",
            "tool.synthesized": True,
            "input.value": "{}",
            "output.value": "Status: Completed",
        },
        {
            "tool.name": "web_search",
            "input.value": '{"query": "x"}',
            "output.value": '{"content": "ok"}',
        },
    )
    assert [c.name for c in got] == ["web_search"]


def test_extract_outputs_invalid_json_kept() -> None:
    (call,) = trace({"tool.name": "t", "input.value": "{}", "output.value": "not valid json {"})
    assert call.result == "not valid json {"


@pytest.mark.spec_override(
    reason="SPEC §5: only an envelope whose ONLY key is content/result is unwrapped; other "
    "objects are the tool's own value (UiPath: '')"
)
def test_extract_outputs_json_without_content() -> None:
    (call,) = trace(
        {"tool.name": "t", "output.value": '{"status": "success", "data": "some data"}'}
    )
    assert call.result == '{"status": "success", "data": "some data"}'


def test_extract_outputs_dict_output_unwrapped() -> None:
    (call,) = trace({"tool.name": "t", "output.value": {"content": "dict output value"}})
    assert call.result == "dict output value"


@pytest.mark.spec_override(
    reason="SPEC §5: an object that is not a one-key envelope is the tool's value (UiPath: '')"
)
def test_extract_outputs_dict_without_content() -> None:
    (call,) = trace({"tool.name": "t", "output.value": {"result": "some result", "status": "ok"}})
    assert call.result is not None and "some result" in call.result


def test_extract_outputs_non_string_non_dict() -> None:
    (call,) = trace({"tool.name": "t", "output.value": 12345})
    assert call.result == "12345"


def test_extract_outputs_json_array_kept() -> None:
    (call,) = trace({"tool.name": "t", "output.value": '["item1", "item2", "item3"]'})
    assert call.result == '["item1", "item2", "item3"]'


def test_extract_reads_tool_id() -> None:
    (call,) = trace(
        {
            "tool.name": "Web_Search",
            "tool.id": "7abae702-f898-4cc9-95f1-c365b9a857f9",
            "input.value": "{}",
        }
    )
    assert (call.id, call.name) == ("7abae702-f898-4cc9-95f1-c365b9a857f9", "Web_Search")


@pytest.mark.parametrize("falsy", [0, "", False])
def test_extract_preserves_falsy_tool_id(falsy) -> None:
    (call,) = trace({"tool.name": "f", "tool.id": falsy, "input.value": "{}"})
    assert call.id == str(falsy)


def test_extract_parses_json_literals() -> None:
    (call,) = trace({"tool.name": "t", "input.value": '{"a": true, "b": false, "c": null}'})
    assert call.arguments == {"a": True, "b": False, "c": None}


def test_extract_falls_back_to_python_literal() -> None:
    (call,) = trace({"tool.name": "t", "input.value": "{'a': 1, 'b': 'two'}"})
    assert call.arguments == {"a": 1, "b": "two"}


@pytest.mark.spec_override(
    reason="SPEC §5: a JSON string input is a bare string: kept as {'input': text}, not {}"
)
def test_extract_non_dict_parsed_input() -> None:
    (call,) = trace({"tool.name": "t", "input.value": '"hello"'})
    assert call.arguments == {"input": "hello"}


@pytest.mark.spec_override(
    reason="SPEC §5: unparseable input is kept as {'input': text} (UiPath's include_args=False "
    "shortcut returns {}); name and id are read either way"
)
def test_extract_garbage_input_keeps_name_and_id() -> None:
    (call,) = trace(
        {"tool.name": "t", "tool.id": "abc", "input.value": "this is not valid python or json{{{"}
    )
    assert (call.name, call.id) == ("t", "abc")
    assert call.arguments == {"input": "this is not valid python or json{{{"}


@pytest.mark.spec_override(reason="SPEC §4: ToolCall.id is a string, '' when absent (UiPath: None)")
def test_extract_id_absent() -> None:
    (call,) = trace({"tool.name": "legacy_tool", "input.value": "{}"})
    assert call.id == ""


# --- evaluators on a trace (test_evaluator_methods.py) ------------------------------------

TRACE = [
    {
        "tool.name": "tool1",
        "input.value": "{'arg1': 'value1'}",
        "output.value": '{"content": "output1"}',
    },
    {
        "tool.name": "tool2",
        "input.value": "{'arg2': 'value2'}",
        "output.value": '{"content": "output2"}',
    },
    {
        "tool.name": "tool1",
        "input.value": "{'arg1': 'value1'}",
        "output.value": '{"content": "output1"}',
    },
    {
        "tool.name": "tool2",
        "input.value": "{'arg2': 'value2'}",
        "output.value": '{"content": "output2"}',
    },
]


@pytest.mark.parametrize(
    ("expected", "order", "value"),
    [
        (["tool1", "tool2", "tool1", "tool2"], "strict", 1.0),
        (["tool1", "tool1", "tool2", "tool2"], "strict", 0.0),
        (["tool1", "tool1", "tool2", "tool2"], "in_order", 0.75),
        (["tool1", "tool2", "tool1", "tool2"], "strict", 1.0),
    ],
    ids=["perfect", "no_perfect_match", "lcs", "raw_criteria"],
)
def test_order_evaluator(expected, order, value) -> None:
    assert tool_call_order(trace(*TRACE), expected, order=order).value == value


@pytest.mark.parametrize(
    ("expected", "strict", "value"),
    [
        ({"tool1": ("=", 2), "tool2": ("=", 2)}, True, 1.0),
        ({"tool1": (">", 1), "tool2": (">", 1)}, True, 1.0),
        ({"tool1": ("=", 2), "tool2": ("=", 1)}, True, 0.0),
        ({"tool1": ("=", 2), "tool2": ("=", 1)}, False, 0.5),
        ({"tool1": ["=", 2], "tool2": ["=", 2]}, True, 1.0),
    ],
    ids=["exact", "gt", "no_exact_match", "partial", "raw_criteria"],
)
def test_count_evaluator(expected, strict, value) -> None:
    assert tool_call_count(trace(*TRACE), expected, all_or_nothing=strict).value == value


@pytest.mark.parametrize(
    ("expected", "strict", "value"),
    [
        (
            [
                tc("tool1", arg1="value1"),
                tc("tool2", arg2="value2"),
                tc("tool1", arg1="value1"),
                tc("tool2", arg2="value2"),
            ],
            True,
            1.0,
        ),
        (
            [
                tc("tool1", arg1="value1"),
                tc("tool2", arg2="value1"),
                tc("tool1", arg1="value1"),
                tc("tool2", arg2="value2"),
            ],
            False,
            0.75,
        ),
        (
            [
                {"name": "tool1", "args": {"arg1": "value1"}},
                {"name": "tool2", "args": {"arg2": "value2"}},
                {"name": "tool1", "args": {"arg1": "value1"}},
                {"name": "tool2", "args": {"arg2": "value2"}},
            ],
            True,
            1.0,
        ),
    ],
    ids=["perfect", "partial", "raw_criteria"],
)
def test_args_evaluator(expected, strict, value) -> None:
    assert tool_call_args(trace(*TRACE), expected, all_or_nothing=strict).value == value


@pytest.mark.parametrize(
    ("expected", "strict", "value"),
    [
        pytest.param(
            [
                ("tool1", "output1"),
                ("tool2", "output2"),
                ("tool1", "output1"),
                ("tool2", "output2"),
            ],
            True,
            1.0,
            id="perfect",
        ),
        pytest.param(
            [
                ("tool1", "output1"),
                ("tool2", "wrong_output"),
                ("tool1", "output1"),
                ("tool2", "output2"),
            ],
            False,
            0.75,
            id="partial",
        ),
        pytest.param(
            [
                ("tool1", "wrong_output1"),
                ("tool2", "output2"),
                ("tool1", "output1"),
                ("tool2", "output2"),
            ],
            True,
            0.0,
            id="no_match_strict",
        ),
        pytest.param(
            [("tool1", "wrong_output1"), ("tool2", "output2")],
            False,
            0.5,
            id="partial_non_strict",
        ),
        pytest.param(
            [
                ("tool1", "output1"),
                ("tool2", "output2"),
                ("tool1", "output1"),
                ("tool2", "output2"),
            ],
            True,
            1.0,
            id="raw_criteria",
        ),
    ],
)
def test_output_evaluator(expected, strict, value) -> None:
    result = tool_call_output(trace(*TRACE), outs(*expected), all_or_nothing=strict)
    assert result.value == value


def test_output_evaluator_empty_criteria() -> None:
    assert tool_call_output(trace(*TRACE), []).value == 0.0


# --- documentation examples (test_documentation_examples.py) -------------------------------


@pytest.mark.parametrize(
    ("actual", "expected", "order", "value"),
    [
        (
            ["validate_user", "check_inventory", "create_order"],
            ["validate_user", "check_inventory", "create_order"],
            "in_order",
            1.0,
        ),
        (
            ["authenticate_user", "verify_permissions", "access_resource"],
            ["authenticate_user", "verify_permissions", "access_resource"],
            "strict",
            1.0,
        ),
        (
            ["search", "filter", "display"],
            ["search", "filter", "sort", "display"],
            "in_order",
            0.75,
        ),
        (
            ["begin_transaction", "validate_data", "update_records", "commit_transaction"],
            ["begin_transaction", "validate_data", "update_records", "commit_transaction"],
            "strict",
            1.0,
        ),
        (
            ["get_api_token", "fetch_user_data", "enrich_data", "post_to_webhook", "log_result"],
            ["get_api_token", "fetch_user_data", "enrich_data", "post_to_webhook", "log_result"],
            "in_order",
            1.0,
        ),
        (["init", "process", "cleanup"], ["init", "process", "cleanup"], "in_order", 1.0),
    ],
    ids=[
        "basic",
        "strict",
        "lcs_partial_credit",
        "db_transaction",
        "api_workflow",
        "default_criteria",
    ],
)
def test_doc_order(actual, expected, order, value) -> None:
    result = tool_call_order(trace(*({"tool.name": n} for n in actual)), expected, order=order)
    assert result.value == value
    if value < 1:
        assert result.details["longest_common_subsequence"] == ["search", "filter", "display"]


@pytest.mark.parametrize(
    ("actual", "expected", "strict"),
    [
        (
            ["fetch_data"] + ["process_item"] * 5 + ["send_notification"],
            {"fetch_data": ("=", 1), "process_item": ("=", 5), "send_notification": ("=", 1)},
            False,
        ),
        (
            ["validate", "retry_api", "log_event", "expensive_call"],
            {
                "validate": (">=", 1),
                "retry_api": ("<=", 3),
                "log_event": (">", 0),
                "expensive_call": ("<", 2),
            },
            False,
        ),
        (
            ["authenticate", "fetch_records", "close_connection"],
            {"authenticate": ("=", 1), "fetch_records": ("=", 1), "close_connection": ("=", 1)},
            True,
        ),
        (
            ["expensive_api_call", "database_query", "database_query", "llm_call"],
            {"expensive_api_call": ("<=", 1), "database_query": ("<=", 3), "llm_call": ("<=", 2)},
            False,
        ),
        (
            ["process_item", "validate_item", "save_result"] * 10,
            {"process_item": ("=", 10), "validate_item": ("=", 10), "save_result": ("=", 10)},
            False,
        ),
    ],
    ids=["basic", "operators", "strict_all_or_nothing", "redundant_calls", "loop"],
)
def test_doc_count(actual, expected, strict) -> None:
    got = trace(*({"tool.name": n} for n in actual))
    assert tool_call_count(got, expected, all_or_nothing=strict).value == 1.0


@pytest.mark.parametrize(
    ("spans", "expected", "kwargs", "value"),
    [
        (
            [
                (
                    "update_user",
                    "{'user_id': 123, 'fields': {'email': 'user@example.com'}, 'notify': True}",
                )
            ],
            [
                (
                    "update_user",
                    {"user_id": 123, "fields": {"email": "user@example.com"}, "notify": True},
                )
            ],
            {},
            1.0,
        ),
        (
            [
                (
                    "send_email",
                    "{'to': 'user@example.com', 'subject': 'Hello', 'body': 'Test message'}",
                )
            ],
            [
                (
                    "send_email",
                    {"to": "user@example.com", "subject": "Hello", "body": "Test message"},
                )
            ],
            {"all_or_nothing": True},
            1.0,
        ),
        (
            [
                (
                    "create_user",
                    "{'username': 'john_doe', 'email': 'john@example.com', 'role': 'admin', 'active': True}",
                )
            ],
            [("create_user", {"username": "john_doe", "email": "john@example.com"})],
            {"arg_mode": "subset"},
            1.0,
        ),
        (
            [
                ("fetch_data", "{'source': 'database', 'query': 'SELECT * FROM users'}"),
                ("process_data", "{'data': [{'id': 1}], 'operation': 'filter'}"),
                ("save_results", "{'destination': 'cache', 'ttl': 3600}"),
            ],
            [
                ("fetch_data", {"source": "database", "query": "SELECT * FROM users"}),
                ("process_data", {"data": [{"id": 1}], "operation": "filter"}),
                ("save_results", {"destination": "cache", "ttl": 3600}),
            ],
            {},
            1.0,
        ),
        (
            [
                (
                    "configure_service",
                    "{'service': 'api', 'config': {'host': 'api.example.com', 'port': 443, "
                    "'ssl': {'enabled': True, 'cert_path': '/path/to/cert'}}}",
                )
            ],
            [
                (
                    "configure_service",
                    {
                        "service": "api",
                        "config": {
                            "host": "api.example.com",
                            "port": 443,
                            "ssl": {"enabled": True, "cert_path": "/path/to/cert"},
                        },
                    },
                )
            ],
            {},
            1.0,
        ),
        (
            [
                ("validate_input", "{'data': {'user_id': 123}}"),
                ("fetch_user", "{'user_id': 999}"),
                ("update_profile", "{'user_id': 123, 'updates': {'name': 'John Doe'}}"),
            ],
            [
                ("validate_input", {"data": {"user_id": 123}}),
                ("fetch_user", {"user_id": 123}),
                ("update_profile", {"user_id": 123, "updates": {"name": "John Doe"}}),
            ],
            {},
            2 / 3,
        ),
    ],
    ids=["basic", "strict", "subset", "multiple", "nested", "proportional"],
)
def test_doc_args(spans, expected, kwargs, value) -> None:
    got = trace(*({"tool.name": n, "input.value": v} for n, v in spans))
    result = tool_call_args(got, [{"name": n, "args": a} for n, a in expected], **kwargs)
    assert result.value == pytest.approx(value, abs=0.01)


def _envelope(text: str) -> str:
    import json

    return json.dumps({"content": text})


@pytest.mark.parametrize(
    ("spans", "expected", "value"),
    [
        (
            [
                (
                    "get_user",
                    '{"user_id": 123, "name": "John Doe", "email": "john@example.com", "status": "active"}',
                )
            ],
            [
                (
                    "get_user",
                    '{"user_id": 123, "name": "John Doe", "email": "john@example.com", "status": "active"}',
                )
            ],
            1.0,
        ),
        (
            [("calculate", '{"result": 42, "operation": "multiply"}')],
            [("calculate", '{"result": 42, "operation": "multiply"}')],
            1.0,
        ),
        (
            [("fetch", '{"data": ["item1", "item2"]}'), ("process", '{"processed": true}')],
            [("fetch", '{"data": ["item1", "item2"]}'), ("process", '{"processed": true}')],
            1.0,
        ),
        (
            [("validate_input", '{"valid": false, "error": "Invalid email format"}')],
            [("validate_input", '{"valid": false, "error": "Invalid email format"}')],
            1.0,
        ),
        (
            [
                ("fetch_data", '{"records": 150, "status": "success"}'),
                ("process_data", '{"processed": 100, "errors": 5}'),
                ("save_results", '{"saved": 150, "location": "/data/results.csv"}'),
            ],
            [
                ("fetch_data", '{"records": 150, "status": "success"}'),
                ("process_data", '{"processed": 150, "errors": 0}'),
                ("save_results", '{"saved": 150, "location": "/data/results.csv"}'),
            ],
            2 / 3,
        ),
    ],
    ids=["basic", "strict", "multiple", "error_handling", "proportional"],
)
def test_doc_output(spans, expected, value) -> None:
    got = trace(*({"tool.name": n, "output.value": _envelope(o)} for n, o in spans))
    result = tool_call_output(got, [{"name": n, "output": o} for n, o in expected])
    assert result.value == pytest.approx(value, abs=0.01)
