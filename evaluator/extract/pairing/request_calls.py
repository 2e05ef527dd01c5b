"""Requests no tool span answered, as calls (SPEC §5: a call known from one source only
still counts), for `pairing`.

A conversation without any tool span (OpenLLMetry openai, a manual loop, provider
instrumentations alone) records its calls only in the model messages: each requested call
is a call, and so is each call a later model input replays that no recorded request made
(`history`: streamed replies, prompt-only instrumentations). Where tool spans exist, a
request is a call of its own only when it was answered and its tool has no span in the
turn (OpenLLMetry Node ends no span for a tool that throws; requests of a tool that has
spans are doubles: instrumentations that double model spans repeat them under other ids).
A span named after the tool that started after the request is the call's execution (its
failure is the error: OpenLIT `@trace`, manual spans).
"""

from __future__ import annotations

from typing import Any

from tracesim.evaluator.extract.context import ConversationSpans, views_of
from tracesim.evaluator.extract.pairing.answer_pairing import pair_answers
from tracesim.evaluator.extract.pairing.recover import row_may_hold_requests, safe_requested_calls
from tracesim.evaluator.extract.pairing.reused import Occurrences
from tracesim.evaluator.extract.pieces import CallPiece
from tracesim.evaluator.extract.provenance import EXECUTION, INPUT, REPLAY, REQUEST, note
from tracesim.evaluator.extract.readers.answers import AnswerHistory, row_may_hold_responses
from tracesim.evaluator.extract.readers.fields import is_tool_span, tool_error
from tracesim.evaluator.extract.readers.history import replayed_calls, turn_replays
from tracesim.evaluator.extract.span import SpanView
from tracesim.schemas import ToolCall, ToolCallSource

__all__ = ["message_calls", "unspanned_calls"]

_SOURCE = ToolCallSource.TRACING_PROCESSOR


def _request_call(
    request: CallPiece, view: SpanView, executions: list[SpanView], used: set[str]
) -> ToolCall:
    """The call a request piece is when no tool span answered it; its execution span (the
    first unused span named after the tool that started after the request), if any, gives
    its span, start and failure."""
    provenance = {"name": REQUEST}
    if request.id:
        provenance["id"] = REQUEST
    if request.arguments:
        provenance["arguments"] = REQUEST
    call = ToolCall(
        id=request.id,
        name=request.name,
        arguments=dict(request.arguments),
        source=_SOURCE,
        span_id=view.span_id or None,
        start_time=view.start_time,
        provenance=provenance,
    )
    after = view.sort_key()
    for span in executions:
        if span.name == call.name and span.span_id not in used and span.sort_key() > after:
            used.add(span.span_id)
            call.span_id, call.start_time = span.span_id, span.start_time
            call.error = tool_error(span)
            if call.error is not None:
                provenance["error"] = EXECUTION
            break
    return call


def _calls_of_requests(
    models: list[SpanView],
    conversation: list[SpanView],
    *,
    spans: list[SpanView],
    history: AnswerHistory | None = None,
) -> tuple[list[ToolCall], list[str]]:
    """The calls `models` (a turn's model spans, in start order) requested, and those the
    turn's model inputs replay that no request made, with the answers found in
    `conversation`'s model inputs (`models`' own when it is empty); and the other ids
    the calls are known by (a request's id its replay renamed)."""
    views = conversation or models
    if history is None:
        history = AnswerHistory(views)
    occurrences = Occurrences.of(views, history)
    calls: list[ToolCall] = []
    seen: set[tuple[str, int]] = set()
    used: set[str] = set()
    reused: dict[int, tuple[str, int]] = {}  # calls under an id made up per request
    requested: list[tuple[CallPiece, ToolCall]] = []
    renamed: dict[int, str] = {}  # call index -> the other id naming it
    for view in models:
        for index, request in enumerate(safe_requested_calls(view, with_ids=False)):
            ordinal = occurrences.ordinal(view, index) if request.id in occurrences.reused else 0
            if request.id and (request.id, ordinal) in seen:
                continue  # the same request reported twice (wrapper and provider spans)
            seen.add((request.id, ordinal))
            call = _request_call(request, view, spans, used)
            if request.alias:  # the span names the call twice (`named_twice`)
                renamed[len(calls)] = request.alias
            if request.id in occurrences.reused:
                reused[len(calls)] = (request.id, ordinal)
            calls.append(call)
            requested.append((request, call))
    if conversation:
        calls.extend(turn_replays(models, conversation, requested, renamed))
    if calls:  # without a conversation, only answers naming no id (the turn's own inputs)
        after = models[0].sort_key() if models else None
        pair_answers(
            calls, history, reused=reused, aliases=renamed, by_id=bool(conversation), after=after
        )
    return calls, list(renamed.values())


def message_calls(
    others: list[Any], context: ConversationSpans
) -> tuple[list[ToolCall], list[str]]:
    """Calls requested by this turn's model spans when the conversation has no tool span,
    and the other ids they are known by (`audit`)."""
    candidates = [s for s in others if row_may_hold_requests(s) or row_may_hold_responses(s)]
    if not candidates:
        return [], []
    models = sorted(views_of(candidates), key=SpanView.sort_key)
    if not any(safe_requested_calls(v, with_ids=False) for v in models):
        # no request recorded: calls a later model input replays may be the only evidence
        if context.given and context.has_tool_spans():
            return [], []
        if not any(replayed_calls(v) for v in models):
            return [], []
    if context.given:
        if context.has_tool_spans():
            return [], []  # the conversation records its calls as tool spans
        conversation, history = context.views(), context.answer_history()
    else:
        if any(v.may_be_tool_span() and is_tool_span(v) for v in models):
            return [], []
        conversation, history = models, None
    executions = sorted(views_of(others), key=SpanView.sort_key)
    return _calls_of_requests(models, conversation, spans=executions, history=history)


def unspanned_calls(
    calls: list[ToolCall], models: list[SpanView], context: ConversationSpans, others: list[Any]
) -> list[ToolCall]:
    """Requests answered in the conversation, of a tool that has no span in the turn, as
    calls of their own (where tool spans carry no id of their own)."""
    taken = {call.id for call in calls}
    traced = {call.name for call in calls}  # a tool with spans: its missing ids are doubles
    requested = [
        (view, request)
        for view in models
        for request in safe_requested_calls(view)
        if request.id not in taken and request.name not in traced
    ]
    if not requested:
        return []
    answered = context.responses()
    extra: list[ToolCall] = []
    executions = sorted(views_of(others), key=SpanView.sort_key)
    used: set[str] = set()
    for view, request in requested:
        if request.id not in answered or request.id in taken:
            continue
        taken.add(request.id)
        call = _request_call(request, view, executions, used)
        if not call.arguments:  # a streamed request lost them: the replayed history has them
            _replayed_arguments(call, context)
        if call.error is None:
            call.result = answered[request.id]
            note(call, "result", INPUT)
        extra.append(call)
    return extra


def _replayed_arguments(call: ToolCall, context: ConversationSpans) -> None:
    """Empty arguments of `call` from the first model input that replays its id with some."""
    for view in context.views():
        for replayed in replayed_calls(view):
            if replayed.id == call.id and replayed.arguments:
                call.arguments = dict(replayed.arguments)
                note(call, "arguments", REPLAY)
                return
