"""Cases ported from UiPath/uipath-python (packages/uipath/tests/evaluators): their span extractors -> extract_tool_calls (the `{"content": ...}` output envelope,
`tool.synthesized` container spans)."""

from __future__ import annotations

import pytest
from tracesim.evaluator import extract_tool_calls
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
