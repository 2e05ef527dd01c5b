"""`lane_calls`: a turn's calls when its evidence is unambiguous, else None (SPEC §5).

The turn is claimed when the general model (`extract_tool_calls`) would keep every tool
span's own reading as one call, in start order, and its audit would list nothing:
- every span is a simple tool span (`tool_row`) or records no tool call; all tool spans in
  one trace, none below another (`pairing.nested` would merge them), no lifecycle names;
- ids unique; every id the turn's model requests name is a call's, every id-less request
  has a call of its name, every tool message a model input carries answers a call or a
  request of the turn (`audit.audit_turn`: nothing unexplained);
- when the spans carry ids, the requests of their trace (if any) name them all
  (`pairing.turn._own_ids`: a span under an id of its own pairs with a request);
- when some carry none, the trace's model replies (none nested in another) request
  exactly these tools, in this order, with canonically equal arguments, under distinct
  ids: each id-less call takes its request's id (provenance
  `model_request`), as `pairing.assign` pairs them by arguments;
- no call is an answer tool (`answer_tools.split_answer_tool`, called as the general model
  calls it: the turn's last call, and a delegate agent's answer below another call, read
  through the tool spans' own parents), no model input flags an answer as failed
  (`calls._flag_failures`), no other span's instrumentation failed while recording it
  (`instrumentation_errors`: the audit lists it whatever the tool spans say).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from tracesim.evaluator.calls.canonical import args_equal
from tracesim.evaluator.extract.instrumentation_errors import instrumentation_errors
from tracesim.evaluator.extract.lane.tool_row import ABORT, CANDIDATE, TOOL, Piece, read_row
from tracesim.evaluator.extract.pairing.answer_tools import split_answer_tool
from tracesim.evaluator.extract.pairing.nested import LIFECYCLE_NAMES
from tracesim.evaluator.extract.pairing.recover import (
    request_keys,
    row_may_hold_requests,
    safe_requested_calls,
)
from tracesim.evaluator.extract.provenance import REQUEST
from tracesim.evaluator.extract.readers.answers import (
    FAILURE_MARKERS,
    row_may_hold_responses,
    tool_responses,
)
from tracesim.evaluator.extract.span import SpanView, has_marker, view_of
from tracesim.schemas import ToolCall

__all__ = ["lane_calls"]

_ANCESTRY = 16
"""How far up `pairing.nested` walks a tool span's parents."""


def lane_calls(spans: Iterable[Any]) -> list[ToolCall] | None:
    """The turn's calls (what `extract_tool_calls` returns, with an empty audit) when its
    evidence is unambiguous (the module docstring), else None: the general model decides.
    `spans`: the turn's `spans` rows (attributes as JSON text). Never raises."""
    try:
        return _claim(spans)
    except Exception:  # noqa: BLE001 - in doubt, the general model reads the turn
        return None


def _claim(spans: Iterable[Any]) -> list[ToolCall] | None:
    pieces: list[Piece] = []
    others: list[Any] = []
    viewed: set[int] = set()  # others the general model views whole (a tool marker)
    for row in spans:
        kind, read = read_row(row)
        if kind == ABORT:
            return None
        if kind == TOOL:
            pieces.append(read)
        else:
            if kind == CANDIDATE:
                viewed.add(id(read))
            others.append(read)
    if not pieces:
        return None
    trace = pieces[0].trace_id
    pieces.sort(key=_start)
    calls = [piece.call for piece in pieces]
    if not _separate(pieces, others, trace) or _failure_flags(others):
        return None
    if instrumentation_errors(others):  # the audit would list them (cheap: a text test)
        return None
    ids = [call.id for call in calls if call.id]
    if len(set(ids)) != len(ids):
        return None
    # what the general model screens by text it reads from a row, but reads whole from a
    # span it viewed (a tool marker): the same spans here
    requesters = [view_of(o) for o in others if id(o) in viewed or row_may_hold_requests(o)]
    models = sorted((v for v in requesters if v.trace_id == trace), key=SpanView.sort_key)
    if len(ids) < len(calls):
        for view in models:  # read whole once: `request_keys` then reads the cache
            safe_requested_calls(view)
        if not _take_request_ids(pieces, models):
            return None
    elif not _requests_name_spans(calls, models):
        return None
    responders = [view_of(o) for o in others if id(o) in viewed or row_may_hold_responses(o)]
    if not _explained(calls, requesters, responders) or _answer_tool(pieces, others):
        return None
    return calls


def _start(piece: Piece) -> tuple:
    return piece.key


def _separate(pieces: list[Piece], others: list[Any], trace: str) -> bool:
    """One trace, and no tool span below another (nor a lifecycle event's name)."""
    own = {piece.span_id for piece in pieces}
    names = set()
    for piece in pieces:
        name = piece.call.name
        if piece.trace_id != trace or name in LIFECYCLE_NAMES or piece.parent_span_id in own:
            return False
        names.add(name)
    if len(names) == len(pieces):
        return True
    parents = {v.span_id: v.parent_span_id for v in others if type(v) is SpanView}
    for o in others:
        if type(o) is dict:
            parents[str(o.get("span_id") or "").lower()] = str(
                o.get("parent_span_id") or ""
            ).lower()
    for piece in pieces:  # a repeated name: `merge_nested` walks up through other spans
        span_id, seen, depth = piece.parent_span_id, set(), _ANCESTRY
        while span_id and span_id not in seen and depth > 0:
            if span_id in own:
                return False
            seen.add(span_id)
            span_id, depth = parents.get(span_id, ""), depth - 1
    return True


def _failure_flags(others: list[Any]) -> bool:
    """Whether a model input may flag a tool answer as failed (`calls._flag_failures`)."""
    for other in others:
        if type(other) is dict:
            raw = other.get("attributes")
            if type(raw) is not str or has_marker(raw, FAILURE_MARKERS):
                return True
        elif other.raw_may_hold(*FAILURE_MARKERS):
            return True
    return False


def _answer_tool(pieces: list[Piece], others: list[Any]) -> bool:
    """Whether a call is the agent's answer tool (`answer_tools.split_answer_tool`, the
    general rule, called as `extract_tool_calls` calls it)."""
    calls = [piece.call for piece in pieces]
    traces = {piece.span_id: piece.trace_id for piece in pieces}
    parents = {piece.span_id: piece.parent_span_id for piece in pieces}
    kept, _ = split_answer_tool(calls, others, traces, parents)
    return len(kept) != len(calls)


def _requests_name_spans(calls: list[ToolCall], models: list[SpanView]) -> bool:
    """Every span's id is one the trace's requests name (or they name none)."""
    requested = {call_id for view in models for call_id, _ in request_keys(view) if call_id}
    return not requested or all(call.id in requested for call in calls)


def _take_request_ids(pieces: list[Piece], models: list[SpanView]) -> bool:
    """Id-less spans answering the trace's model replies, request by request: each call
    takes its request's id (in place); False (nothing changed) unless unambiguous."""
    holding = [view for view in models if request_keys(view)]
    spans = {view.span_id for view in holding}
    if any(view.parent_span_id in spans for view in holding):
        return False  # a nested reply may double its parent's requests (`doubles`)
    requests = []
    for view in holding:
        read = safe_requested_calls(view, with_ids=False)
        if [(r.id, r.name) for r in read] != request_keys(view):
            return False
        requests.extend(read)
    if len(requests) != len(pieces):
        return False
    ids = [r.id for r in requests]
    if not all(ids) or len(set(ids)) != len(ids) or any(r.alias for r in requests):
        return False
    calls = [piece.call for piece in pieces]
    used = {call.id for call in calls if call.id}
    for index, (call, request) in enumerate(zip(calls, requests, strict=True)):
        if call.start_time is None or request.name != call.name:
            return False
        if call.id:
            if call.id != request.id:
                return False
            continue
        # `assign_requests` on these spans: the first free request of the name whose
        # arguments are equal; it must be this one
        choice = next(
            (
                r
                for r in requests
                if r.id not in used
                and r.name == call.name
                and args_equal(r.arguments, call.arguments)
            ),
            None,
        )
        if choice is not requests[index]:
            return False
        used.add(request.id)
    for call, request in zip(calls, requests, strict=True):
        if not call.id:
            call.id = request.id
            call.provenance = {"id": REQUEST}
    return True


def _explained(
    calls: list[ToolCall], requesters: list[SpanView], responders: list[SpanView]
) -> bool:
    """Whether the audit finds nothing: every request named by a call (id-less ones by a
    call of their name), every tool message answering a call or a request of the turn."""
    named = {call.id for call in calls}
    requested: set[str] = set()
    names: Counter[str] | None = None
    for view in requesters:
        for call_id, name in request_keys(view):
            if call_id:
                if call_id not in named:
                    return False
                requested.add(call_id)
                continue
            if names is None:
                names = Counter(call.name for call in calls)
            if names[name] <= 0:
                return False
            names[name] -= 1
    for view in responders:
        for call_id in tool_responses([view]):
            if call_id not in named and call_id not in requested:
                return False
    return True
