"""The OpenTelemetry Python SDK's span JSON (`ReadableSpan.to_json`, what `ConsoleSpanExporter`
prints: pretty JSON objects one after another) -> OTLP trace requests.

Also accepted: a JSON list of such spans, and `{"spans": [...]}` (agent tools that save
their traces so, e.g. any-agent's AgentTrace). Ids are `0x`-prefixed hex (or integers),
times ISO-8601 (or integer nanoseconds), kinds `SpanKind.CLIENT`, status codes names. The
SDK's JSON has no instrumentation scope: spans are stored with an empty scope.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status
from tracesim.collector.importers.errors import TraceFileError, shape_errors

__all__ = ["is_sdk_span", "parse_concatenated", "request_from_sdk_spans", "sdk_spans_of"]

_KINDS = {
    "internal": Span.SPAN_KIND_INTERNAL,
    "server": Span.SPAN_KIND_SERVER,
    "client": Span.SPAN_KIND_CLIENT,
    "producer": Span.SPAN_KIND_PRODUCER,
    "consumer": Span.SPAN_KIND_CONSUMER,
}
_STATUS = {"ok": Status.STATUS_CODE_OK, "error": Status.STATUS_CODE_ERROR}


def is_sdk_span(item: Any) -> bool:
    """True for one span as the SDK writes it (name, context with span_id and trace_id)."""
    context = item.get("context") if isinstance(item, dict) else None
    return isinstance(context, dict) and "span_id" in context and "name" in item


def sdk_spans_of(document: Any) -> list[dict[str, Any]] | None:
    """The SDK spans of a list or a `{"spans": [...]}` document, None when it is neither."""
    items = document.get("spans") if isinstance(document, dict) else document
    if isinstance(items, list) and items and all(is_sdk_span(s) for s in items):
        return items
    return None


def parse_concatenated(text: str) -> list[tuple[int, Any]] | None:
    """(line, object) of JSON values written one after another (ConsoleSpanExporter),
    None when the text is not that."""
    decoder = json.JSONDecoder()
    out, at = [], 0
    line, counted = 1, 0  # lines are counted once over the text: linear, not quadratic
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at >= len(text):
            return out or None
        try:
            value, end = decoder.raw_decode(text, at)
        except (json.JSONDecodeError, RecursionError):
            return None
        line += text.count("\n", counted, at)
        counted = at
        out.append((line, value))
        at = end


def _id(value: Any, size: int) -> bytes | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value.to_bytes(size, "big") if 0 < value < 1 << (8 * size) else None
    if isinstance(value, str):
        digits = value[2:] if value.lower().startswith("0x") else value
        try:
            raw = bytes.fromhex(digits.rjust(2 * size, "0"))
        except ValueError:
            return None
        return raw if len(raw) == size and any(raw) else None
    return None


def _nanos(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return (
            int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000
        )  # the SDK's JSON keeps microseconds
    return None


def _any(value: Any) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, list | tuple):
        return AnyValue(array_value=ArrayValue(values=[_any(v) for v in value]))
    return AnyValue(string_value="" if value is None else str(value))


def _attributes(values: Any) -> list[KeyValue]:
    return [KeyValue(key=str(k), value=_any(v)) for k, v in (values or {}).items()]


def _span(item: dict[str, Any], where: str, path: str, line: int | None) -> Span:
    def fail(field: str, message: str) -> TraceFileError:
        return TraceFileError(path, message, line=line, field=f"{where}.{field}")

    context = item["context"]
    trace_id = _id(context.get("trace_id"), 16)
    span_id = _id(context.get("span_id"), 8)
    if trace_id is None or span_id is None:
        raise fail("context", "trace_id must be a 16-byte and span_id an 8-byte id (0x hex)")
    parent = item.get("parent_id")
    if isinstance(item.get("parent"), dict):  # ids written as integers under "parent"
        parent = item["parent"].get("span_id")
    parent_id = _id(parent, 8) if parent not in (None, "") else b""
    if parent_id is None:
        raise fail("parent_id", f"{parent!r} is not an 8-byte id")
    start, end = _nanos(item.get("start_time")), _nanos(item.get("end_time"))
    if start is None or end is None:
        raise fail("start_time", "start_time and end_time must be ISO-8601 times or nanoseconds")
    kind = str(item.get("kind") or "internal").rsplit(".", 1)[-1].lower()
    span = Span(
        trace_id=trace_id,
        span_id=span_id,
        parent_span_id=parent_id,
        name=str(item.get("name") or ""),
        kind=_KINDS.get(kind, Span.SPAN_KIND_INTERNAL),
        start_time_unix_nano=start,
        end_time_unix_nano=end,
    )
    span.attributes.extend(_attributes(item.get("attributes")))
    status = item.get("status") or {}
    code = str(status.get("status_code") or "").rsplit(".", 1)[-1].lower()
    if code in _STATUS:
        span.status.code = _STATUS[code]
        span.status.message = str(status.get("description") or "")
    for event in item.get("events") or []:
        span.events.add(
            name=str(event.get("name") or ""),
            time_unix_nano=_nanos(event.get("timestamp")) or start,
            attributes=_attributes(event.get("attributes")),
        )
    for link in item.get("links") or []:
        link_context = link.get("context") or {}
        link_trace, link_span = (
            _id(link_context.get("trace_id"), 16),
            _id(link_context.get("span_id"), 8),
        )
        if link_trace and link_span:
            span.links.add(
                trace_id=link_trace,
                span_id=link_span,
                attributes=_attributes(link.get("attributes")),
            )
    return span


def request_from_sdk_spans(
    spans: list[tuple[int | None, dict[str, Any]]], *, path: str
) -> ExportTraceServiceRequest:
    """One request holding every span (a resource per distinct resource)."""
    request = ExportTraceServiceRequest()
    by_resource: dict[str, Any] = {}
    for n, (line, item) in enumerate(spans):
        with shape_errors(path, f"spans[{n}]", "the SDK's span JSON", line=line):
            resource = (item.get("resource") or {}).get("attributes") or {}
            key = json.dumps(resource, sort_keys=True, default=str)
            scope = by_resource.get(key)
            if scope is None:
                resource_spans = request.resource_spans.add()
                resource_spans.resource.attributes.extend(_attributes(resource))
                scope = by_resource[key] = resource_spans.scope_spans.add()
            scope.spans.append(_span(item, f"spans[{n}]", path, line))
    return request
