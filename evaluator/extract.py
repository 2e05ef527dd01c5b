"""Spans -> tool calls (SPEC §5).

`extract_tool_calls(spans)` finds the spans that record a tool call under
any convention we read, turns each into a `ToolCall` (source
`tracing_processor`, `span_id`, `start_time`, `duration_ms` set), recovers
missing tool-call ids from the model spans of the same trace, and orders
the calls by span start time, then span id.

Pure: spans in, tool calls out. A span that cannot be read is skipped with a
warning; extraction never raises for one bad span. The field-by-field
precedence lives in `extract_fields`, the span shapes in `extract_span`, id
recovery in `extract_recover`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from evaluator.extract_fields import (
    is_tool_span,
    tool_arguments,
    tool_call_id,
    tool_error,
    tool_name,
    tool_result,
)
from evaluator.extract_recover import assign_recovered_ids, safe_requested_calls
from evaluator.extract_span import SpanView, row_may_be_tool_span, view_of
from schemas import ADK, ToolCall, ToolCallSource

__all__ = ["extract_tool_calls"]

logger = logging.getLogger(__name__)

_SOURCE = ToolCallSource.TRACING_PROCESSOR


def _tool_call(span: SpanView) -> ToolCall | None:
    """The tool call a span records, or None when it is not a tool span."""
    if not span.may_be_tool_span() or not is_tool_span(span):
        return None
    name = tool_name(span)
    if name == ADK.MERGED_TOOLS_NAME:
        return None  # ADK's summary of parallel calls: each call has its own span
    if not name:
        logger.warning("skipping tool span %s: no tool name in any convention", span.span_id)
        return None
    attributes = span.attributes
    # Plain construction: measured faster than model_construct (pydantic 2).
    return ToolCall(
        id=tool_call_id(attributes),
        name=name,
        arguments=tool_arguments(attributes),
        result=tool_result(attributes),
        error=tool_error(span),
        source=_SOURCE,
        span_id=span.span_id or None,
        start_time=span.start_time,
        duration_ms=span.duration_ms,
    )


def _views(spans: list[Any]) -> list[SpanView]:
    views = []
    for span in spans:
        try:
            views.append(view_of(span))
        except Exception as exc:  # one bad span must not stop extraction
            logger.warning("skipping unreadable span %r: %s", _span_label(span), exc)
    return views


def _recover_ids(calls: list[tuple[SpanView, ToolCall]], others: list[Any]) -> None:
    """Fill ids of id-less calls from model spans of the same trace, in place."""
    traces = {view.trace_id for view, call in calls if not call.id}
    models = sorted((v for v in _views(others) if v.trace_id in traces), key=SpanView.sort_key)
    for trace_id in traces:
        requested = [r for v in models if v.trace_id == trace_id for r in safe_requested_calls(v)]
        if not requested:
            continue
        in_trace = [call for view, call in calls if view.trace_id == trace_id]
        missing = [call for call in in_trace if not call.id]
        taken = {call.id for call in in_trace if call.id}
        ids = assign_recovered_ids(
            [(call.name, call.arguments) for call in missing], requested, taken=taken
        )
        for call, call_id in zip(missing, ids, strict=True):
            if call_id:
                call.id = call_id


def extract_tool_calls(spans: Iterable[Any]) -> list[ToolCall]:
    """Tool calls recorded by `spans`, ordered by start time, then span id.

    `spans` are OTel SDK `ReadableSpan` objects or rows of the `spans` table
    (mappings; `attributes` and `events` may be JSON text). Spans that are
    not tool calls are ignored; spans that cannot be read are skipped with a
    warning.
    """
    calls: list[tuple[SpanView, ToolCall]] = []
    others: list[Any] = []  # not tool calls: read again only to recover ids
    for span in spans:
        if not row_may_be_tool_span(span):
            others.append(span)
            continue
        try:
            view = view_of(span)
            call = _tool_call(view)
        except Exception as exc:  # one bad span must not stop extraction
            logger.warning("skipping unreadable span %r: %s", _span_label(span), exc)
            continue
        if call is None:
            others.append(view)
        else:
            calls.append((view, call))
    if not calls:
        return []
    calls.sort(key=lambda pair: pair[0].sort_key())
    if others and any(not call.id for _, call in calls):
        _recover_ids(calls, others)
    return [call for _, call in calls]


def _span_label(span: Any) -> str:
    if isinstance(span, dict):
        return str(span.get("span_id") or span.get("name") or "?")
    return str(getattr(span, "name", "?"))
