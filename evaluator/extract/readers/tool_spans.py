"""Tool spans and MCP spans as call pieces (SPEC §5): the reader of every tool convention.

`span_piece(view)` reads one span: None when it records no tool call, a skip (kind, why,
name) for a tool span that is no call (`audit`: skipped or ignored), else a `CallPiece` of
kind `tool_span` (or `mcp_span` for an MCP `tools/call` span) carrying the call as the span
reads it, and whether it lacks what the model request it answers holds (`needs`: no id, a
bare input, empty arguments, a generic tool class for a name). Field precedence lives in
`fields`, error messages in `errors`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from tracesim.evaluator.extract.audit import IGNORED_SPAN, SKIPPED_SPAN
from tracesim.evaluator.extract.pieces import CallPiece
from tracesim.evaluator.extract.provenance import MCP_SPAN, PROVENANCE_FIELDS, TOOL_SPAN
from tracesim.evaluator.extract.readers.fields import (
    FIELD_KEYS,
    is_tool_span,
    read_arguments,
    read_output,
    tool_call_id,
    tool_error,
    tool_name,
)
from tracesim.evaluator.extract.span import SpanView
from tracesim.schemas import ADK, GENAI, ToolCall, ToolCallSource
from tracesim.schemas.conventions import LANGCHAIN, MCP

__all__ = ["span_piece"]

logger = logging.getLogger(__name__)

_SOURCE = ToolCallSource.TRACING_PROCESSOR
_EVENT_FIELDS = (GENAI.TOOL_CALL_ARGUMENTS, GENAI.TOOL_CALL_RESULT)
_TOOL_MESSAGE_EVENT = GENAI.EVENT_TOOL_MESSAGE
_CHOICE_EVENT = GENAI.EVENT_CHOICE

Skip = tuple[str, str, str]
"""(audit kind, why, name) of a tool span that is no call."""


def _event_fields(span: SpanView) -> Mapping[str, Any]:
    """The span's attributes, completed by tool-call fields its events carry (content in
    span events, SPEC §5) when the attributes lack them. On a tool span, the legacy GenAI
    events (Strands) are the call itself: `gen_ai.tool.message` {content, id} its input,
    `gen_ai.choice` {message} its output."""
    attributes = span.attributes
    if not span.events or all(key in attributes for key in _EVENT_FIELDS):
        return attributes
    merged = dict(attributes)
    for event in span.events:
        event_attributes = event.get("attributes")
        if not isinstance(event_attributes, Mapping):
            continue
        for key in FIELD_KEYS.intersection(event_attributes):
            merged.setdefault(key, event_attributes[key])
        name = event.get("name")
        if name == _TOOL_MESSAGE_EVENT and "content" in event_attributes:
            merged.setdefault(GENAI.TOOL_CALL_ARGUMENTS, event_attributes["content"])
            if event_attributes.get("id"):
                merged.setdefault(GENAI.TOOL_CALL_ID, event_attributes["id"])
        elif name == _CHOICE_EVENT and "message" in event_attributes:
            merged.setdefault(GENAI.TOOL_CALL_RESULT, event_attributes["message"])
    return merged


def span_piece(span: SpanView) -> CallPiece | Skip | None:
    """The call piece a span records, None when it is not a tool span, or a skip.

    The span was screened by `row_may_be_tool_span` (the text test `may_be_tool_span`
    would repeat): `is_tool_span` decides."""
    if not is_tool_span(span):
        return None
    name = tool_name(span)
    if name == ADK.MERGED_TOOLS_NAME:
        # ADK's summary of parallel calls: each call has its own span
        return IGNORED_SPAN, "ADK's summary of parallel calls (each has its own span)", name
    if not name:
        logger.warning("skipping tool span %s: no tool name in any convention", span.span_id)
        return SKIPPED_SPAN, "no tool name in any convention, nor in the span name", span.name
    attributes = _event_fields(span)
    arguments, is_object, args_id = read_arguments(attributes)
    result, result_id, failed = read_output(attributes)
    call_id = tool_call_id(attributes) or args_id or result_id
    error = tool_error(span) or (result or "error" if failed else None)
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
    kind = TOOL_SPAN
    if attributes.get(MCP.METHOD_NAME) == MCP.TOOLS_CALL:
        # what the span holds came from an MCP span; a tool span's own fields need no entry
        # (`provenance.source_of`: a traced call's default), the hot path builds no dict
        call.provenance = dict.fromkeys(PROVENANCE_FIELDS, MCP_SPAN)
        kind = MCP_SPAN
    # No id, a bare input, or empty `{}` arguments: the model request it answers holds the
    # rest (SPEC §5). (An id no request names is found out when pairing.)
    needs = not (call_id and is_object and arguments and name not in LANGCHAIN.GENERIC_TOOL_CLASSES)
    bare = None if is_object else arguments.get("input")
    return CallPiece(
        call_id,
        name,
        None,
        arguments,
        span.sort_key(),
        kind=kind,
        call=call,
        view=span,
        bare=bare,
        needs=needs,
    )
