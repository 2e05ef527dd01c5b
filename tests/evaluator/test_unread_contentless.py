"""Never silent when content capture is off (SPEC §5): a model call stored without any
message content (the default of the OTel GenAI instrumentations) cannot show the tool calls
it asked for, and some providers' finish reason says `stop` even then (the Gemini API). A
turn that found no call and holds such a model call gets an `unread_request` saying so;
a model call with content, or a turn whose calls were found, stays quiet."""

from __future__ import annotations

import json

from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.audit import UNREAD_REQUEST
from tracesim.evaluator.extract.unread import unread_requests

USAGE_ONLY = {
    "gen_ai.operation.name": "generate_content",
    "gen_ai.request.model": "gemini-x",
    "gen_ai.response.finish_reasons": ["stop"],
    "gen_ai.usage.input_tokens": 100,
    "gen_ai.usage.output_tokens": 20,
}


def _row(attributes: dict, *, span_id: str = "m1", events: list | None = None) -> dict:
    return {
        "trace_id": "t",
        "span_id": span_id,
        "name": "generate_content gemini-x",
        "operation": attributes.get("gen_ai.operation.name"),
        "attributes": json.dumps(attributes),
        "events": json.dumps(events or []),
    }


def _audit(rows: list[dict]) -> list:
    audit: list = []
    extract_tool_calls(rows, audit=audit)
    return audit


def test_a_model_call_without_content_is_an_unread_request() -> None:
    [item] = _audit([_row(USAGE_ONLY)])
    assert item.kind == UNREAD_REQUEST and item.span_id == "m1"
    assert "without message content" in item.detail and "CAPTURE_MESSAGE_CONTENT" in item.detail
    assert unread_requests([_row(USAGE_ONLY)], calls=1) == []  # the turn found its calls


def test_content_on_the_span_or_in_its_log_records_is_quiet() -> None:
    text = [{"role": "assistant", "parts": [{"type": "text", "content": "Sunny"}]}]
    with_content = {**USAGE_ONLY, "gen_ai.output.messages": json.dumps(text)}
    assert _audit([_row(with_content)]) == []
    record = {"name": "gen_ai.choice", "attributes": {"gen_ai.output.messages": json.dumps(text)}}
    assert _audit([_row(USAGE_ONLY, events=[record])]) == []


def test_a_span_that_is_no_model_call_is_quiet() -> None:
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.usage.input_tokens": 5}
    assert _audit([_row(agent)]) == []
