"""OTLP trace requests (protobuf messages) -> column lists for the `spans`, `turns` and
`conversations` tables. Pure: data in, data out, no I/O.

Column lists rather than row tuples, because the store hands them to Arrow as is.
Any shape of any attribute leaves only what a convention reader derives from it NULL
(counted in `SpanBatch.unreadable`): the span is stored whatever the readers make of it.
Invalid spans (bad id lengths) are skipped here and counted by `check_spans`,
which the receivers call before acknowledging, so both agree on what is stored.
An optional `Redactor` rewrites attribute values after the hot columns and
routing keys are taken from the raw ones; without one nothing extra runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from tracesim.collector.decode.spans_tree import Tree, check_request, tree_of_request
from tracesim.collector.decode.values import iso_time
from tracesim.collector.redaction.redaction import Redactor
from tracesim.collector.routing.hot_fields import hot_fields
from tracesim.collector.routing.routing_keys import (
    RULE_NONE,
    ResourceRoute,
    own_key,
    resource_key,
    turn_number,
)
from tracesim.schemas.conventions import OTEL, TRACESIM
from tracesim.schemas.span import SPAN_COLUMNS

__all__ = [
    "SPAN_FIELDS",
    "SpanBatch",
    "check_spans",
    "check_spans_bytes",
    "decode_traces",
    "decode_tree",
    "span_is_valid",
]

SPAN_FIELDS: tuple[str, ...] = tuple(c for c in SPAN_COLUMNS if c != "received_at")
"""Columns of `spans` that decoding fills (start/end as unix nanoseconds); `received_at` is
added by the store."""

KINDS = ("UNSPECIFIED", "INTERNAL", "SERVER", "CLIENT", "PRODUCER", "CONSUMER")
STATUS_CODES = ("UNSET", "OK", "ERROR")
_ZERO_TRACE = bytes(16)
_ZERO_SPAN = bytes(8)
_NO_ROUTE: ResourceRoute = ((None, None, RULE_NONE), None)


class SpanBatch:
    """Decoded spans as column lists, plus turn/conversation rows and routing rules."""

    def __init__(self) -> None:
        self.columns: dict[str, list[Any]] = {name: [] for name in SPAN_FIELDS}
        self.rules: list[int] = []
        self.turns: list[dict[str, Any]] = []
        self.conversations: list[dict[str, Any]] = []
        self.unreadable = 0
        """Spans stored with derived fields (keys, hot columns, turn rows) left NULL because a
        convention reader could not read an attribute's shape."""

    def __len__(self) -> int:
        return len(self.rules)


def span_is_valid(pb2_span: Any) -> bool:
    """True when trace_id is 16 bytes, span_id 8 bytes (both non-zero), parent 0 or 8 bytes."""
    trace_id = pb2_span.trace_id
    span_id = pb2_span.span_id
    return (
        len(trace_id) == 16
        and len(span_id) == 8
        and trace_id != _ZERO_TRACE
        and span_id != _ZERO_SPAN
        and len(pb2_span.parent_span_id) in (0, 8)
    )


def check_spans(request: Any) -> tuple[int, int, str]:
    """Count (valid, rejected) spans of an ExportTraceServiceRequest; message names the first bad one."""
    valid = rejected = 0
    first: tuple[str, int, int, int] | None = None
    for resource_spans in request.resource_spans:
        for scope_spans in resource_spans.scope_spans:
            for pb2_span in scope_spans.spans:
                if span_is_valid(pb2_span):
                    valid += 1
                    continue
                rejected += 1
                if first is None:
                    first = (
                        pb2_span.name,
                        len(pb2_span.trace_id),
                        len(pb2_span.span_id),
                        len(pb2_span.parent_span_id),
                    )
    return valid, rejected, _rejection(rejected, first)


def check_spans_bytes(payload: bytes | memoryview) -> tuple[int, int, str] | None:
    """`check_spans` of a serialized request without parsing it into messages (the native
    reader, ~10x less CPU); None when that reader is not built or leaves the request to
    upb (parse it then: it may not be a valid request at all)."""
    counts = check_request(payload)
    if counts is None:
        return None
    valid, rejected, first = counts
    return valid, rejected, _rejection(rejected, first)


def _rejection(rejected: int, first: tuple[str, int, int, int] | None) -> str:
    """The partial-success message: how many spans were rejected, and the first one."""
    if first is None:
        return ""
    name, trace_len, span_len, parent_len = first
    return (
        f"{rejected} invalid span(s) rejected; first: span {name!r}: trace_id must be 16 "
        f"bytes and span_id 8 bytes (non-zero), got {trace_len} and {span_len}"
        f" (parent_span_id {parent_len})"
    )


AttrsFn = Callable[[dict[str, Any]], dict[str, Any]]


def _events(events: list[tuple[str, int, dict[str, Any]]], redact: AttrsFn | None = None) -> str:
    """Span events as a JSON list of {name, time, time_unix_nano, attributes}."""
    return orjson.dumps(
        [
            {
                "name": name,
                "time": iso_time(time_unix_nano),
                "time_unix_nano": time_unix_nano,
                "attributes": redact(attrs) if redact is not None else attrs,
            }
            for name, time_unix_nano, attrs in events
        ]
    ).decode()


def _links(links: list[tuple[bytes, bytes, dict[str, Any]]]) -> str:
    """Span links as a JSON list of {trace_id, span_id, attributes}."""
    return orjson.dumps(
        [
            {"trace_id": trace_id.hex(), "span_id": span_id.hex(), "attributes": attrs}
            for trace_id, span_id, attrs in links
        ]
    ).decode()


def _record(
    attrs: dict[str, Any], times: tuple[int, int], trace_id: str, span_id: str
) -> dict[str, Any]:
    """Fields common to turn and conversation rows."""
    start, end = times
    return {
        "run_id": _str(attrs.get(TRACESIM.RUN_ID)),
        "scenario_id": _str(attrs.get(TRACESIM.SCENARIO_ID)),
        "trace_id": trace_id,
        "span_id": span_id,
        "start_time": start or None,
        "end_time": end or None,
        "duration_ms": (end - start) / 1e6 if start and end else None,
        "error": _str(attrs.get(TRACESIM.ERROR)),
    }


def _str(value: Any) -> str | None:
    """Text of an attribute value (None stays None)."""
    if value is None or isinstance(value, str):
        return value
    return orjson.dumps(value).decode()


def _json(value: Any) -> str | None:
    """A JSON document from an attribute that holds JSON text (or a structured value)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            orjson.loads(value)
            return value
        except orjson.JSONDecodeError:
            return orjson.dumps(value).decode()
    return orjson.dumps(value).decode()


def _simulator_rows(
    batch: SpanBatch,
    name: str,
    attrs: dict[str, Any],
    times: tuple[int, int],
    trace_id: str,
    span_id: str,
) -> None:
    """Materialise a turns / conversations row from a simulator span."""
    chat_id = _str(attrs.get(TRACESIM.CHAT_ID))
    if not chat_id:
        return
    if name == TRACESIM.TURN_SPAN:
        turn_id = turn_number(attrs.get(TRACESIM.TURN_ID))
        if turn_id is None:
            return
        row = _record(attrs, times, trace_id, span_id)
        row.update(
            chat_id=chat_id,
            turn_id=turn_id,
            user_message=_str(attrs.get(TRACESIM.USER_MESSAGE)),
            agent_message=_str(attrs.get(TRACESIM.AGENT_MESSAGE)),
            explicit_tool_calls=_json(attrs.get(TRACESIM.EXPLICIT_TOOL_CALLS)),
            status=_str(attrs.get(TRACESIM.TURN_STATUS)),
        )
        batch.turns.append(row)
    else:
        row = _record(attrs, times, trace_id, span_id)
        row.update(
            chat_id=chat_id,
            conversation_index=turn_number(attrs.get(TRACESIM.CONVERSATION_INDEX)),
            agent_type=_str(attrs.get(TRACESIM.AGENT_TYPE)),
            num_turns=turn_number(attrs.get(TRACESIM.NUM_TURNS)),
            status=_str(attrs.get(TRACESIM.CONVERSATION_STATUS)),
            scenario=_json(attrs.get(TRACESIM.SCENARIO)),
        )
        batch.conversations.append(row)


def decode_traces(request: Any, batch: SpanBatch, redactor: Redactor | None = None) -> None:
    """Append every valid span of an ExportTraceServiceRequest (parsed) to `batch`,
    redacting attributes with `redactor` when given."""
    decode_tree(tree_of_request(request), batch, redactor)


def decode_tree(tree: Tree, batch: SpanBatch, redactor: Redactor | None = None) -> None:
    """Append every valid span of a request's tree (`spans_tree`) to `batch`, redacting
    attributes with `redactor` when given."""
    c = batch.columns
    trace_ids, span_ids, parents, names = (
        c["trace_id"],
        c["span_id"],
        c["parent_span_id"],
        c["name"],
    )
    kinds, starts, ends, durations = c["kind"], c["start_time"], c["end_time"], c["duration_ms"]
    codes, messages, services, scopes = (
        c["status_code"],
        c["status_message"],
        c["service_name"],
        c["scope_name"],
    )
    attr_col, res_col, event_col, link_col = (
        c["attributes"],
        c["resource_attributes"],
        c["events"],
        c["links"],
    )
    chats, turns, ops, tools, models, ins, outs = (
        c["chat_id"],
        c["turn_id"],
        c["operation"],
        c["tool_name"],
        c["model"],
        c["input_tokens"],
        c["output_tokens"],
    )
    rules = batch.rules
    dumps = orjson.dumps
    simulator_names = (TRACESIM.TURN_SPAN, TRACESIM.CONVERSATION_SPAN)
    redact_span = redact_event = redact_resource = None
    if redactor is not None:
        redact_span, redact_event, redact_resource = (
            redactor.span,
            redactor.event,
            redactor.resource,
        )
    for resource_attrs, scope_list in tree:
        service = resource_attrs.get(OTEL.SERVICE_NAME)
        service = service if isinstance(service, str) else None
        try:
            resource_route = resource_key(resource_attrs)
        except Exception:  # an attribute shape no reader expected: no key from the resource
            resource_route = _NO_ROUTE
            batch.unreadable += 1
        if redact_resource is not None:
            resource_attrs = redact_resource(resource_attrs)
        resource_json = dumps(resource_attrs).decode()
        for scope_name, spans in scope_list:
            scope = scope_name or None
            for (
                raw_trace,
                raw_span,
                raw_parent,
                name,
                kind,
                start,
                end,
                code,
                message,
                attrs,
                events,
                links,
            ) in spans:
                if not (
                    len(raw_trace) == 16
                    and len(raw_span) == 8
                    and raw_trace != _ZERO_TRACE
                    and raw_span != _ZERO_SPAN
                    and len(raw_parent) in (0, 8)
                ):
                    continue  # as `span_is_valid`
                trace_id = raw_trace.hex()
                span_id = raw_span.hex()
                try:  # free unless raised: a reader's surprise only nulls what it derives
                    chat, turn, rule = own_key(attrs, resource_route)
                except Exception:
                    chat, turn, rule = _NO_ROUTE[0]
                    batch.unreadable += 1
                kind_name = KINDS[kind] if 0 <= kind < 6 else None
                try:
                    operation, tool, model, tokens_in, tokens_out = hot_fields(
                        name, attrs, kind_name, events
                    )
                except Exception:
                    operation = tool = model = tokens_in = tokens_out = None
                    batch.unreadable += 1
                if redact_span is not None:
                    attrs = redact_span(attrs)
                trace_ids.append(trace_id)
                span_ids.append(span_id)
                parents.append(raw_parent.hex() or None)
                names.append(name)
                kinds.append(kind_name or "UNSPECIFIED")
                starts.append(start or None)
                ends.append(end or None)
                durations.append((end - start) / 1e6 if start and end else None)
                codes.append(STATUS_CODES[code] if 0 <= code < 3 else "UNSET")
                messages.append(message or None)
                services.append(service)
                scopes.append(scope)
                attr_col.append(dumps(attrs).decode())
                res_col.append(resource_json)
                event_col.append(_events(events, redact_event) if events else "[]")
                link_col.append(_links(links) if links else "[]")
                chats.append(chat)
                turns.append(turn)
                rules.append(rule if chat is not None else RULE_NONE)
                ops.append(operation)
                tools.append(tool)
                models.append(model)
                ins.append(tokens_in)
                outs.append(tokens_out)
                if name in simulator_names:
                    try:
                        _simulator_rows(batch, name, attrs, (start, end), trace_id, span_id)
                    except Exception:
                        batch.unreadable += 1
