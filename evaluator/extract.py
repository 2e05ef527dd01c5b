"""Spans -> tool calls (SPEC §5).

`extract_tool_calls(spans)` finds the spans that record a tool call under
any convention we read, turns each into a `ToolCall` (source
`tracing_processor`, `span_id`, `start_time`, `duration_ms` set), recovers
missing tool-call ids (and arguments, when the tool span's input is a bare
value) from the model spans that requested the calls, in the same trace or
else in the conversation, and orders the calls by span start time, then span id.

Pure: spans in, tool calls out. A span that cannot be read is skipped with a
warning; extraction never raises for one bad span. The field-by-field
precedence lives in `extract_fields`, the span shapes in `extract_span`, id
recovery in `extract_recover`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from evaluator.extract_fields import (
    FIELD_KEYS,
    is_tool_span,
    read_arguments,
    read_result,
    tool_call_id,
    tool_error,
    tool_name,
)
from evaluator.extract_recover import (
    PendingCall,
    RequestedCall,
    assign_requests,
    row_may_hold_requests,
    safe_requested_calls,
)
from evaluator.extract_span import SpanView, row_may_be_tool_span, view_of
from schemas import ADK, GENAI, ToolCall, ToolCallSource

__all__ = ["extract_tool_calls"]

logger = logging.getLogger(__name__)

_SOURCE = ToolCallSource.TRACING_PROCESSOR
_EVENT_FIELDS = (GENAI.TOOL_CALL_ARGUMENTS, GENAI.TOOL_CALL_RESULT)


def _event_fields(span: SpanView) -> dict[str, Any]:
    """The span's attributes, completed by tool-call fields its events carry (content in
    span events, SPEC §5) when the attributes lack them."""
    attributes = span.attributes
    if not span.events or all(key in attributes for key in _EVENT_FIELDS):
        return attributes  # type: ignore[return-value]
    merged = dict(attributes)
    for event in span.events:
        event_attributes = event.get("attributes")
        if isinstance(event_attributes, Mapping):
            for key in FIELD_KEYS.intersection(event_attributes):
                merged.setdefault(key, event_attributes[key])
    return merged


def _tool_call(span: SpanView) -> tuple[ToolCall, PendingCall | None] | None:
    """The tool call a span records (and what it lacks), or None when it is not a tool span."""
    if not span.may_be_tool_span() or not is_tool_span(span):
        return None
    name = tool_name(span)
    if name == ADK.MERGED_TOOLS_NAME:
        return None  # ADK's summary of parallel calls: each call has its own span
    if not name:
        logger.warning("skipping tool span %s: no tool name in any convention", span.span_id)
        return None
    attributes = _event_fields(span)
    arguments, is_object, args_id = read_arguments(attributes)
    result, result_id = read_result(attributes)
    call_id = tool_call_id(attributes) or args_id or result_id
    error = tool_error(span)
    # Plain construction: measured faster than model_construct (pydantic 2).
    call = ToolCall(
        id=call_id,
        name=name,
        arguments=arguments,
        result=None if error is not None else result,  # what a failed call's span output
        error=error,  # holds is the error told to the model, not a return value
        source=_SOURCE,
        span_id=span.span_id or None,
        start_time=span.start_time,
        duration_ms=span.duration_ms,
    )
    if call_id and is_object:
        return call, None
    bare = None if is_object else arguments.get("input")
    return call, PendingCall(name, arguments, call_id, bare, span.sort_key())


def _views(spans: list[Any]) -> list[SpanView]:
    views = []
    for span in spans:
        try:
            views.append(view_of(span))
        except Exception as exc:  # one bad span must not stop extraction
            logger.warning("skipping unreadable span %r: %s", _span_label(span), exc)
    return views


def _apply(call: ToolCall, pending: PendingCall, request: RequestedCall | None) -> bool:
    """Fill what `pending` lacked from the model request it answers; True when done."""
    if request is None:
        return False
    if not call.id:
        call.id = request.id
    if pending.bare is not None or not call.arguments:
        call.arguments = dict(request.arguments)
    return True


def _recover(
    calls: list[tuple[SpanView, ToolCall, PendingCall | None]],
    others: list[Any],
    context: Iterable[Any] | None,
) -> None:
    """Fill missing ids and bare arguments from the model requests of the same trace, then
    (still missing) of the whole conversation (`context`), in place."""
    pending = [(view, call, p) for view, call, p in calls if p is not None]
    traces = {view.trace_id for view, _, _ in pending}
    models = sorted((v for v in _views(others) if v.trace_id in traces), key=SpanView.sort_key)
    left = []
    for trace_id in traces:
        requested = [r for v in models if v.trace_id == trace_id for r in safe_requested_calls(v)]
        in_trace = [(call, p) for view, call, p in pending if view.trace_id == trace_id]
        taken = {c.id for v, c, _ in calls if v.trace_id == trace_id and c.id}
        chosen = assign_requests([p for _, p in in_trace], requested, taken=taken)
        for (call, p), request in zip(in_trace, chosen, strict=True):
            if not _apply(call, p, request):
                left.append((call, p))
    if not left or context is None:
        return
    requested = [
        r
        for v in sorted(
            _views([s for s in context if row_may_hold_requests(s)]), key=SpanView.sort_key
        )
        for r in safe_requested_calls(v)
    ]
    if not requested:
        return
    taken = {c.id for _, c, _ in calls if c.id}
    chosen = assign_requests([p for _, p in left], requested, taken=taken, latest=True)
    for (call, p), request in zip(left, chosen, strict=True):
        _apply(call, p, request)


def extract_tool_calls(
    spans: Iterable[Any], *, context: Iterable[Any] | None = None
) -> list[ToolCall]:
    """Tool calls recorded by `spans`, ordered by start time, then span id.

    `spans` are OTel SDK `ReadableSpan` objects or rows of the `spans` table
    (mappings; `attributes` and `events` may be JSON text). Spans that are
    not tool calls are ignored; spans that cannot be read are skipped with a
    warning. `context` (the conversation's spans) is where ids and arguments are
    recovered from when the calls' own traces lack them.
    """
    calls: list[tuple[SpanView, ToolCall, PendingCall | None]] = []
    others: list[Any] = []  # not tool calls: read again only to recover ids
    for span in spans:
        if not row_may_be_tool_span(span):
            others.append(span)
            continue
        try:
            view = view_of(span)
            found = _tool_call(view)
        except Exception as exc:  # one bad span must not stop extraction
            logger.warning("skipping unreadable span %r: %s", _span_label(span), exc)
            continue
        if found is None:
            others.append(view)
        else:
            calls.append((view, *found))
    if not calls:
        return []
    calls.sort(key=lambda item: item[0].sort_key())
    if any(p is not None for _, _, p in calls):
        _recover(calls, others, context)
    return [call for _, call, _ in calls]


def _span_label(span: Any) -> str:
    if isinstance(span, dict):
        return str(span.get("span_id") or span.get("name") or "?")
    return str(getattr(span, "name", "?"))
