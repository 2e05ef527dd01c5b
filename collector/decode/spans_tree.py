"""OTLP trace request -> a tree of plain Python values, the one input of span decoding.

`decode.decode_traces` reads spans from this tree, so its rows depend only on the
tree's values. Two builders give the same tree: `tree_of_request` walks a parsed
protobuf message (upb), and `tree_of_bytes` reads the request's bytes with the native
reader `_otlp_wire` when it is built (~5x less CPU: no Python object per protobuf
message), falling back to upb for a request that reader leaves to upb (a message field
repeated, which upb merges; invalid UTF-8; ...) or when it is not built.

Tree: [(resource attributes, [(scope name, [span, ...]), ...]), ...]; a span is
`SpanTuple`; events [(name, time_unix_nano, attributes)], links
[(trace_id, span_id, attributes)], None when the span has none.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector.decode.values import attributes

try:  # built by setup.py when a C compiler is there; optional
    from tracesim.collector.decode import _otlp_wire as _native
except ImportError:  # pragma: no cover - depends on the build
    _native = None

__all__ = ["NATIVE", "SpanTuple", "Tree", "check_request", "tree_of_bytes", "tree_of_request"]

NATIVE: bool = _native is not None
"""True when the native reader is built (else every request goes through upb)."""

SpanTuple = tuple[
    bytes, bytes, bytes, str, int, int, int, int, str, dict[str, Any], Any, Any
]
"""(trace_id, span_id, parent_span_id, name, kind, start, end, status code, status message,
attributes, events, links)."""
Tree = list[tuple[dict[str, Any], list[tuple[str, list[SpanTuple]]]]]


def tree_of_request(request: Any) -> Tree:
    """The tree of a parsed ExportTraceServiceRequest (the upb path)."""
    return [
        (
            attributes(resource_spans.resource.attributes),
            [
                (scope_spans.scope.name, [_span(pb2_span) for pb2_span in scope_spans.spans])
                for scope_spans in resource_spans.scope_spans
            ],
        )
        for resource_spans in request.resource_spans
    ]


def _span(pb2_span: Any) -> SpanTuple:
    """One span's values."""
    status = pb2_span.status
    return (
        pb2_span.trace_id,
        pb2_span.span_id,
        pb2_span.parent_span_id,
        pb2_span.name,
        pb2_span.kind,
        pb2_span.start_time_unix_nano,
        pb2_span.end_time_unix_nano,
        status.code,
        status.message,
        attributes(pb2_span.attributes),
        [(e.name, e.time_unix_nano, attributes(e.attributes)) for e in pb2_span.events]
        if pb2_span.events
        else None,
        [(k.trace_id, k.span_id, attributes(k.attributes)) for k in pb2_span.links]
        if pb2_span.links
        else None,
    )


def tree_of_bytes(payload: bytes | memoryview, *, native: bool = True) -> Tree:
    """The tree of a serialized request: natively when possible, else through upb (which
    raises protobuf's DecodeError for bytes that are not a request)."""
    if native and _native is not None:
        try:
            return _native.decode_traces(payload)
        except _native.Unsupported:
            pass
    return tree_of_request(ExportTraceServiceRequest.FromString(payload))


def check_request(payload: bytes | memoryview) -> tuple[int, int, Any] | None:
    """(valid spans, rejected spans, first rejected span as (name, trace_id length,
    span_id length, parent_span_id length) or None) of a serialized request, read natively
    without building its values; None when the native reader is not built or leaves the
    request to upb (then parse it: it may not be a request at all)."""
    if _native is None:
        return None
    try:
        return _native.check_traces(payload)
    except _native.Unsupported:
        return None
