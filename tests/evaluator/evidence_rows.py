"""Span rows shaped like what real instrumentations emit, for the evidence-model tests
(`test_extract_evidence`, `test_extract_pairing_evidence`): one trace, seconds as order."""

from __future__ import annotations

import json
from datetime import datetime

__all__ = ["TRACE", "_model", "_row", "_tool"]

TRACE = "0" * 31 + "1"


def _row(span_id: str, name: str, attributes: dict, *, second: int, **extra) -> dict:
    row = {
        "trace_id": TRACE,
        "span_id": span_id,
        "parent_span_id": None,
        "name": name,
        "start_time": datetime(2025, 1, 1, 12, 0, second),
        "end_time": None,
        "duration_ms": 5.0,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": json.dumps(attributes),
        "events": "[]",
    }
    row.update(extra)
    return row


def _model(span_id: str, second: int, *, calls=(), answers=()) -> dict:
    """A GenAI chat span: tool_call parts it requested, tool_call_response parts it sent."""
    attributes: dict = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
    if calls:
        parts = [{"type": "tool_call", "id": i, "name": n, "arguments": a} for i, n, a in calls]
        attributes["gen_ai.output.messages"] = json.dumps([{"role": "assistant", "parts": parts}])
    if answers:
        parts = [{"type": "tool_call_response", "id": i, "response": r} for i, r in answers]
        attributes["gen_ai.input.messages"] = json.dumps([{"role": "tool", "parts": parts}])
    return _row(span_id, "chat m", attributes, second=second)


def _tool(span_id: str, second: int, name: str, call_id: str, arguments: str, **extra) -> dict:
    attributes = {"gen_ai.tool.name": name, "gen_ai.tool.call.arguments": arguments}
    if call_id:
        attributes["gen_ai.tool.call.id"] = call_id
    return _row(span_id, f"execute_tool {name}", attributes, second=second, **extra)
