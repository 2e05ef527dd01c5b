"""Spans -> tool calls (SPEC §5): gather a turn's evidence, pair it once.

`extract_tool_calls(spans)` reads every span of a turn once: tool and MCP spans become
call pieces (`tool_spans`), the other spans hold the model requests, replays and answers;
`pairing.pair_turn` turns them into calls in one step (one call per real invocation, each
field from the best source, provenance kept) ordered by start time, then span id; the
audit lists what did not become a call.

Pure: spans in, tool calls out. A span that cannot be read is skipped with a warning;
extraction never raises for one bad span.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from tracesim.evaluator.extract.audit import SKIPPED_SPAN, Unexplained, audit_turn
from tracesim.evaluator.extract.context import ConversationSpans, span_label, views_of
from tracesim.evaluator.extract.instrumentation_errors import instrumentation_errors
from tracesim.evaluator.extract.pairing.answer_tools import split_answer_tool
from tracesim.evaluator.extract.pairing.recover import row_may_hold_requests
from tracesim.evaluator.extract.pairing.turn import pair_turn
from tracesim.evaluator.extract.pieces import CallPiece
from tracesim.evaluator.extract.provenance import INPUT, note
from tracesim.evaluator.extract.readers.answers import (
    FAILURE_MARKERS,
    row_may_hold_responses,
    tool_responses,
)
from tracesim.evaluator.extract.readers.errors import failure_text
from tracesim.evaluator.extract.readers.tool_spans import span_piece
from tracesim.evaluator.extract.span import SpanView, has_marker, row_may_be_tool_span, view_of
from tracesim.evaluator.extract.unread import unread_requests
from tracesim.schemas import ToolCall

__all__ = ["extract_tool_calls"]

logger = logging.getLogger(__name__)


def extract_tool_calls(
    spans: Iterable[Any],
    *,
    context: Iterable[Any] | None = None,
    audit: list[Unexplained] | None = None,
) -> list[ToolCall]:
    """Tool calls recorded by `spans`, ordered by start time, then span id.

    `spans` are OTel SDK `ReadableSpan` objects or rows of the `spans` table
    (mappings; `attributes` and `events` may be JSON text). Spans that are
    not tool calls are ignored; spans that cannot be read are skipped with a
    warning. `context` (the conversation's spans) is where ids, arguments and
    results are recovered from when the calls' own traces lack them; in a
    conversation without any tool span, the calls the model requested are the
    calls (`request_calls`). Pass one `ConversationSpans` for every turn of a
    conversation: its spans are then viewed and parsed once, not once per turn.
    `audit`, when given, receives the turn's evidence no call explains (`extract.audit`).
    """
    pieces: list[CallPiece] = []
    others: list[Any] = []  # not tool calls: the requests, replays and answers
    skipped: list[Unexplained] = []  # tool spans that are no call, and why
    for span in spans:
        if not row_may_be_tool_span(span):
            others.append(span)
            continue
        try:
            view = view_of(span)
            found = span_piece(view)
        except Exception as exc:  # one bad span must not stop extraction
            logger.warning("skipping unreadable span %r: %s", span_label(span), exc)
            skipped.append(_skipped(span, SKIPPED_SPAN, f"unreadable: {exc}"))
            continue
        if found is None:
            others.append(view)
        elif type(found) is tuple:
            others.append(view)
            kind, why, name = found
            skipped.append(Unexplained(kind, view.trace_id, view.span_id, name, why))
        else:
            pieces.append(found)
    scope = context if isinstance(context, ConversationSpans) else ConversationSpans(context)
    requesters: list[Any] = []
    responders: list[Any] = []
    if audit is not None:  # one view per model span, shared with the audit (parsed once)
        shared = []
        for other in others:
            asks, answers = row_may_hold_requests(other), row_may_hold_responses(other)
            if asks or answers:
                other = view_of(other)
                if asks:
                    requesters.append(other)
                if answers:
                    responders.append(other)
            shared.append(other)
        others = shared
    traces = {piece.view.span_id: piece.view.trace_id for piece in pieces}
    found_calls, aliases = pair_turn(pieces, others, scope)
    parents = {piece.view.span_id: piece.view.parent_span_id for piece in pieces}
    found_calls, answers = split_answer_tool(found_calls, others, traces, parents)
    skipped.extend(answers)
    if found_calls:
        _flag_failures(found_calls, others)
    if audit is not None:
        audit.extend(instrumentation_errors(others))
        audit.extend(unread_requests(others, calls=len(found_calls)))
        audit.extend(skipped)
        audit.extend(
            audit_turn(
                requesters,
                responders,
                found_calls,
                aliases=aliases,
                context=scope,
                skipped=skipped,
            )
        )
    return found_calls


def _flag_failures(calls: list[ToolCall], others: list[Any]) -> None:
    """A call whose answer a later model input flags as failed (Anthropic `is_error`,
    Bedrock `status: error`) failed: its output is the error, in place. Only rows whose
    text may hold such a flag are read."""
    flagged = [s for s in others if _may_flag(s)]
    if not flagged:
        return
    failed: set[str] = set()
    tool_responses(views_of(flagged), failed=failed)
    for call in calls:
        if call.error is None and call.id and call.id in failed:
            text = call.result
            call.error = failure_text(text) if isinstance(text, str) and text else text or "error"
            call.result = None
            note(call, "error", INPUT)


def _may_flag(span: Any) -> bool:
    if type(span) is dict:
        raw = span.get("attributes")
        return not isinstance(raw, str) or has_marker(raw, FAILURE_MARKERS)
    return span.raw_may_hold(*FAILURE_MARKERS) if type(span) is SpanView else True


def _skipped(span: Any, kind: str, why: str) -> Unexplained:
    get = span.get if isinstance(span, dict) else lambda key: getattr(span, key, None)
    return Unexplained(
        kind, str(get("trace_id") or ""), str(get("span_id") or ""), str(get("name") or ""), why
    )


def _skipped(span: Any, kind: str, why: str) -> Unexplained:
    get = span.get if isinstance(span, dict) else lambda key: getattr(span, key, None)
    return Unexplained(
        kind, str(get("trace_id") or ""), str(get("span_id") or ""), str(get("name") or ""), why
    )
