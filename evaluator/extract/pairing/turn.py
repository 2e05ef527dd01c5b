"""The one pairing step of a turn's evidence (SPEC §5): call pieces and answers -> calls.

`pair_turn` takes the turn's span pieces (`tool_spans`) and the turn's other spans, whose
model requests (`recover`), replays (`history`) and answers (`answers`) are the rest of
the evidence, and builds one call per real invocation:
1. tool spans of the same call (an MCP client or server span, a second instrumentation, a
   lifecycle event) are one call (`nested`);
2. a span that lacks its id, has a bare input or empty arguments, or carries an id no
   request names (a framework's own: ADK's `adk-...`, LangChain's run id) pairs with the
   request it answers (`assign`: by id, arguments, bare value, then name and position;
   the trace's requests, then the conversation's), each field from the best source with
   its provenance;
3. requests no span answered are calls of their own (`request_calls`: every request where
   the conversation has no tool span; else those answered, of a tool without a span);
4. calls still without an outcome take their answers (`answer_pairing.pair_answers`: by id or
   alias, then id-less answers by position and name, then answers under rewritten ids by
   position, only when exactly as many).
"""

from __future__ import annotations

from typing import Any

from tracesim.evaluator.extract.context import ConversationSpans, views_of
from tracesim.evaluator.extract.pairing.answer_pairing import Fresh, pair_answers
from tracesim.evaluator.extract.pairing.assign import assign_requests
from tracesim.evaluator.extract.pairing.doubles import distinct_requests
from tracesim.evaluator.extract.pairing.nested import merge_nested
from tracesim.evaluator.extract.pairing.recover import (
    request_keys,
    row_may_hold_requests,
    safe_requested_calls,
)
from tracesim.evaluator.extract.pairing.request_calls import message_calls, unspanned_calls
from tracesim.evaluator.extract.pieces import CallPiece
from tracesim.evaluator.extract.provenance import REQUEST
from tracesim.evaluator.extract.readers.answers import AnswerHistory
from tracesim.evaluator.extract.readers.wrapped_errors import unwrap_errors, wrapped_candidates
from tracesim.evaluator.extract.span import SpanView
from tracesim.schemas import ToolCall
from tracesim.schemas.conventions import LANGCHAIN

__all__ = ["pair_turn"]


def pair_turn(
    pieces: list[CallPiece], others: list[Any], scope: ConversationSpans
) -> tuple[list[ToolCall], list[str]]:
    """The turn's calls from its span pieces and its other spans (`scope`: the
    conversation, where requests and answers of other traces are), in start order, and
    the other ids calls are known by (`audit`: they explain requests and answers)."""
    if not pieces:
        return message_calls(others, scope)
    pieces.sort(key=lambda piece: piece.order)
    if len(pieces) > 1:
        pieces = merge_nested(pieces, others)
    own = needs_result = pending = False
    for piece in pieces:  # one loop: this runs for every turn
        if piece.needs:
            pending = True
        elif piece.id:
            own = True
        call = piece.call
        if call.result is None and call.error is None:
            needs_result = True
    wrapped = wrapped_candidates(pieces)  # errors that may be a wrapper's message
    if not (own or needs_result or pending or wrapped):
        return [p.call for p in pieces], []
    traces = {p.view.trace_id for p in pieces}
    # Without a missing result, the model spans serve only their requests: a row that
    # certainly requests nothing (the turn span, most agent spans) is never viewed.
    candidates = others if needs_result else [s for s in others if row_may_hold_requests(s)]
    models = sorted(
        (v for v in views_of(candidates) if v.trace_id in traces), key=SpanView.sort_key
    )
    if own:
        _own_ids(pieces, models, whole=pending)
        pending = pending or any(p.needs for p in pieces)
    doubled: dict[str, str] = {}  # a request's id -> its double's (`doubles`)
    if pending:
        _recover(pieces, models, scope, doubled)
    calls = [p.call for p in pieces]
    aliases = [p.alias for p in pieces if p.alias]
    if doubled:
        for piece in pieces:
            other = doubled.get(piece.call.id)
            if other:
                aliases.append(other)
                if not piece.alias:
                    piece.alias = other
    if needs_result:
        _answers(pieces, models, scope)
    if wrapped:
        unwrap_errors(wrapped, scope.answer_history() if scope.given else AnswerHistory(models))
    if pending and scope.given and all(c.id for c in calls):
        extra = unspanned_calls(calls, models, scope, others)
        if extra or any(call.start_time is None for call in calls):
            calls.extend(extra)
            calls.sort(key=_start_key)  # (calls in span order are in start order already)
    return calls, aliases


def _own_ids(pieces: list[CallPiece], models: list[SpanView], *, whole: bool) -> None:
    """Span pieces under an id no request of their trace names, where requests name their
    calls under other ids: such a span pairs like one without an id, in place. `whole`:
    the requests are read whole (pairing needs them), else their ids only (the audit reads
    the same keys: cached on the view)."""
    requested: set[str] = set()
    for view in models:
        if whole:
            requested.update(r.id for r in safe_requested_calls(view))
            continue
        try:
            requested.update(call_id for call_id, _ in request_keys(view) if call_id)
        except Exception:  # noqa: BLE001 - an unreadable model span: the audit says so
            continue
    if not requested:
        return
    for piece in pieces:
        if not piece.needs and piece.id and piece.id not in requested:
            piece.needs = True


def _apply(
    piece: CallPiece, request: CallPiece | None, named: set[str], *, agreed: bool = False
) -> bool:
    """Fill what a span piece lacked from the request it answers; True when done. An id
    no request names (`named`) gives way to the request's, the one its answers and
    explicit reports use; where the span keeps its own, the request's is its alias.
    Arguments the span ran that differ from the request's are kept and reported as a
    conflict (`agreed`: paired on equal arguments, nothing to compare)."""
    if request is None:
        return False
    call = piece.call
    provenance = call.provenance if call.provenance is not None else {}
    if not call.id or (request.id and call.id not in named):
        if call.id and request.id:
            piece.alias = call.id  # the span's own id may still name its answer
        call.id = request.id or call.id
        if request.id:
            provenance["id"] = REQUEST
    elif request.id and request.id != call.id:
        piece.alias = request.id
    if call.name in LANGCHAIN.GENERIC_TOOL_CLASSES:
        call.name = request.name  # the span named the tool's class; the request names the tool
        provenance["name"] = REQUEST
    if piece.bare is not None or not call.arguments:
        call.arguments = dict(request.arguments)
        if call.arguments:
            provenance["arguments"] = REQUEST
    elif not agreed and request.arguments and not request.same_arguments(call.arguments):
        # the span ran other arguments than the request asked for: kept (what ran), said
        conflicts = provenance.get("conflicts")
        provenance["conflicts"] = f"{conflicts},arguments" if conflicts else "arguments"
    call.provenance = provenance
    return True


def _recover(
    pieces: list[CallPiece],
    models: list[SpanView],
    scope: ConversationSpans,
    doubled: dict[str, str],
) -> None:
    """Pair the span pieces that need it with the model requests of their trace, then
    (still unpaired) of the whole conversation, the latest made before each span; a
    nested model span's doubles of its parent's requests are one request (`doubled`
    receives their other ids)."""
    pending = [p for p in pieces if p.needs]
    left = []
    for trace_id in dict.fromkeys(p.view.trace_id for p in pending):  # in start order
        requested = distinct_requests(
            [v for v in models if v.trace_id == trace_id], with_ids=False, aliases=doubled
        )
        in_trace = [p for p in pending if p.view.trace_id == trace_id]
        taken = {p.call.id for p in pieces if p.view.trace_id == trace_id and p.call.id}
        agreed: set[int] = set()
        chosen = assign_requests(in_trace, requested, taken=taken, agreed=agreed)
        named = {r.id for r in requested if r.id}
        for index, (piece, request) in enumerate(zip(in_trace, chosen, strict=True)):
            if not _apply(piece, request, named, agreed=index in agreed):
                left.append(piece)
    if not left or not scope.given:
        return
    requested = distinct_requests(
        [v for v in scope.views() if row_may_hold_requests(v)], aliases=doubled
    )
    if not requested:
        return
    taken = {p.call.id for p in pieces if p.call.id}
    agreed = set()
    chosen = assign_requests(left, requested, taken=taken, latest=True, agreed=agreed)
    named = {r.id for r in requested if r.id}
    for index, (piece, request) in enumerate(zip(left, chosen, strict=True)):
        _apply(piece, request, named, agreed=index in agreed)


def _answers(pieces: list[CallPiece], models: list[SpanView], scope: ConversationSpans) -> None:
    """Outcomes the spans lack, from the answers the model inputs carried
    (`answer_pairing.pair_answers`, the one pairing of answers with calls)."""
    calls = [p.call for p in pieces]
    aliases = {i: p.alias for i, p in enumerate(pieces) if p.alias}
    history = scope.answer_history() if scope.given else AnswerHistory(models)
    requesters = scope.views() if scope.given else models
    fresh = Fresh(models, requesters, set(aliases.values()))
    after = models[0].sort_key() if models else None
    pair_answers(calls, history, aliases=aliases, after=after, fresh=fresh)


def _start_key(call: ToolCall) -> tuple[bool, Any]:
    start = call.start_time
    return (start is None, start.timestamp() if start is not None else 0.0)
