"""Tool calls read from model messages (SPEC §5).

A conversation without any tool span (OpenLLMetry openai, a manual loop, provider
instrumentations alone) records its tool calls only in the model messages: each requested
call (`recover` reads the requests) is a call, and so is each call a later model input
replays that no recorded request made (`history`: streamed replies, prompt-only
instrumentations); its outcome is the answer a later model input carried back
(`answers`: the readers of tool messages and the one pairing of answers with calls). The tool-message readers live in `answers`; this module re-exports the ones
other modules used from here.
"""

from __future__ import annotations

import logging
from typing import Any

from tracesim.evaluator.extract.answers import (
    FAILURE_MARKERS,
    AnswerHistory,
    pair_answers,
    row_may_hold_responses,
    tool_responses,
)
from tracesim.evaluator.extract.assign import RequestedCall
from tracesim.evaluator.extract.fields import tool_error
from tracesim.evaluator.extract.history import carries_input, replayed_calls
from tracesim.evaluator.extract.provenance import REPLAY, note
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
    requested: list[tuple[RequestedCall, ToolCall]] = []
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
            requested.append((request, call))
    if conversation:
        calls.extend(_replayed(models, conversation, requested))
    if calls:  # without a conversation, only answers naming no id (the turn's own inputs)
        after = models[0].sort_key() if models else None
        pair_answers(calls, history, reused=reused, by_id=bool(conversation), after=after)
    return calls


def _latest_history(views: list[SpanView]) -> list[RequestedCall]:
    """The calls replayed by the latest of `views` (in start order) that replays any."""
    for view in reversed(views):
        found = replayed_calls(view)
        if found:
            return found
    return []


def _replayed(
    models: list[SpanView],
    conversation: list[SpanView],
    requested: list[tuple[RequestedCall, ToolCall]],
) -> list[ToolCall]:
    """Calls of this turn known only from the history a model input replays (the reply's
    own requests unrecorded: streamed replies, prompt-only instrumentations): the turn's
    latest history minus what earlier turns' inputs replayed, minus the calls the turn's
    requests already are (same id; an id-less one by position and name). A request whose
    arguments are empty takes the replayed ones of its call (the fuller source)."""
    if not models:
        return []
    start = models[0].sort_key()
    mine = _latest_history(models)
    if not mine:
        return []
    # what the turn's first model input already replays was called before the turn (in
    # earlier turns, captured or not: a trace of its own per model call replays them all)
    first = next((v for v in models if carries_input(v)), None)
    before = replayed_calls(first) if first is not None else []
    if not before:
        before = _latest_history([v for v in conversation if v.sort_key() < start])
    new = mine[len(before) :] if len(before) <= len(mine) else []
    known = {r.id for v in conversation for r in safe_requested_calls(v)}
    pending: dict[str, list[ToolCall]] = {}  # name -> the turn's calls not yet matched
    for request, call in requested:
        pending.setdefault(request.name, []).append(call)
    by_id = {request.id: call for request, call in requested if request.id}
    extra: list[ToolCall] = []
    for item in new:
        if item.id and item.id in known:
            call = by_id.get(item.id)
            if call is not None:
                waiting = pending.get(call.name, [])
                pending[call.name] = [c for c in waiting if c is not call]
                _fill_arguments(call, item)
            continue
        waiting = pending.get(item.name)
        if waiting:  # a request of the turn, by position (ids missing or rewritten)
            _fill_arguments(waiting.pop(0), item)
            continue
        extra.append(
            ToolCall(
                id=item.id,
                name=item.name,
                arguments=dict(item.arguments),
                source=ToolCallSource.TRACING_PROCESSOR,
                span_id=None,
                start_time=_first_replay(models, item),
                provenance=_replay_provenance(item),
            )
        )
    return extra


def _fill_arguments(call: ToolCall, item: RequestedCall) -> None:
    """Empty arguments of a recorded request from its replay (a streamed request lost
    them: the fuller source of the same call)."""
    if not call.arguments and item.arguments:
        call.arguments = dict(item.arguments)
        note(call, "arguments", REPLAY)


def _first_replay(models: list[SpanView], item: RequestedCall) -> Any:
    """The start of the first model span whose input replays `item` (the call ran before)."""
    for view in models:
        if any(r.name == item.name and r.id == item.id for r in replayed_calls(view)):
            return view.start_time
    return None


def _replay_provenance(item: RequestedCall) -> dict[str, str]:
    provenance = {"name": REPLAY}
    if item.id:
        provenance["id"] = REPLAY
    if item.arguments:
        provenance["arguments"] = REPLAY
    return provenance
