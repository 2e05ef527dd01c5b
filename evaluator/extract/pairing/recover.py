"""A model span's requested tool calls, read once per span, and the ids they give back.

Some instrumentations record the tool-call id only on the model (LLM) span
whose response asked for the call, not on the tool span. Such a tool span
gets its id back from a requested call of the same trace with the same tool
name: first every tool call whose canonical arguments equal an unused
request's takes that request, then each remaining call (in start order)
takes the earliest unused request of its name. Each requested id is used
once, requests are consumed in the model spans' start order.

Requests are read from the span's attributes, else from its events and log records, in
every format `readers.requests` knows. The same requests also give a tool span its
arguments when its own input is not an object of arguments (a bare string): `assign`
pairs each call with the request it answers.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from tracesim.evaluator.extract.pairing.named_twice import ALIAS, name_twice
from tracesim.evaluator.extract.pieces import CallPiece
from tracesim.evaluator.extract.readers.arguments import parse_arguments
from tracesim.evaluator.extract.readers.requests import (
    REQUEST_MARKERS,
    from_indexed,
    from_messages,
    requests_in,
)
from tracesim.evaluator.extract.span import SpanView, row_may_hold
from tracesim.schemas import GENAI

__all__ = [
    "from_indexed",
    "from_messages",
    "request_keys",
    "requested_calls",
    "row_may_hold_requests",
    "safe_requested_calls",
]

logger = logging.getLogger(__name__)

_CHOICE_EVENT = GENAI.EVENT_CHOICE


def _raw_requests(span: SpanView) -> list[dict[str, Any]]:
    raw: list[dict[str, Any]] = []
    if span.may_hold_text(*REQUEST_MARKERS):
        raw.extend(requests_in(span.attributes))
        name_twice(span.attributes, raw)
    for event in span.events if not raw else ():
        attributes = event.get("attributes")
        if (type(attributes) is dict or isinstance(attributes, Mapping)) and attributes:
            raw.extend(requests_in(attributes, choice=event.get("name") == _CHOICE_EVENT))
    return raw


def request_keys(span: SpanView) -> list[tuple[str, str]]:
    """(id, tool name) of the calls a model span requested ("" id when none), without
    parsing their arguments (the audit needs no more); read from the cache when
    `safe_requested_calls` already read the span. Raises on an unreadable span."""
    if span.keys is not None:
        return span.keys
    if span.requests is not None:
        span.keys = [(r.id, r.name) for r in span.requests]
        return span.keys
    keys = []
    for item in _raw_requests(span):
        call_id, name = item.get("id"), item.get("name")
        if name:
            keys.append((str(call_id or ""), str(name)))
    span.keys = keys
    return keys


def requested_calls(span: SpanView, *, with_ids: bool = True) -> list[CallPiece]:
    """Tool calls a model span requested, in message order (empty for other spans); those
    without an id too when not `with_ids` (id "")."""
    raw = _raw_requests(span)
    calls = []
    order = span.sort_key()
    for item in raw:
        call_id, name = item.get("id"), item.get("name")
        if not name or (with_ids and not call_id):
            continue
        call_id = str(call_id or "")
        args = parse_arguments(item.get("arguments"))
        piece = CallPiece(call_id, str(name), None, args, order)
        piece.alias = item.get(ALIAS, "")
        calls.append(piece)
    return calls


def safe_requested_calls(span: SpanView, *, with_ids: bool = True) -> list[CallPiece]:
    """`requested_calls` (read once per span), logging and skipping a span that cannot be
    read."""
    if span.requests is None:
        try:
            span.requests = requested_calls(span, with_ids=False)
        except Exception as exc:  # one bad model span must not stop extraction
            logger.warning("skipping model span %s for id recovery: %s", span.span_id, exc)
            span.requests = []
    return [r for r in span.requests if r.id] if with_ids else span.requests


def row_may_hold_requests(span: Any) -> bool:
    """False only for a `spans` row (dict with JSON text) that certainly requests no call."""
    return row_may_hold(span, REQUEST_MARKERS)
