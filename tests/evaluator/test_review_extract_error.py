"""Review regression: a tool call's error follows SPEC §5's source order."""

from __future__ import annotations

import json
from datetime import datetime

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


def _span(n: int, name: str, attributes: dict, **extra) -> dict:
    row = _row(span_id=format(n, "016x"), name=name, attributes=json.dumps(attributes))
    row["start_time"] = datetime(2025, 1, 1, 12, 0, n)
    row.update(extra)
    return row


def _answered(n: int, call_id: str, text: str) -> dict:
    part = {"type": "tool_call_response", "id": call_id, "response": text}
    messages = [{"role": "tool", "parts": [part]}]
    return _span(
        n,
        "chat m",
        {"gen_ai.operation.name": "chat", "gen_ai.input.messages": json.dumps(messages)},
    )


def _wrapped(error_type: str) -> dict:
    attributes = {"gen_ai.tool.name": "t", "gen_ai.tool.call.id": "c1", "error.type": error_type}
    return _span(1, "execute_tool t", attributes, status_code="ERROR", status_message="Tool failed")


def test_a_wrappers_status_gives_way_when_error_type_and_the_model_input_agree() -> None:
    """Agno under OpenLIT: status 'Tool execution failed', error.type and the next model
    input both the cause: two sources against the status."""
    rows = [_wrapped("order A1 not found"), _answered(2, "c1", "order A1 not found")]
    [call] = extract_tool_calls(rows, context=rows)
    assert call.error == "order A1 not found"
    # one source alone never overrides the status: the model told something else
    rows = [_wrapped("order A1 not found"), _answered(2, "c1", "An error occurred")]
    assert extract_tool_calls(rows, context=rows)[0].error == "Tool failed"
    # nor error.type without a model input answer
    assert extract_tool_calls([_wrapped("order A1 not found")])[0].error == "Tool failed"


def test_a_wrappers_message_gives_the_cause_it_prints_after_its_own_text() -> None:
    # smolagents' AgentToolExecutionError (under OpenInference and OpenLIT): the tool's own
    # exception is printed inside the wrapper's message as `Type: message`, then a hint.
    wrapper = (
        "Error executing tool 'lookup' with arguments {'order_id': 'A1'}: "
        "ValueError: order A1 not found\nPlease try again or use another tool"
    )
    row = _row(
        status_code="ERROR",
        status_message="AgentToolExecutionError: " + wrapper,
        attributes=json.dumps({"gen_ai.tool.name": "t", "error.type": "AgentToolExecutionError"}),
        events=json.dumps([{"name": "exception", "attributes": {"exception.message": wrapper}}]),
    )
    assert extract_tool_calls([row])[0].error == "order A1 not found"
    row["events"] = "[]"  # the status message alone says the same
    assert extract_tool_calls([row])[0].error == "order A1 not found"
    # a message without a printed cause, or whose `: X: ` is no exception type, stays whole
    for message in ("order A1 not found", "lookup failed: status: 404"):
        row["events"] = json.dumps(
            [{"name": "exception", "attributes": {"exception.message": message}}]
        )
        assert extract_tool_calls([row])[0].error == message
