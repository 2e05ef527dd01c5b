"""Attacks on the lane (`evaluator.extract.lane`): turns built to make its predicate claim
what the general evidence model (`extract_tool_calls`) reads differently.

Each attack is a concrete turn with the attribute names real instrumentations emit. When
the lane claims it, its calls must equal `extract_tool_calls`' (with the conversation as
context) field by field and the general audit must be empty: a claimed turn has nothing
unexplained. Attacks the lane declines stay here as guards for future predicate changes.
`test_lane_pipeline.py` evaluates the same turns stored in a DuckDB file with the lane on
and off.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import orjson
import pytest
from tracesim.evaluator.extract import ConversationSpans, extract_tool_calls
from tracesim.evaluator.extract.audit import Unexplained
from tracesim.evaluator.extract.lane import lane_calls

BASE = datetime(2025, 3, 1, 12, 0, 0)
TRACE = "a" * 32
OTHER_TRACE = "b" * 32
TURN = "0000000000000001"
STACK = (
    "Traceback (most recent call last):\n"
    '  File "/app/site-packages/opentelemetry/instrumentation/openai/wrappers.py", line 12, '
    "in wrapper\n    _set_response_attributes(span, response)\nKeyError: 'tool_calls'"
)


def row(
    span_id: str,
    parent: str | None,
    name: str,
    start_ms: int,
    attributes: dict[str, Any],
    *,
    events: list[dict[str, Any]] | None = None,
    status: str = "UNSET",
    message: str | None = None,
    trace: str = TRACE,
) -> dict[str, Any]:
    start = BASE + timedelta(milliseconds=start_ms)
    return {
        "trace_id": trace,
        "span_id": span_id,
        "parent_span_id": parent or None,
        "name": name,
        "start_time": start,
        "end_time": start + timedelta(milliseconds=50),
        "duration_ms": 50.0,
        "status_code": status,
        "status_message": message,
        "attributes": orjson.dumps(attributes).decode(),
        "events": orjson.dumps(events or []).decode(),
    }


def turn_span(**extra: Any) -> dict[str, Any]:
    return row(TURN, None, "tracesim.turn", 0, {"tracesim.turn_id": 0, **extra})


def tool(
    span_id: str,
    name: str,
    call_id: Any,
    args: Any,
    result: Any,
    start_ms: int,
    *,
    parent: str = TURN,
    extra: dict[str, Any] | None = None,
    **kw: Any,
) -> dict[str, Any]:
    """An OTel GenAI `execute_tool` span (`call_id`/`result` None: attribute absent)."""
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.call.arguments": args if isinstance(args, str) else json.dumps(args),
    }
    if call_id is not None:
        attributes["gen_ai.tool.call.id"] = call_id
    if result is not None:
        attributes["gen_ai.tool.call.result"] = result
    attributes.update(extra or {})
    return row(span_id, parent, f"execute_tool {name}", start_ms, attributes, **kw)


def chat(
    span_id: str,
    start_ms: int,
    requests: list[tuple[str, str, dict[str, Any]]],
    *,
    parent: str = TURN,
    trace: str = TRACE,
) -> dict[str, Any]:
    """A model span whose reply requests `requests` (id, name, arguments)."""
    parts = [{"type": "tool_call", "id": i, "name": n, "arguments": a} for i, n, a in requests]
    output = [{"role": "assistant", "parts": parts}]
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps(output)}
    return row(span_id, parent, "chat m", start_ms, attributes, trace=trace)


def reply(span_id: str, start_ms: int, text: str) -> dict[str, Any]:
    output = [{"role": "assistant", "parts": [{"type": "text", "content": text}]}]
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps(output)}
    return row(span_id, TURN, "chat m", start_ms, attributes)


def anthropic_input(span_id: str, start_ms: int, call_id: str, *, trace: str = TRACE) -> dict:
    """A later model input telling the model `call_id` failed (Anthropic `is_error`)."""
    content = [{"type": "tool_result", "tool_use_id": call_id, "content": "boom", "is_error": True}]
    messages = [{"role": "user", "content": content}]
    attributes = {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages)}
    return row(span_id, TURN, "chat m", start_ms, attributes, trace=trace)


def weather(span_id: str = "00000000000000a1", call_id: Any = "call_1", **kw: Any) -> dict:
    return tool(span_id, "weather", call_id, {"city": "Paris"}, "sunny", 10, **kw)


def _dump(calls: list[Any]) -> list[dict[str, Any]]:
    return [call.model_dump() for call in calls]


def check(rows: list[dict[str, Any]], context: list[dict[str, Any]] | None = None) -> bool:
    """Assert the lane's answer on `rows` when it claims them; whether it did."""
    lane = lane_calls([dict(r) for r in rows])
    if lane is None:
        return False
    audit: list[Unexplained] = []
    general = extract_tool_calls(
        [dict(r) for r in rows], context=ConversationSpans(context or rows), audit=audit
    )
    assert _dump(lane) == _dump(general)
    assert audit == []
    return True


# --- attacks that found mismatches (fixed in the lane's predicate) ----------------------


def delegate_answer() -> list[dict[str, Any]]:
    """A delegate agent run inside a call answers it through a tool whose one text argument
    ends the outer call's result: the general model drops it (`answer_tools`, delegates),
    walking the tool spans' own parents, which the lane did not pass."""
    return [
        turn_span(),
        tool("00000000000000a1", "research", "call_1", {"topic": "x"}, "Ran.\nIt is 42", 10),
        row("00000000000000b1", "00000000000000a1", "invoke_agent helper", 20, {}),
        tool(
            "00000000000000a2",
            "final_answer",
            "call_2",
            {"answer": "It is 42"},
            "ok",
            30,
            parent="00000000000000b1",
        ),
    ]


def instrumentation_error_on_model_span() -> list[dict[str, Any]]:
    """A model span whose instrumentation raised while recording it: the audit lists it
    (`instrumentation_errors`), whatever the tool spans say."""
    exception = {
        "name": "exception",
        "attributes": {
            "exception.type": "KeyError",
            "exception.message": "'tool_calls'",
            "exception.stacktrace": STACK,
        },
    }
    model = row("0000000000000002", TURN, "chat m", 5, {"gen_ai.operation.name": "chat"})
    model["events"] = orjson.dumps([exception]).decode()
    return [turn_span(), model, weather()]


def test_a_delegate_agents_answer_tool_is_no_call_in_the_lane_either() -> None:
    rows = delegate_answer()
    assert check(rows) is False
    general = extract_tool_calls(rows, context=ConversationSpans(rows))
    assert [c.name for c in general] == ["research"]


def test_a_model_span_whose_instrumentation_failed_is_never_claimed() -> None:
    assert check(instrumentation_error_on_model_span()) is False


# --- attacks the lane withstood: guards -----------------------------------------------


def _later_failure() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    rows = [turn_span(), weather()]
    return rows, rows + [anthropic_input("00000000000000f1", 5000, "call_1", trace=OTHER_TRACE)]


def _request_in_events() -> list[dict[str, Any]]:
    """A model span whose requests are only in a legacy `gen_ai.choice` event."""
    message = {
        "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
        ]
    }
    model = row("0000000000000002", TURN, "chat m", 5, {"gen_ai.operation.name": "chat"})
    model["events"] = orjson.dumps(
        [{"name": "gen_ai.choice", "attributes": {"message": json.dumps(message)}}]
    ).decode()
    return [turn_span(), model, weather()]


def _answer_in_event(call_id: str) -> list[dict[str, Any]]:
    """A model span whose input answers `call_id` only in a `gen_ai.tool.message` event
    (a log record attached to the span reads the same)."""
    model = row("0000000000000002", TURN, "chat m", 900, {"gen_ai.operation.name": "chat"})
    event = {"name": "gen_ai.tool.message", "attributes": {"id": call_id, "content": "sunny"}}
    model["events"] = orjson.dumps([event]).decode()
    return [turn_span(), weather(), model]


def _named_twice(span_call_id: str) -> list[dict[str, Any]]:
    """OpenLIT on the Responses API: the model span names its request under the item id in
    its output parts and under the `call_id` in `gen_ai.tool.*` attributes (a span with a
    tool marker that is no tool span: the general model views it whole)."""
    parts = [{"type": "tool_call", "id": "fc_1", "name": "weather", "arguments": {"city": "Paris"}}]
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.tool.name": "weather",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
    }
    model = row("0000000000000002", TURN, "chat m", 5, attributes)
    return [turn_span(), model, weather(call_id=span_call_id)]


ATTACKS: dict[str, Callable[[], Any]] = {
    # ids: numbers vs strings, empty vs missing, placeholders
    "int id": lambda: [
        turn_span(),
        chat("0000000000000002", 5, [("7", "weather", {"city": "Paris"})]),
        weather(call_id=7),
    ],
    "empty id": lambda: [
        turn_span(),
        chat("0000000000000002", 5, [("call_1", "weather", {"city": "Paris"})]),
        weather(call_id=""),
    ],
    "blank id": lambda: [
        turn_span(),
        chat("0000000000000002", 5, [("call_1", "weather", {"city": "Paris"})]),
        weather(call_id=" "),
    ],
    "placeholder id": lambda: [
        turn_span(),
        chat("0000000000000002", 5, [("call_1", "weather", {"city": "Paris"})]),
        weather(call_id="<not specified>"),
    ],
    "span id as call id": lambda: [turn_span(), weather(call_id="00000000000000a1")],
    # parent chains
    "self parents": lambda: [
        turn_span(),
        weather(parent="00000000000000a1"),
        weather("00000000000000a2", "call_2", parent="00000000000000a2"),
    ],
    "parent cycle through agents": lambda: [
        turn_span(),
        row("00000000000000b1", "00000000000000b2", "agent", 1, {}),
        row("00000000000000b2", "00000000000000b1", "agent", 2, {}),
        weather(parent="00000000000000b1"),
        weather("00000000000000a2", "call_2", parent="00000000000000b2"),
    ],
    "same tool nested through an http span": lambda: [
        turn_span(),
        weather(),
        row("00000000000000b1", "00000000000000a1", "POST", 11, {}),
        weather("00000000000000a2", "call_1x", parent="00000000000000b1"),
    ],
    "other tool nested directly": lambda: [
        turn_span(),
        weather(),
        tool(
            "00000000000000a2",
            "geocode",
            "call_2",
            {"q": "Paris"},
            "48.8,2.3",
            12,
            parent="00000000000000a1",
        ),
    ],
    "lifecycle child": lambda: [
        turn_span(),
        weather(),
        tool("00000000000000a2", "error", None, {"e": 1}, "x", 12, parent="00000000000000a1"),
    ],
    "upper-case ids": lambda: [
        turn_span(),
        weather("00000000000000A1", parent="0000000000000001"),
        weather("00000000000000a2", "call_2", parent="00000000000000A1"),
    ],
    "duplicate span id": lambda: [turn_span(), weather(), weather(call_id="call_2")],
    "two traces": lambda: [
        turn_span(),
        weather(),
        weather("00000000000000a2", "call_2", trace=OTHER_TRACE),
    ],
    # answer tools
    "answer tool told by a model reply": lambda: [
        turn_span(),
        tool("00000000000000a1", "reply", "call_1", {"text": "Hello there"}, "ok", 10),
        reply("0000000000000003", 20, "Hello there"),
    ],
    "answer tool told by the turn span": lambda: [
        turn_span(**{"tracesim.agent_message": "Hello there"}),
        tool("00000000000000a1", "reply", "call_1", {"text": "Hello there"}, "ok", 10),
    ],
    "sole text argument that is no answer": lambda: [
        turn_span(),
        tool("00000000000000a1", "search", "call_1", {"q": "Hello"}, "found", 10),
        reply("0000000000000003", 20, "Bye"),
    ],
    # outcomes and errors
    "failure flagged in a later turn's input": _later_failure,
    "failure flagged in this turn's input": lambda: [
        turn_span(),
        weather(),
        anthropic_input("00000000000000f1", 900, "call_1"),
    ],
    "error-shaped result": lambda: [
        turn_span(),
        tool(
            "00000000000000a1", "weather", "call_1", {"city": "Paris"}, '{"error": "bad city"}', 10
        ),
    ],
    "MCP isError result": lambda: [
        turn_span(),
        tool(
            "00000000000000a1",
            "weather",
            "call_1",
            {"city": "Paris"},
            '{"isError": true, "content": [{"type": "text", "text": "bad"}]}',
            10,
        ),
    ],
    "status ERROR with a wrapper message": lambda: [
        turn_span(),
        weather(status="ERROR", message="Error executing tool weather: bad city"),
    ],
    "status ERROR repeating error.type": lambda: [
        turn_span(),
        weather(status="ERROR", message="tool_error", extra={"error.type": "tool_error"}),
    ],
    "exception event on the tool span": lambda: [
        turn_span(),
        weather(
            events=[
                {
                    "name": "exception",
                    "attributes": {"exception.type": "ValueError", "exception.message": "bad"},
                }
            ]
        ),
    ],
    "exception attributes on the tool span": lambda: [
        turn_span(),
        weather(extra={"exception.message": "bad city"}),
    ],
    "empty result": lambda: [
        turn_span(),
        tool("00000000000000a1", "weather", "call_1", {"city": "Paris"}, "", 10),
    ],
    "number result": lambda: [
        turn_span(),
        tool("00000000000000a1", "weather", "call_1", {"city": "Paris"}, 21, 10),
    ],
    "no result": lambda: [
        turn_span(),
        tool("00000000000000a1", "weather", "call_1", {"city": "Paris"}, None, 10),
    ],
    # requests and answers elsewhere
    "request in another trace": lambda: [
        turn_span(),
        chat("0000000000000002", 5, [("call_9", "weather", {"city": "Paris"})], trace=OTHER_TRACE),
        weather(),
    ],
    "request only in an event": _request_in_events,
    "request of the span's id under another tool name": lambda: [
        turn_span(),
        chat("0000000000000002", 5, [("call_1", "get_weather", {"city": "Paris"})]),
        weather(),
    ],
    "id-less requests, spans with ids": lambda: [
        turn_span(),
        chat("0000000000000002", 5, [("", "weather", {"city": "Paris"})]),
        weather(),
    ],
    "id-less requests of another tool": lambda: [
        turn_span(),
        chat("0000000000000002", 5, [("", "search", {"q": "Paris"})]),
        weather(),
    ],
    "answer of another id only in an event": lambda: _answer_in_event("call_7"),
    "answer of the call only in an event": lambda: _answer_in_event("call_1"),
    "request named twice, span under the attribute's id": lambda: _named_twice("call_1"),
    "request named twice, span under the part's id": lambda: _named_twice("fc_1"),
    "synthesized container above the tool span": lambda: [
        turn_span(),
        row(
            "00000000000000c1",
            TURN,
            "weather",
            9,
            {"tool.synthesized": True, "gen_ai.tool.name": "weather", "input.value": "{}"},
        ),
        weather(parent="00000000000000c1"),
    ],
    "id-less span, nested model replies": lambda: [
        turn_span(),
        chat("0000000000000002", 5, [("call_1", "weather", {"city": "Paris"})]),
        chat(
            "0000000000000003",
            6,
            [("call_1", "weather", {"city": "Paris"})],
            parent="0000000000000002",
        ),
        weather(call_id=None),
    ],
    "id-less span, request with other arguments": lambda: [
        turn_span(),
        chat("0000000000000002", 5, [("call_1", "weather", {"city": "Lyon"})]),
        weather(call_id=None),
    ],
    "MCP span below the tool span": lambda: [
        turn_span(),
        weather(),
        weather(
            "00000000000000a2",
            call_id=None,
            parent="00000000000000a1",
            extra={"mcp.method.name": "tools/call"},
        ),
    ],
    # values
    "unicode and huge values": lambda: [
        turn_span(),
        tool(
            "00000000000000a1",
            "météo_東京",
            "call_1",
            {"ville": "Zürich ☀", "blob": "x" * 200_000},
            "ensoleillé " * 10_000,
            10,
        ),
    ],
    "arguments as a bare string": lambda: [
        turn_span(),
        tool("00000000000000a1", "weather", "call_1", "Paris", "sunny", 10),
    ],
    "big integer arguments": lambda: [
        turn_span(),
        tool(
            "00000000000000a1",
            "weather",
            "call_1",
            '{"n": 123456789012345678901234567890}',
            "sunny",
            10,
        ),
    ],
}


@pytest.mark.parametrize("name", list(ATTACKS))
def test_the_lane_withstands(name: str) -> None:
    built = ATTACKS[name]()
    rows, context = built if isinstance(built, tuple) else (built, None)
    check(rows, context)
