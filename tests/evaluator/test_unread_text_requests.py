"""Never silent on tool calls serialised as text (SPEC §5): a model call whose messages hold
tool calls as JSON text INSIDE a message, in a shape no reader knows, is an
`unread_request` when the turn found no call (OpenLLMetry for Node serialises the Responses
API's `input` items so, which `extract.responses_items` now reads; a framework's own
request body would be the same case). Plain text, or JSON naming no tool, is not."""

from __future__ import annotations

import json

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.audit import UNREAD_REQUEST
from tracesim.evaluator.extract.unread import unread_requests

ITEMS = [  # a request body of a shape of its own, serialised into the user's text
    {"speaker": "user", "says": "weather?"},
    {"tool_call": {"ref": "c1", "tool": "get_weather", "input": {}}},
    {"tool_result": {"ref": "c1", "value": "Sunny"}},
]


def _model(inputs: list, finish: str = "stop") -> dict:
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.response.finish_reasons": [finish],
        "gen_ai.input.messages": json.dumps(inputs),
        "gen_ai.output.messages": json.dumps(
            [{"role": "assistant", "parts": [{"type": "text", "content": ""}]}]
        ),
    }
    return {
        "trace_id": "t",
        "span_id": "m1",
        "name": "chat m",
        "attributes": json.dumps(attributes),
        "events": "[]",
    }


def _audit(rows: list[dict]) -> list:
    audit: list = []
    extract_tool_calls(rows, audit=audit)
    return audit


def test_tool_calls_as_json_text_in_a_message_are_an_unread_request() -> None:
    text = [{"role": "user", "parts": [{"type": "text", "content": json.dumps(ITEMS)}]}]
    [item] = _audit([_model(text)])
    assert item.kind == UNREAD_REQUEST and item.span_id == "m1"
    assert "gen_ai.input.messages holds tool calls as JSON text" in item.detail
    assert unread_requests([_model(text)], calls=1) == []  # the turn found its calls


def test_plain_text_messages_are_quiet() -> None:
    text = [{"role": "user", "parts": [{"type": "text", "content": "call a function, please"}]}]
    assert _audit([_model(text)]) == []
    # JSON text that names no tool
    data = [{"role": "user", "parts": [{"type": "text", "content": '{"city": "Paris"}'}]}]
    assert _audit([_model(data)]) == []
