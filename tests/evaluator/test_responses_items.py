"""OpenAI Responses API input items serialised as a message's text (OpenLLMetry for Node
records a Responses request as one user text part holding the whole `input` array, and a
tool-call reply as text ""): read as the GenAI messages they stand for, the replayed
history gives the calls and their answers by id (SPEC §5). Rows shaped as
`recordings/openai-responses-openllmetry-node` holds them."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.readers.responses_items import responses_items_as_genai

TRACE = "0" * 31 + "9"
QUESTION = {"role": "user", "content": "Weather, then order A1?"}


def _call(call_id: str, name: str, arguments: dict) -> dict:
    return {
        "type": "function_call",
        "call_id": call_id,
        "name": name,
        "arguments": json.dumps(arguments),
    }


def _output(call_id: str, output: str) -> dict:
    return {"type": "function_call_output", "call_id": call_id, "output": output}


def _row(second: int, items: list) -> dict:
    text = {"type": "text", "content": json.dumps(items)}
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": json.dumps([{"role": "user", "parts": [text]}]),
        "gen_ai.output.messages": json.dumps(
            [
                {
                    "role": "assistant",
                    "finish_reason": "stop",
                    "parts": [{"type": "text", "content": ""}],
                }
            ]
        ),
    }
    return {
        "trace_id": TRACE,
        "span_id": f"{second:016x}",
        "parent_span_id": None,
        "name": "chat scripted",
        "start_time": datetime(2025, 1, 1, 12, 0, second, tzinfo=timezone.utc),
        "end_time": None,
        "duration_ms": 5.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": json.dumps(attributes),
        "events": "[]",
    }


def test_calls_and_answers_serialised_in_the_history_are_read() -> None:
    first = [QUESTION]
    second = [*first, _call("c1", "get_weather", {"city": "Paris"}), _output("c1", "Sunny")]
    third = [*second, _call("c2", "lookup_order", {"order_id": "A1"}), _output("c2", "Error: none")]
    rows = [_row(1, first), _row(2, second), _row(3, third)]
    calls = extract_tool_calls(rows, context=rows)
    assert [(c.id, c.name, c.arguments, c.result) for c in calls] == [
        ("c1", "get_weather", {"city": "Paris"}, "Sunny"),
        ("c2", "lookup_order", {"order_id": "A1"}, "Error: none"),
    ]


def test_the_items_become_genai_messages() -> None:
    items = [QUESTION, _call("c1", "t", {"a": 1}), _call("c2", "t", {"a": 2}), _output("c1", "x")]
    text = {"type": "text", "content": json.dumps(items)}
    attributes = {"gen_ai.input.messages": json.dumps([{"role": "user", "parts": [text]}])}
    read = json.loads(responses_items_as_genai(attributes)["gen_ai.input.messages"])
    assert [m["role"] for m in read] == ["user", "assistant", "tool"]
    assert [p["id"] for p in read[1]["parts"]] == ["c1", "c2"]  # consecutive calls: one turn
    assert read[1]["parts"][0]["arguments"] == {"a": 1}
    assert read[2]["parts"] == [{"type": "tool_call_response", "id": "c1", "response": "x"}]


def test_other_texts_are_left_as_they_are() -> None:
    for content in ("call function_call please", '["function_call"]', '[{"role": "user"}]'):
        text = {"type": "text", "content": content}
        attributes = {"gen_ai.input.messages": json.dumps([{"role": "user", "parts": [text]}])}
        assert responses_items_as_genai(attributes) is attributes
