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


def _failed(status: str, **attributes) -> dict:
    attributes = {"gen_ai.tool.name": "t", **attributes}
    return _row(status_code="ERROR", status_message=status, attributes=json.dumps(attributes))


def test_a_status_that_only_repeats_error_type_gives_way_to_the_tools_error_output() -> None:
    """The OpenAI Agents SDK under OpenLIT: status message and error.type are both the
    SDK's wrapper text; the tool's own failure text is the span's result: the cause."""
    wrapper = "Error running tool (non-fatal)"
    row = _failed(
        wrapper, **{"error.type": wrapper, "gen_ai.tool.call.result": "error: order A1 not found"}
    )
    [call] = extract_tool_calls([row])
    assert (call.error, call.result) == ("order A1 not found", None)
    # a status saying more than error.type is the message, whatever the output says
    row = _failed(
        "lookup failed: no order A1",
        **{"error.type": "LookupError", "gen_ai.tool.call.result": "partial"},
    )
    assert extract_tool_calls([row])[0].error == "lookup failed: no order A1"
    # the same status and type with no output stay the message
    assert extract_tool_calls([_failed(wrapper, **{"error.type": wrapper})])[0].error == wrapper
