"""A tool answer is known by its `tool_call_response` part, whatever the message's role
(SPEC §5): the Gemini API's function responses are user turns, and OpenLLMetry's
google-generativeai instrumentation writes them so, with ids "" (Gemini makes none). Rows
shaped as `recordings/gemini-openllmetry` holds them."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.provenance import source_of

TRACE = "0" * 31 + "7"
USER = {"role": "user", "parts": [{"type": "text", "content": "Weather, then order A1?"}]}


def _call(name: str, arguments: dict) -> dict:
    part = {"type": "tool_call", "id": "", "name": name, "arguments": arguments}
    return {"role": "assistant", "parts": [part]}


def _answer(response: dict, role: str = "user") -> dict:
    part = {"type": "tool_call_response", "id": "", "response": json.dumps(response)}
    return {"role": role, "parts": [part]}


def _row(second: int, inputs: list, outputs: list) -> dict:
    attributes = {
        "gen_ai.operation.name": "generate_content",
        "gen_ai.input.messages": json.dumps(inputs),
        "gen_ai.output.messages": json.dumps(outputs),
    }
    return {
        "trace_id": TRACE,
        "span_id": f"{second:016x}",
        "parent_span_id": None,
        "name": "generate_content m",
        "start_time": datetime(2025, 1, 1, 12, 0, second, tzinfo=timezone.utc),
        "end_time": None,
        "duration_ms": 5.0,
        "status_code": "OK",
        "status_message": None,
        "attributes": json.dumps(attributes),
        "events": "[]",
    }


def _rows(role: str) -> list[dict]:
    weather = _call("get_weather", {"city": "Paris"})
    order = _call("lookup_order", {"order_id": "A1"})
    sunny = _answer({"result": "Sunny"}, role)
    missing = _answer({"error": "order A1 not found"}, role)
    final = {"role": "assistant", "parts": [{"type": "text", "content": "Done."}]}
    return [
        _row(1, [USER], [weather]),
        _row(2, [USER, weather, sunny], [order]),
        _row(3, [USER, weather, sunny, order, missing], [final]),
    ]


def test_function_responses_in_user_turns_answer_their_calls() -> None:
    rows = _rows("user")
    calls = extract_tool_calls(rows, context=rows)
    assert [(c.name, c.result, c.error) for c in calls] == [
        ("get_weather", "Sunny", None),
        ("lookup_order", None, "order A1 not found"),
    ]
    assert source_of(calls[0], "result") == "model_input_position"


def test_the_same_answers_in_tool_turns_read_the_same() -> None:
    rows = _rows("tool")
    calls = extract_tool_calls(rows, context=rows)
    assert [(c.name, c.result, c.error) for c in calls] == [
        ("get_weather", "Sunny", None),
        ("lookup_order", None, "order A1 not found"),
    ]


def test_a_user_turn_of_text_only_answers_nothing() -> None:
    rows = _rows("user")
    for row in rows:  # the answers' parts become plain text: no tool answer is left
        attributes = json.loads(row["attributes"])
        text = attributes["gen_ai.input.messages"].replace("tool_call_response", "text")
        attributes["gen_ai.input.messages"] = text
        row["attributes"] = json.dumps(attributes)
    calls = extract_tool_calls(rows, context=rows)
    assert [(c.name, c.result, c.error) for c in calls] == [
        ("get_weather", None, None),
        ("lookup_order", None, None),
    ]
