"""The simulator's own records on spans: a turn's outcome, a conversation's end (SPEC §3).

Pure span writing, shared by the runner and its watchdog (which records a
turn whose agent blocked its lane). Every text is bounded so a span always
fits the collector's request limit.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.context import Context
from opentelemetry.trace import Status, StatusCode, Tracer
from tracesim.schemas.conventions import TRACESIM
from tracesim.simulator.results import ConversationResult, TurnResult
from tracesim.simulator.span_limits import bounded_json, bounded_text
from tracesim.simulator.stubs.matching import StubBook

__all__ = ["emit_conversation_span", "end_turn_span"]


def end_turn_span(
    span: Any, result: TurnResult, *, book: StubBook | None = None, stubbed_before: int = 0
) -> None:
    """Put the turn's outcome on its `tracesim.turn` span (in one call) and end it."""
    calls = result.tool_calls
    attributes: dict[str, Any] = {
        TRACESIM.AGENT_MESSAGE: bounded_text(result.agent_message),
        TRACESIM.EXPLICIT_TOOL_CALLS: bounded_json(
            [c.model_dump(mode="json", exclude_none=True) for c in calls]
        )
        if calls
        else "[]",
        TRACESIM.TURN_STATUS: result.status,
    }
    if book is not None:
        answers = book.calls[stubbed_before:]
        attributes[TRACESIM.STUBBED_CALLS] = sum(a.stubbed for a in answers)
        missing = [
            {"name": a.name, "arguments": dict(a.arguments)} for a in answers if not a.stubbed
        ]
        if missing:
            attributes[TRACESIM.UNSTUBBED_CALLS] = bounded_json(missing)
    error = None if result.error is None else bounded_text(result.error)
    if error is not None:
        attributes[TRACESIM.ERROR] = error
    span.set_attributes(attributes)
    if error is not None:
        span.set_status(Status(StatusCode.ERROR, error))
    span.end()


def emit_conversation_span(
    tracer: Tracer,
    conversation: ConversationResult,
    *,
    run_id: str,
    agent_type: str,
    scenario_json: str,
    start_ns: int,
) -> None:
    """The `tracesim.conversation` span (its own trace) closing one conversation."""
    attributes: dict[str, Any] = {
        TRACESIM.CHAT_ID: conversation.chat_id,
        TRACESIM.RUN_ID: run_id,
        TRACESIM.SCENARIO_ID: conversation.scenario_id,
        TRACESIM.CONVERSATION_INDEX: conversation.conversation_index,
        TRACESIM.AGENT_TYPE: agent_type,
        TRACESIM.NUM_TURNS: conversation.num_turns,
        TRACESIM.CONVERSATION_STATUS: conversation.status,
        TRACESIM.SCENARIO: scenario_json,
    }
    if conversation.error is not None:
        attributes[TRACESIM.ERROR] = conversation.error
    span = tracer.start_span(
        TRACESIM.CONVERSATION_SPAN, context=Context(), attributes=attributes, start_time=start_ns
    )
    if conversation.status == "error":
        span.set_status(Status(StatusCode.ERROR, conversation.error or "error"))
    span.end()
