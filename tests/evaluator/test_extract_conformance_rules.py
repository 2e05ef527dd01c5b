"""SPEC §5's rules for what real frameworks emit, one test per rule, on `spans` rows."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from evaluator import extract_tool_calls
from evaluator.extract_envelopes import unwrap_value

T0 = datetime(2025, 1, 1, 12, 0, 0)


def _row(n: int, name: str, attributes: dict, *, trace: int = 1, **extra) -> dict:
    row = {
        "trace_id": format(trace, "032x"),
        "span_id": format(n, "016x"),
        "parent_span_id": None,
        "name": name,
        "start_time": T0 + timedelta(seconds=n),
        "end_time": None,
        "duration_ms": 5.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": json.dumps(attributes),
        "events": "[]",
    }
    row.update(extra)
    return row


def _tool(n: int, attributes: dict, **extra) -> dict:
    return _row(n, "execute_tool t", {"gen_ai.tool.name": "t", **attributes}, **extra)


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
        ('{"result": "<not specified>"}', None),  # a placeholder is no result
        ('{"temp": 21, "result": "x"}', '{"temp": 21, "result": "x"}'),  # not an envelope
        ('{"a": 1}', '{"a": 1}'),  # the tool's own JSON stays its text
    ],
)
def test_result_envelopes_are_unwrapped(value: str, expected: str | None) -> None:
    [call] = extract_tool_calls([_tool(1, {"gen_ai.tool.call.result": value})])
    assert call.result == expected


def test_tool_message_gives_the_call_id() -> None:
    message = {"type": "tool", "content": "ok", "tool_call_id": "call_9", "name": "t"}
    assert unwrap_value(json.dumps(message)).call_id == "call_9"
    [call] = extract_tool_calls([_tool(1, {"output.value": json.dumps(message)})])
    assert (call.id, call.result) == ("call_9", "ok")


def test_placeholders_count_as_missing() -> None:
    [call] = extract_tool_calls(
        [
            _tool(
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


def test_langchain_tool_call_envelope_gives_arguments_and_id() -> None:
    value = {"name": "t", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}
    [call] = extract_tool_calls([_tool(1, {"input.value": json.dumps(value)})])
    assert (call.arguments, call.id) == ({"city": "Paris"}, "call_1")


def _exception(message: str) -> str:
    return json.dumps(
        [{"name": "exception", "attributes": {"exception.message": message, "exception.type": "E"}}]
    )


def test_error_is_the_exception_message_not_the_traceback() -> None:
    traceback = (
        'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\n'
        "    raise ValueError('order A1 not found')\nValueError: order A1 not found\n"
    )
    rows = [
        _tool(1, {}, status_code="ERROR", status_message=traceback, events=_exception("boom")),
        _tool(2, {}, status_code="ERROR", status_message=traceback),
        _tool(3, {}, status_code="ERROR", status_message="ValueError: order A1 not found"),
        _tool(4, {}, status_code="ERROR", status_message="Note: kept as it is"),
    ]
    assert [c.error for c in extract_tool_calls(rows)] == [
        "boom",
        "order A1 not found",
        "order A1 not found",
        "Note: kept as it is",
    ]


def _model(n: int, calls: list[tuple[str, str, dict]], *, trace: int = 1, **attrs) -> dict:
    parts = [{"type": "tool_call", "id": i, "name": name, "arguments": a} for i, name, a in calls]
    return _row(
        n,
        "chat m",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
            **attrs,
        },
        trace=trace,
    )


def test_bare_input_takes_the_arguments_of_the_request_it_answers() -> None:
    rows = [
        _model(1, [("c1", "t", {"city": "Paris"})]),
        _tool(2, {"input.value": "Paris"}),
        _model(3, [("c2", "t", {"city": "Rome"}), ("c3", "t", {"city": "Oslo"})]),
        _tool(4, {"input.value": "Oslo"}),
        _tool(5, {"input.value": "Rome"}),
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
        _model(1, [("c1", "t", {"x": 1}), ("c2", "t", {"x": 2})]),
        _tool(2, {"input.value": "2", "output.value": json.dumps(message)}),
    ]
    [call] = extract_tool_calls(rows)
    assert (call.id, call.arguments) == ("c2", {"x": 2})


def test_ids_recovered_within_the_conversation_from_the_latest_request_before() -> None:
    conversation = [
        _model(1, [("w1", "t", {"a": 1})], trace=10),
        _tool(2, {"gen_ai.tool.call.arguments": '{"a": 1}'}, trace=11),
        _model(3, [("w2", "t", {"a": 1})], trace=12),
        _tool(4, {"gen_ai.tool.call.arguments": '{"a": 1}'}, trace=13),
    ]
    first = extract_tool_calls([conversation[1]], context=conversation)
    second = extract_tool_calls([conversation[3]], context=conversation)
    assert (first[0].id, second[0].id) == ("w1", "w2")
    assert extract_tool_calls([conversation[3]])[0].id == ""  # no context: nothing to recover


def test_requests_read_from_adk_responses_and_span_events() -> None:
    adk = {"content": {"parts": [{"function_call": {"id": "a1", "name": "t", "args": {"k": 1}}}]}}
    choice = {
        "message": {"tool_calls": [{"id": "e1", "function": {"name": "u", "arguments": "{}"}}]}
    }
    rows = [
        _row(1, "call_llm", {"gcp.vertex.agent.llm_response": json.dumps(adk)}),
        _row(
            2,
            "chat",
            {"gen_ai.operation.name": "chat"},
            events=json.dumps([{"name": "gen_ai.choice", "attributes": choice}]),
        ),
        _tool(3, {"gen_ai.tool.call.arguments": '{"k": 1}'}),
        _row(4, "execute_tool u", {"gen_ai.tool.name": "u"}),
    ]
    assert [c.id for c in extract_tool_calls(rows)] == ["a1", "e1"]


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
    [call] = extract_tool_calls([_tool(1, {}, events=json.dumps(events))])
    assert (call.arguments, call.result) == ({"q": 1}, "r")


def test_mlflow_tool_span() -> None:
    row = _row(
        1,
        "get_weather",
        {
            "mlflow.spanType": '"TOOL"',
            "mlflow.spanInputs": '{"city": "Paris"}',
            "mlflow.spanOutputs": '"Sunny"',
        },
    )
    [call] = extract_tool_calls([row, _row(2, "chat", {"mlflow.spanType": '"CHAT_MODEL"'})])
    assert (call.name, call.arguments, call.result) == ("get_weather", {"city": "Paris"}, "Sunny")


def test_vercel_ai_sdk_tool_span() -> None:
    row = _row(
        1,
        "ai.toolCall",
        {
            "ai.toolCall.name": "get_weather",
            "ai.toolCall.id": "call_w1",
            "ai.toolCall.args": '{"city": "Paris"}',
            "ai.toolCall.result": '"Sunny"',
        },
    )
    [call] = extract_tool_calls([row])
    assert (call.name, call.id, call.arguments, call.result) == (
        "get_weather",
        "call_w1",
        {"city": "Paris"},
        "Sunny",
    )


def test_uipath_synthesized_container_is_not_a_call() -> None:
    rows = [
        _row(1, "tool get_weather", {"tool.name": "get_weather", "tool.synthesized": True}),
        _row(
            2,
            "get_weather",
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "get_weather",
                "output.value": '{"content": "Sunny"}',
            },
        ),
    ]
    [call] = extract_tool_calls(rows)
    assert (call.span_id, call.result) == (format(2, "016x"), "Sunny")
