"""Jaeger JSON exports (`{"data": [trace, ...]}`, what the Jaeger UI's "Download JSON" and
its `/api/traces` return) -> OTLP trace requests.

Mapped as the OpenTelemetry Collector's Jaeger translator maps them: the process is the
resource (`serviceName` -> `service.name`), `span.kind` / `otel.status_code` /
`otel.status_description` / `error` / `otel.scope.*` tags become the span's own fields,
the first CHILD_OF reference is the parent (other references become links), logs become
events (the `event` field names them), microseconds become nanoseconds.
"""

from __future__ import annotations

import base64
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, Span, Status
from tracesim.collector.importers.errors import TraceFileError, shape_errors
from tracesim.collector.importers.ids import id_bytes, line_of

__all__ = ["is_jaeger_document", "request_from_jaeger"]

_KINDS = {
    "client": Span.SPAN_KIND_CLIENT,
    "server": Span.SPAN_KIND_SERVER,
    "producer": Span.SPAN_KIND_PRODUCER,
    "consumer": Span.SPAN_KIND_CONSUMER,
    "internal": Span.SPAN_KIND_INTERNAL,
}
_SPAN_FIELD_TAGS = {
    "span.kind",
    "otel.status_code",
    "otel.status_description",
    "otel.scope.name",
    "otel.scope.version",
    "otel.library.name",
    "otel.library.version",
    "w3c.tracestate",
    "internal.span.format",
    "error",
}


def is_jaeger_document(document: Any) -> bool:
    """True for `{"data": [{"traceID": ..., "spans": [...]}, ...]}`."""
    if not isinstance(document, dict) or not isinstance(document.get("data"), list):
        return False
    return all(isinstance(t, dict) and "spans" in t for t in document["data"])


class _Context:
    def __init__(self, path: str, text: str | None) -> None:
        self.path, self.text = path, text

    def fail(self, field: str, key: str, value: Any, message: str) -> TraceFileError:
        line = line_of(self.text, key, value) if self.text else None
        return TraceFileError(self.path, message, line=line, field=field)


def _value(tag: dict[str, Any], where: str, ctx: _Context) -> AnyValue:
    kind = str(tag.get("type") or "string").lower()
    value = tag.get("value")
    try:
        if kind == "bool":
            return AnyValue(bool_value=value if isinstance(value, bool) else value == "true")
        if kind == "int64":
            return AnyValue(int_value=int(value))
        if kind == "float64":
            return AnyValue(double_value=float(value))
        if kind == "binary":
            return AnyValue(bytes_value=base64.b64decode(value))
    except (TypeError, ValueError) as error:
        raise ctx.fail(
            f"{where}.value", "value", value, f"not a {kind} value ({error}); fix its type"
        ) from None
    return AnyValue(string_value="" if value is None else str(value))


def _key_values(tags: Any, where: str, ctx: _Context, *, skip: set[str] = frozenset()) -> list:
    out = []
    for n, tag in enumerate(tags or []):
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            raise ctx.fail(f"{where}[{n}]", "key", None, "a tag needs a string key")
        if tag["key"] in skip:
            continue
        out.append(KeyValue(key=tag["key"], value=_value(tag, f"{where}[{n}]", ctx)))
    return out


def _tag(tags: Any, key: str) -> Any:
    for tag in tags or []:
        if isinstance(tag, dict) and tag.get("key") == key:
            return tag.get("value")
    return None


def _id(span: dict[str, Any], key: str, size: int, where: str, ctx: _Context) -> bytes:
    raw = id_bytes(span.get(key), size, allow_short_hex=True)
    if raw is None or raw == bytes(size):
        raise ctx.fail(
            f"{where}.{key}",
            key,
            span.get(key),
            f"{span.get(key)!r} is not a {size}-byte hex id; fix or drop that span",
        )
    return raw


def _micros(span: dict[str, Any], key: str, where: str, ctx: _Context) -> int:
    value = span.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ctx.fail(f"{where}.{key}", key, value, f"{value!r} is not a number of microseconds")
    return int(value) * 1000


def _span(span: dict[str, Any], where: str, ctx: _Context) -> Span:
    tags = span.get("tags") or []
    trace_id = _id(span, "traceID", 16, where, ctx)
    pb2_span = Span(
        trace_id=trace_id,
        span_id=_id(span, "spanID", 8, where, ctx),
        name=str(span.get("operationName") or ""),
        kind=_KINDS.get(str(_tag(tags, "span.kind") or "").lower(), Span.SPAN_KIND_INTERNAL),
    )
    start = _micros(span, "startTime", where, ctx)
    pb2_span.start_time_unix_nano = start
    pb2_span.end_time_unix_nano = start + _micros(span, "duration", where, ctx)
    state = _tag(tags, "w3c.tracestate")
    if isinstance(state, str):
        pb2_span.trace_state = state
    parent_set = False
    for n, ref in enumerate(span.get("references") or []):
        ref_where = f"{where}.references[{n}]"
        ref_trace = _id(ref, "traceID", 16, ref_where, ctx)
        ref_span = _id(ref, "spanID", 8, ref_where, ctx)
        if (
            not parent_set
            and ref.get("refType", "CHILD_OF") == "CHILD_OF"
            and ref_trace == trace_id
        ):
            pb2_span.parent_span_id = ref_span
            parent_set = True
        else:
            pb2_span.links.add(trace_id=ref_trace, span_id=ref_span)
    pb2_span.attributes.extend(_key_values(tags, f"{where}.tags", ctx, skip=_SPAN_FIELD_TAGS))
    code = str(_tag(tags, "otel.status_code") or "").upper()
    failed = code == "ERROR" or _tag(tags, "error") in (True, "true")
    if failed:
        message = _tag(tags, "otel.status_description")
        pb2_span.status.CopyFrom(Status(code=Status.STATUS_CODE_ERROR, message=str(message or "")))
    elif code == "OK":
        pb2_span.status.code = Status.STATUS_CODE_OK
    for n, log in enumerate(span.get("logs") or []):
        log_where = f"{where}.logs[{n}]"
        fields = log.get("fields") if isinstance(log, dict) else None
        event = pb2_span.events.add(
            time_unix_nano=_micros(log, "timestamp", log_where, ctx),
            name=str(_tag(fields, "event") or "log"),
        )
        event.attributes.extend(_key_values(fields, f"{log_where}.fields", ctx, skip={"event"}))
    return pb2_span


def request_from_jaeger(
    document: dict[str, Any], *, path: str, text: str | None = None
) -> ExportTraceServiceRequest:
    """One request holding every trace of a Jaeger export (a resource per process)."""
    ctx = _Context(path, text)
    request = ExportTraceServiceRequest()
    for t, trace in enumerate(document["data"]):
        with shape_errors(path, f"data[{t}]", "Jaeger's trace JSON"):
            _trace(request, trace, t, ctx)
    return request


def _trace(request: ExportTraceServiceRequest, trace: Any, t: int, ctx: _Context) -> None:
    """Add one Jaeger trace's spans to `request` (a resource per process)."""
    processes = trace.get("processes") or {}
    by_process: dict[str, ResourceSpans] = {}
    for s, span in enumerate(trace.get("spans") or []):
        where = f"data[{t}].spans[{s}]"
        with shape_errors(ctx.path, where, "Jaeger's span JSON"):
            _add_span(request, span, where, processes, by_process, t, ctx)


def _add_span(
    request: ExportTraceServiceRequest,
    span: Any,
    where: str,
    processes: Any,
    by_process: dict[str, ResourceSpans],
    t: int,
    ctx: _Context,
) -> None:
    """Add one Jaeger span under its process's resource and its scope."""
    if not isinstance(span, dict):
        raise ctx.fail(where, "spans", None, "a span must be a JSON object")
    process_id = str(span.get("processID") or "")
    process = span.get("process") or processes.get(process_id)
    if not isinstance(process, dict):
        raise ctx.fail(
            f"{where}.processID",
            "processID",
            span.get("processID"),
            f"process {process_id!r} is not in this trace's processes",
        )
    resource = by_process.get(process_id)
    if resource is None:
        resource = by_process[process_id] = request.resource_spans.add()
        resource.resource.attributes.append(
            KeyValue(
                key="service.name",
                value=AnyValue(string_value=str(process.get("serviceName") or "")),
            )
        )
        resource.resource.attributes.extend(
            _key_values(process.get("tags"), f"data[{t}].processes.{process_id}.tags", ctx)
        )
    tags = span.get("tags") or []
    scope_name = str(_tag(tags, "otel.scope.name") or _tag(tags, "otel.library.name") or "")
    scope_version = str(
        _tag(tags, "otel.scope.version") or _tag(tags, "otel.library.version") or ""
    )
    scope = next(
        (
            ss
            for ss in resource.scope_spans
            if (ss.scope.name, ss.scope.version) == (scope_name, scope_version)
        ),
        None,
    )
    if scope is None:
        scope = resource.scope_spans.add()
        scope.scope.name, scope.scope.version = scope_name, scope_version
    scope.spans.append(_span(span, where, ctx))
