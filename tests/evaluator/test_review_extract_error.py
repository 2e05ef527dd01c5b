"""Review regression: a tool call's error follows SPEC §5's source order."""

from __future__ import annotations

import json

from tracesim.evaluator import extract_tool_calls


def _row(**extra) -> dict:
    row = {
        "trace_id": "0" * 31 + "1",
        "span_id": "00000000000000a1",
        "name": "execute_tool t",
        "start_time": None,
        "status_code": "UNSET",
        "status_message": None,
        "attributes": "{}",
        "events": "[]",
    }
    row.update(extra)
    return row


def test_status_error_without_message_takes_the_exception_event_before_error_type() -> None:
    # Status ERROR says "failed" but carries no message: the message comes from the
    # next source in SPEC §5's order, the exception event, before error.type.
    row = _row(
        status_code="ERROR",
        attributes=json.dumps({"error.type": "ValueError"}),
        events=json.dumps([{"name": "exception", "attributes": {"exception.message": "bad"}}]),
    )
    assert extract_tool_calls([row])[0].error == "bad"
    row["events"] = "[]"
    assert extract_tool_calls([row])[0].error == "ValueError"
