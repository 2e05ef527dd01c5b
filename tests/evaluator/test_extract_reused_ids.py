"""Ids made up per request and `{"error": ...}` function responses (SPEC §5), on rows shaped
as the OTel google-genai instrumentation (latest GenAI semconv) emits them: every request
names its first `get_weather` call `get_weather_0`, and the model input carries the whole
history, each answer under the reused id."""

from __future__ import annotations

import json
from datetime import datetime

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.provenance import source_of

TRACE = "0" * 31 + "2"


def _call(call_id: str, name: str, arguments: dict) -> dict:
    return {
        "role": "assistant",
        "parts": [{"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}],
    }


def _answer(call_id: str, response: dict) -> dict:
    return {
        "role": "user",
        "parts": [{"type": "tool_call_response", "id": call_id, "response": response}],
    }


def _model(second: int, history: list[dict], output: list[dict]) -> dict:
    attributes = {
        "gen_ai.operation.name": "generate_content",
        "gen_ai.request.model": "m",
        "gen_ai.input.messages": json.dumps(
            [{"role": "user", "parts": [{"type": "text", "content": "hi"}]}, *history]
        ),
        "gen_ai.output.messages": json.dumps(output),
    }
    return {
        "trace_id": TRACE,
        "span_id": f"{second:016x}",
        "parent_span_id": None,
        "name": "generate_content m",
        "start_time": datetime(2025, 1, 1, 12, 0, second),
        "end_time": None,
        "duration_ms": 5.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": json.dumps(attributes),
        "events": "[]",
    }


def _conversation() -> list[dict]:
    weather = _call("get_weather_0", "get_weather", {"city": "Paris"})
    rome = _call("get_weather_0", "get_weather", {"city": "Rome"})
    order = _call("lookup_order_0", "lookup_order", {"order_id": "A1"})
    sunny = _answer("get_weather_0", {"result": "Sunny"})
    rainy = _answer("get_weather_0", {"result": "Rainy"})
    failed = _answer("lookup_order_0", {"error": "order A1 not found"})
    return [
        _model(1, [], [weather]),
        _model(2, [weather, sunny], [rome]),
        _model(3, [weather, sunny, rome, rainy], [order]),
        _model(4, [weather, sunny, rome, rainy, order, failed], []),
    ]


def test_an_id_answered_then_requested_again_is_a_new_call() -> None:
    """Two get_weather calls under one made-up id stay two calls, each with the answer of
    its position; the reused id names no call; the lone-error response is the error."""
    calls = extract_tool_calls(_conversation())
    assert [(c.name, c.arguments, c.result, c.error) for c in calls] == [
        ("get_weather", {"city": "Paris"}, "Sunny", None),
        ("get_weather", {"city": "Rome"}, "Rainy", None),
        ("lookup_order", {"order_id": "A1"}, None, "order A1 not found"),
    ]
    assert [c.id for c in calls] == ["", "", "lookup_order_0"]
    assert source_of(calls[1], "result") == "model_input_position"
    assert source_of(calls[2], "error") == "model_input"


def test_the_same_request_reported_twice_before_its_answer_is_one_call() -> None:
    """A wrapper span and the provider span inside it both report the request (no answer in
    between): one call, its id kept."""
    weather = _call("c1", "get_weather", {"city": "Paris"})
    rows = [
        _model(1, [], [weather]),
        _model(2, [], [weather]),
        _model(3, [weather, _answer("c1", {"result": "Sunny"})], []),
    ]
    [call] = extract_tool_calls(rows)
    assert (call.id, call.result) == ("c1", "Sunny")
