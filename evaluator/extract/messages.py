"""Tool calls read from model messages (SPEC §5).

A conversation without any tool span (OpenLLMetry openai, a manual loop, provider
instrumentations alone) records its tool calls only in the model messages: each requested
call (`recover` reads the requests) is a call, and its outcome the answer a later model
input carried back (`answers`: the readers of tool messages and the pairing of answers
with calls). The tool-message readers live in `answers`; this module re-exports the ones
other modules used from here.
"""

from __future__ import annotations

import logging

from tracesim.evaluator.extract.answers import (
    FAILURE_MARKERS,
    AnswerHistory,
    pair_answers,
    row_may_hold_responses,
    tool_responses,
)
from tracesim.evaluator.extract.fields import tool_error
from tracesim.evaluator.extract.recover import safe_requested_calls
from tracesim.evaluator.extract.reused import Occurrences
from tracesim.evaluator.extract.span import SpanView
from tracesim.schemas import ToolCall, ToolCallSource

__all__ = ["FAILURE_MARKERS", "calls_from_messages", "row_may_hold_responses", "tool_responses"]

logger = logging.getLogger(__name__)


def _execution(
    call: ToolCall, after: tuple, spans: list[SpanView], used: set[str]
) -> SpanView | None:
    """The first unused span named after the tool that started after its request: the
    function's own span where the framework traces it without a tool convention (OpenLIT
    `@trace`, manual spans)."""
    for span in spans:
        if span.name == call.name and span.span_id not in used and span.sort_key() > after:
            return span
    return None


def calls_from_messages(
    models: list[SpanView],
    conversation: list[SpanView],
    *,
    spans: list[SpanView] = (),
    history: AnswerHistory | None = None,
) -> list[ToolCall]:
    """The calls `models` (a turn's model spans, in start order) requested, with the
    answers found in `conversation`'s model inputs (`models`' own when it is empty); for a
    conversation without tool spans. A span of `spans` named after the tool is the call's
    execution: its failure is the error. `history`: the answers of `conversation` when the
    caller already read them (`ConversationSpans.answer_history`)."""
    views = conversation or models
    if history is None:
        history = AnswerHistory(views)
    occurrences = Occurrences.of(views, history)
    calls: list[ToolCall] = []
    seen: set[tuple[str, int]] = set()
    used: set[str] = set()
    reused: dict[int, tuple[str, int]] = {}  # calls under an id made up per request
    for view in models:
        for index, request in enumerate(safe_requested_calls(view, with_ids=False)):
            ordinal = occurrences.ordinal(view, index) if request.id in occurrences.reused else 0
            if request.id and (request.id, ordinal) in seen:
                continue  # the same request reported twice (wrapper and provider spans)
            seen.add((request.id, ordinal))
            provenance = {"name": "model_request"}
            if request.id:
                provenance["id"] = "model_request"
            if request.arguments:
                provenance["arguments"] = "model_request"
            call = ToolCall(
                id=request.id,
                name=request.name,
                arguments=dict(request.arguments),
                source=ToolCallSource.TRACING_PROCESSOR,
                span_id=view.span_id or None,
                start_time=view.start_time,
                provenance=provenance,
            )
            execution = _execution(call, view.sort_key(), list(spans), used)
            if execution is not None:
                used.add(execution.span_id)
                call.span_id, call.start_time = execution.span_id, execution.start_time
                call.error = tool_error(execution)
                if call.error is not None:
                    provenance["error"] = "execution_span"
            if request.id in occurrences.reused:
                reused[len(calls)] = (request.id, ordinal)
            calls.append(call)
    if calls:  # without a conversation, only answers naming no id (the turn's own inputs)
        pair_answers(calls, history, reused=reused, by_id=bool(conversation))
    return calls
