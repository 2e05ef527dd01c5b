"""Tool evidence that did not become a call (SPEC §5: nothing is dropped in silence).

After extraction, the pieces of a turn's evidence that no call explains:
- a model request never answered: a requested call (any convention `recover` reads) whose
  id is no call's (nor the id of the request a call answered) and that no tool message
  answered anywhere in the conversation; an id-less request beyond the calls of its name;
- a result with no call: a tool message a model input carried whose id no call and no
  request of the conversation names;
- a skipped span: a tool span extraction could not read (no name in any convention, an
  unreadable payload), with why; known non-calls (ADK's `(merged tools)` summary, an
  agent's answer tool: `extract.answer_tools`) are `ignored`, listed by `inspect` but not
  warned about;
- a conflict: two sources of one call disagreeing on a field (the value kept says which).

Pure: spans and calls in, items out. `tracesim inspect` lists the items, `evaluate` counts
them per kind (`WARNED_KINDS`) in a one-line warning, the report shows the counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tracesim.evaluator.extract.context import ConversationSpans, views_of
from tracesim.evaluator.extract.pairing.recover import request_keys, safe_requested_calls
from tracesim.evaluator.extract.readers.answers import tool_responses
from tracesim.evaluator.extract.span import SpanView
from tracesim.schemas import ToolCall

__all__ = [
    "CONFLICT",
    "IGNORED_SPAN",
    "INSTRUMENTATION_ERROR",
    "KINDS",
    "RESULT_WITHOUT_CALL",
    "SKIPPED_SPAN",
    "UNANSWERED_REQUEST",
    "UNCOUNTED_USAGE",
    "UNREAD_REQUEST",
    "UNREAD_TURN",
    "WARNED_KINDS",
    "Unexplained",
    "audit_turn",
    "count_kinds",
    "settle",
]

UNANSWERED_REQUEST = "unanswered_request"
RESULT_WITHOUT_CALL = "result_without_call"
SKIPPED_SPAN = "skipped_span"
IGNORED_SPAN = "ignored_span"
CONFLICT = "conflict"
UNCOUNTED_USAGE = "uncounted_usage"  # found by `inspect_sql`
UNREAD_TURN = "unread_turn"  # found by `extract.unread`
UNREAD_REQUEST = "unread_request"  # found by `extract.unread` and `extract.contentless`
INSTRUMENTATION_ERROR = "instrumentation_error"  # found by `extract.instrumentation_errors`
KINDS: dict[str, str] = {
    UNANSWERED_REQUEST: "model requests never answered",
    RESULT_WITHOUT_CALL: "tool results with no call",
    SKIPPED_SPAN: "tool spans skipped",
    CONFLICT: "calls whose sources disagree",
    UNREAD_TURN: "turns whose agent spans gave no model call and no tool evidence",
    UNREAD_REQUEST: "model calls whose tool requests are unreadable or not recorded",
    INSTRUMENTATION_ERROR: "spans whose instrumentation failed while recording them",
    UNCOUNTED_USAGE: "spans with token usage no model call accounts for",
    IGNORED_SPAN: "tool spans that are not calls (summaries, answer tools)",
}
"""Kind -> what its items are, in the order they are reported."""
WARNED_KINDS: tuple[str, ...] = (
    UNANSWERED_REQUEST,
    RESULT_WITHOUT_CALL,
    SKIPPED_SPAN,
    CONFLICT,
    UNREAD_TURN,
    UNREAD_REQUEST,
    INSTRUMENTATION_ERROR,
    UNCOUNTED_USAGE,
)
"""Kinds `evaluate` warns about (ignored spans are expected: they are listed only)."""


@dataclass(frozen=True)
class Unexplained:
    """One piece of evidence no call explains."""

    kind: str
    trace_id: str
    span_id: str
    name: str
    """The tool's name (or the span's, for a skipped span)."""
    detail: str
    """Why, or the id involved."""


def count_kinds(items: Iterable[Unexplained]) -> dict[str, int]:
    """Items per kind."""
    return dict(Counter(item.kind for item in items))


def audit_turn(
    requesters: Iterable[Any],
    responders: Iterable[Any],
    calls: list[ToolCall],
    *,
    aliases: Iterable[str] = (),
    context: ConversationSpans | None = None,
    skipped: Iterable[Unexplained] = (),
) -> list[Unexplained]:
    """Requests (of `requesters`) and tool messages (of `responders`: the turn's spans that
    may carry them) that no call of `calls` explains, and the calls' conflicts. `aliases`: ids of requests calls answered under other ids.
    `context`: the conversation (answers and requests of other turns explain history).
    `skipped`: the turn's spans that were no call (an ignored span explains its requests)."""
    found: list[Unexplained] = []
    for call in calls:
        provenance = call.provenance
        conflicts = provenance.get("conflicts") if provenance else None
        if conflicts:
            found.append(
                Unexplained(CONFLICT, "", call.span_id or "", call.name, f"fields: {conflicts}")
            )
    requesters = sorted(views_of(requesters), key=SpanView.sort_key)
    responders = sorted(views_of(responders), key=SpanView.sort_key)
    if not requesters and not responders:
        return found
    named = {c.id for c in calls if c.id}
    named.update(a for a in aliases if a)
    # a request of a tool whose span is a known non-call (an answer tool, a summary) is that
    ignored = {item.name for item in skipped if item.kind == IGNORED_SPAN} if skipped else ()
    requested: dict[str, tuple[SpanView, str]] = {}
    idless: list[tuple[SpanView, str]] = []
    for view in requesters:
        try:
            keys = request_keys(view)
        except Exception as exc:  # noqa: BLE001 - an unreadable model span is itself evidence
            found.append(
                Unexplained(
                    SKIPPED_SPAN,
                    view.trace_id,
                    view.span_id,
                    view.name,
                    f"model span unreadable: {exc}",
                )
            )
            continue
        for call_id, name in keys:
            if call_id:
                requested.setdefault(call_id, (view, name))
            else:
                idless.append((view, name))
    answers: dict[str, str | None] | None = None
    scope = context if context is not None and context.given else None
    found.extend(_renamed(calls, requested))
    for call_id, (view, name) in requested.items():
        if call_id in named or name in ignored:
            continue
        if answers is None:
            answers = scope.responses() if scope is not None else tool_responses(responders)
        if call_id not in answers:
            found.append(
                Unexplained(UNANSWERED_REQUEST, view.trace_id, view.span_id, name, call_id)
            )
    names = Counter(c.name for c in calls) if idless else None
    for view, name in idless:
        if name in ignored:
            continue
        if names[name] > 0:  # type: ignore[index]
            names[name] -= 1
        else:
            found.append(Unexplained(UNANSWERED_REQUEST, view.trace_id, view.span_id, name, ""))
    found.extend(_orphan_results(responders, named, requested, scope))
    return found


def _renamed(
    calls: list[ToolCall], requested: dict[str, tuple[SpanView, str]]
) -> list[Unexplained]:
    """Calls whose id names a request of another tool: the span says what ran, the request
    what the model asked for; kept as the span says, and reported (SPEC §5: conflicts are
    never resolved silently)."""
    if not requested:
        return []
    found = []
    for call in calls:
        asked = requested.get(call.id) if call.id else None
        if asked is None:
            continue
        view, name = asked
        if name and call.name and name != call.name:
            found.append(
                Unexplained(
                    CONFLICT,
                    view.trace_id,
                    call.span_id or view.span_id,
                    call.name,
                    f"name: request {call.id} asked for {name!r}",
                )
            )
    return found


def _orphan_results(
    models: list[SpanView],
    named: set[str],
    requested: dict[str, Any],
    scope: ConversationSpans | None,
) -> list[Unexplained]:
    """Tool messages whose id no call and no request (of the conversation) names."""
    loose: dict[str, SpanView] = {}
    for view in models:
        for call_id in tool_responses([view]):
            if call_id not in named and call_id not in requested:
                loose.setdefault(call_id, view)
    if loose and scope is not None:
        for view in scope.views():
            for request in safe_requested_calls(view):
                loose.pop(request.id, None)
    return [
        Unexplained(RESULT_WITHOUT_CALL, view.trace_id, view.span_id, "", call_id)
        for call_id, view in loose.items()
    ]


def settle(items: list[Unexplained], calls: Iterable[ToolCall]) -> list[Unexplained]:
    """`items` of a conversation's turns without the requests and results a call of another
    turn explains (a tool span in a trace of its own whose id came from another trace's
    model request: each call its own trace, OpenInference manual loops)."""
    calls = list(calls)  # read twice: a generator would leave `names` empty
    ids = {call.id for call in calls if call.id}
    names = {call.name for call in calls}
    return [
        item
        for item in items
        if not (
            (item.kind in (UNANSWERED_REQUEST, RESULT_WITHOUT_CALL) and item.detail in ids)
            or (item.kind == UNANSWERED_REQUEST and not item.detail and item.name in names)
            or (item.kind == UNREAD_REQUEST and names)  # calls found: maybe in other traces
        )
    ]
