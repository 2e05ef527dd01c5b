"""SPEC §5's general rules for what real frameworks emit, one test per rule, on `spans` rows."""

from __future__ import annotations

import json

import pytest
from tracesim.evaluator import extract_tool_calls
from tracesim.evaluator.extract.readers.envelopes import unwrap_value

from tests.evaluator.rule_rows import (
    exception_events,
    model_row,
    responses_row,
    rule_row,
    tool_row,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('{"result": "Sunny"}', "Sunny"),  # Google ADK
        ('{"content": "Sunny"}', "Sunny"),  # UiPath-style, MCP
        ('{"result": {"temp": 21}}', '{"temp":21}'),
        ('[{"type": "text", "text": "Sun"}, {"type": "text", "text": "ny"}]', "Sunny"),
        (
            json.dumps(
                {
                    "lc": 1,
                    "type": "constructor",
                    "id": ["langchain", "schema", "messages", "ToolMessage"],
                    "kwargs": {"content": "Sunny", "tool_call_id": "c1", "type": "tool"},
                }
            ),
            "Sunny",
        ),
        ('{"type": "tool", "content": "Sunny", "tool_call_id": "c1", "name": "t"}', "Sunny"),
        ('{"output": {"content": "Sunny"}, "kwargs": {}}', "Sunny"),  # callback payload
        # a LangChain ToolMessage printed with str() (OpenLIT's LangChain tool spans)
        ("content='Sunny' name='t' tool_call_id='call_1'", "Sunny"),
        ("content=\"it's\" name='t' tool_call_id='c' status='success'", "it's"),
        ("content='Sunny' name='t'", "content='Sunny' name='t'"),  # no call id: not one
        # a Gemini FunctionResponse (OpenInference ADK output, google-genai parts)
        ('{"id": "adk-1", "name": "t", "response": {"result": "Sunny"}}', "Sunny"),
        ('{"name": "t", "response": {"temp": 21}}', '{"temp":21}'),
        (
            '{"name": "t", "response": "Sunny", "x": 1}',
            '{"name": "t", "response": "Sunny", "x": 1}',
        ),
        ('{"result": "<not specified>"}', None),  # a placeholder is no result
        ('{"temp": 21, "result": "x"}', '{"temp": 21, "result": "x"}'),  # not an envelope
        ('{"a": 1}', '{"a": 1}'),  # the tool's own JSON stays its text
    ],
)
def test_result_envelopes_are_unwrapped(value: str, expected: str | None) -> None:
    [call] = extract_tool_calls([tool_row(1, {"gen_ai.tool.call.result": value})])
    assert call.result == expected


def test_printed_tool_message_gives_the_call_id() -> None:
    printed = "content='ok' name='t' tool_call_id='call_3'"
    assert unwrap_value(printed).call_id == "call_3"


def test_function_response_gives_the_call_id() -> None:
    response = {"id": "adk-7", "name": "t", "response": {"result": "ok"}}
    assert unwrap_value(json.dumps(response)).call_id == "adk-7"


def test_tool_message_gives_the_call_id() -> None:
    message = {"type": "tool", "content": "ok", "tool_call_id": "call_9", "name": "t"}
    assert unwrap_value(json.dumps(message)).call_id == "call_9"
    [call] = extract_tool_calls([tool_row(1, {"output.value": json.dumps(message)})])
    assert (call.id, call.result) == ("call_9", "ok")


def test_placeholders_count_as_missing() -> None:
    [call] = extract_tool_calls(
        [
            tool_row(
                1,
                {
                    "gen_ai.tool.call.id": "<not specified>",
                    "gen_ai.tool.call.arguments": "",
                    "gcp.vertex.agent.tool_call_args": '{"city": "Paris"}',
                },
            )
        ]
    )
    assert (call.id, call.arguments) == ("", {"city": "Paris"})


def test_error_is_the_exception_message_not_the_traceback() -> None:
    traceback = (
        'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
        "    raise ValueError('order A1 not found')\nValueError: order A1 not found\n"
    )
    rows = [
        tool_row(
            1, {}, status_code="ERROR", status_message=traceback, events=exception_events("boom")
        ),
        tool_row(2, {}, status_code="ERROR", status_message=traceback),
        tool_row(3, {}, status_code="ERROR", status_message="ValueError: order A1 not found"),
        tool_row(4, {}, status_code="ERROR", status_message="Note: kept as it is"),
    ]
    assert [c.error for c in extract_tool_calls(rows)] == [
        "boom",
        "order A1 not found",
        "order A1 not found",
        "Note: kept as it is",
    ]


def test_bare_input_takes_the_arguments_of_the_request_it_answers() -> None:
    rows = [
        model_row(1, [("c1", "t", {"city": "Paris"})]),
        tool_row(2, {"input.value": "Paris"}),
        model_row(3, [("c2", "t", {"city": "Rome"}), ("c3", "t", {"city": "Oslo"})]),
        tool_row(4, {"input.value": "Oslo"}),
        tool_row(5, {"input.value": "Rome"}),
    ]
    calls = extract_tool_calls(rows)
    assert [(c.id, c.arguments) for c in calls] == [
        ("c1", {"city": "Paris"}),
        ("c3", {"city": "Oslo"}),
        ("c2", {"city": "Rome"}),
    ]


def test_an_id_of_its_own_takes_the_arguments_of_that_request() -> None:
    message = {"type": "tool", "content": "ok", "tool_call_id": "c2", "name": "t"}
    rows = [
        model_row(1, [("c1", "t", {"x": 1}), ("c2", "t", {"x": 2})]),
        tool_row(2, {"input.value": "2", "output.value": json.dumps(message)}),
    ]
    [call] = extract_tool_calls(rows)
    assert (call.id, call.arguments) == ("c2", {"x": 2})


def test_ids_recovered_within_the_conversation_from_the_latest_request_before() -> None:
    conversation = [
        model_row(1, [("w1", "t", {"a": 1})], trace=10),
        tool_row(2, {"gen_ai.tool.call.arguments": '{"a": 1}'}, trace=11),
        model_row(3, [("w2", "t", {"a": 1})], trace=12),
        tool_row(4, {"gen_ai.tool.call.arguments": '{"a": 1}'}, trace=13),
    ]
    first = extract_tool_calls([conversation[1]], context=conversation)
    second = extract_tool_calls([conversation[3]], context=conversation)
    assert (first[0].id, second[0].id) == ("w1", "w2")
    assert extract_tool_calls([conversation[3]])[0].id == ""  # no context: nothing to recover


def test_tool_fields_read_from_span_events_when_attributes_lack_them() -> None:
    events = [
        {
            "name": "gen_ai.tool.message",
            "attributes": {
                "gen_ai.tool.call.arguments": '{"q": 1}',
                "gen_ai.tool.call.result": "r",
            },
        }
    ]
    [call] = extract_tool_calls([tool_row(1, {}, events=json.dumps(events))])
    assert (call.arguments, call.result) == ({"q": 1}, "r")


def test_without_tool_spans_the_requested_calls_are_the_calls() -> None:
    conversation = [
        model_row(1, [("w1", "get_weather", {"city": "Paris"})], trace=1),
        responses_row(2, [("w1", '{"result": "Sunny"}')], trace=2),
    ]
    [call] = extract_tool_calls([conversation[0]], context=conversation)
    assert (call.id, call.name, call.arguments, call.result) == (
        "w1",
        "get_weather",
        {"city": "Paris"},
        "Sunny",
    )
    assert extract_tool_calls([conversation[1]], context=conversation) == []
    with_tool_span = [*conversation, tool_row(3, {"gen_ai.tool.call.id": "w1"}, trace=3)]
    assert extract_tool_calls([conversation[0]], context=with_tool_span) == []


def test_missing_result_read_from_a_later_tool_message_event() -> None:
    tool_message = {"name": "gen_ai.tool.message", "attributes": {"id": "c1", "content": "ok"}}
    rows = [
        tool_row(1, {"gen_ai.tool.call.id": "c1", "gen_ai.tool.call.arguments": "{}"}),
        rule_row(2, "chat m", {"gen_ai.operation.name": "chat"}, events=json.dumps([tool_message])),
    ]
    [call] = extract_tool_calls(rows)
    assert call.result == "ok"


def test_json_encoded_string_result_is_that_string() -> None:
    [call] = extract_tool_calls([tool_row(1, {"gen_ai.tool.call.result": '"Sunny, 21 C"'})])
    assert call.result == "Sunny, 21 C"


def test_nested_tool_spans_of_two_instrumentations_are_one_call() -> None:
    outer = rule_row(
        1,
        "agent.get_weather",
        {
            "openinference.span.kind": "TOOL",
            "tool.name": "get_weather",
            "input.value": '{"city": "Paris"}',
            "output.value": "order not found",
        },
    )
    inner = rule_row(
        2,
        "execute_tool get_weather",
        {"gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "c1"},
        parent_span_id=outer["span_id"],
        status_code="ERROR",
        status_message="ValueError: order not found",
    )
    [call] = extract_tool_calls([outer, inner])
    assert (call.id, call.arguments, call.result, call.error) == (
        "c1",
        {"city": "Paris"},
        None,
        "order not found",
    )


def test_model_span_naming_its_requested_call_is_not_a_tool_span() -> None:
    model = model_row(1, [("c1", "lookup", {"k": 1})])
    model["attributes"] = json.dumps(
        {
            **json.loads(model["attributes"]),
            "gen_ai.tool.name": "lookup",
            "gen_ai.tool.call.id": "c1",
        }
    )
    execution = rule_row(2, "lookup", {}, status_code="ERROR", status_message="KeyError: k")
    [call] = extract_tool_calls([model, execution])
    assert (call.id, call.name, call.arguments, call.error, call.span_id) == (
        "c1",
        "lookup",
        {"k": 1},
        "k",
        execution["span_id"],
    )


def test_an_answered_request_without_a_span_is_a_call_where_spans_lack_ids() -> None:
    conversation = [
        model_row(1, [("c1", "t", {"k": 1})]),
        tool_row(2, {"gen_ai.tool.call.arguments": '{"k": 1}', "gen_ai.tool.call.result": "ok"}),
        model_row(3, [("c2", "u", {"q": 2})]),
        responses_row(4, [("c1", "ok"), ("c2", "Error: nope")], trace=1),
    ]
    calls = extract_tool_calls(conversation, context=conversation)
    assert [(c.id, c.name, c.arguments, c.result) for c in calls] == [
        ("c1", "t", {"k": 1}, "ok"),
        ("c2", "u", {"q": 2}, "Error: nope"),
    ]
