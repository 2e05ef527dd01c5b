"""Writers of the trace-file formats `tracesim import` reads, for tests: they turn real
recorded OTLP requests into the files real tools write.

- OTLP/JSON: the OTLP JSON encoding (hex ids, camelCase), what an OTLP/HTTP JSON body or
  an SDK's file exporter holds;
- the OpenTelemetry Collector file exporter: one OTLP/JSON document per line (JSON lines),
  or with `format: proto` each message preceded by its size (4 bytes, big-endian);
- Tempo: `{"batches": [...]}` written by protobuf's JSON mapping (base64 ids);
- Jaeger: `{"data": [trace]}` as the Jaeger UI / query API write it (typed tags, process
  table, CHILD_OF / FOLLOWS_FROM references, logs with an `event` field, span kind /
  status / scope as `span.kind`, `otel.status_code`, `otel.scope.name` tags).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PB2Span
from opentelemetry.proto.trace.v1.trace_pb2 import Status

__all__ = ["delimited", "jaeger", "json_lines", "otlp_json", "tempo"]

_ID_KEYS = ("traceId", "spanId", "parentSpanId")


def _hex_ids(item: Any) -> Any:
    """protobuf's JSON mapping (base64 ids) -> OTLP/JSON (hex ids), recursively."""
    if isinstance(item, dict):
        return {
            k: (base64.b64decode(v).hex() if k in _ID_KEYS and isinstance(v, str) else _hex_ids(v))
            for k, v in item.items()
        }
    if isinstance(item, list):
        return [_hex_ids(v) for v in item]
    return item


def otlp_json(request: Any) -> dict[str, Any]:
    """The OTLP/JSON document of a request."""
    return _hex_ids(MessageToDict(request))


def json_lines(requests: list[Any], *, metrics_line: bool = True) -> str:
    """The Collector file exporter's JSON lines (with a metrics line, which it also writes)."""
    lines = [json.dumps(otlp_json(r), separators=(",", ":")) for r in requests]
    if metrics_line:
        lines.insert(1, json.dumps({"resourceMetrics": [{"resource": {}, "scopeMetrics": []}]}))
    return "\n".join(lines) + "\n"


def delimited(requests: list[Any]) -> bytes:
    """The Collector file exporter's `format: proto` stream."""
    out = b""
    for request in requests:
        data = request.SerializeToString()
        out += len(data).to_bytes(4, "big") + data
    return out


def tempo(request: Any) -> dict[str, Any]:
    """Tempo's `/api/traces/<id>` answer: resourceSpans as `batches`, base64 ids."""
    return {"batches": MessageToDict(request)["resourceSpans"]}


def _tag(key: str, value: Any) -> dict[str, Any]:
    kind = value.WhichOneof("value")
    if kind == "bool_value":
        return {"key": key, "type": "bool", "value": value.bool_value}
    if kind == "int_value":
        return {"key": key, "type": "int64", "value": value.int_value}
    if kind == "double_value":
        return {"key": key, "type": "float64", "value": value.double_value}
    if kind == "bytes_value":
        return {"key": key, "type": "binary", "value": base64.b64encode(value.bytes_value).decode()}
    if kind in ("array_value", "kvlist_value"):  # Jaeger has no lists: JSON text, as exporters do
        return {"key": key, "type": "string", "value": json.dumps(MessageToDict(value))}
    return {"key": key, "type": "string", "value": value.string_value}


_KINDS = {
    PB2Span.SPAN_KIND_CLIENT: "client",
    PB2Span.SPAN_KIND_SERVER: "server",
    PB2Span.SPAN_KIND_PRODUCER: "producer",
    PB2Span.SPAN_KIND_CONSUMER: "consumer",
    PB2Span.SPAN_KIND_INTERNAL: "internal",
}


def jaeger(request: Any) -> dict[str, Any]:
    """A Jaeger UI / query API export of every span of a trace request."""
    traces: dict[str, dict[str, Any]] = {}
    for r, resource in enumerate(request.resource_spans):
        process_id = f"p{r + 1}"
        attributes = {kv.key: kv.value for kv in resource.resource.attributes}
        service = attributes.pop("service.name", None)
        process = {
            "serviceName": service.string_value if service is not None else "",
            "tags": [_tag(k, v) for k, v in attributes.items()],
        }
        for scope in resource.scope_spans:
            for span in scope.spans:
                trace_id = span.trace_id.hex()
                trace = traces.setdefault(
                    trace_id, {"traceID": trace_id, "spans": [], "processes": {}, "warnings": None}
                )
                trace["processes"][process_id] = process
                tags = [_tag(kv.key, kv.value) for kv in span.attributes]
                tags.append({"key": "span.kind", "type": "string", "value": _KINDS[span.kind]})
                if scope.scope.name:
                    tags.append(
                        {"key": "otel.scope.name", "type": "string", "value": scope.scope.name}
                    )
                if scope.scope.version:
                    tags.append(
                        {
                            "key": "otel.scope.version",
                            "type": "string",
                            "value": scope.scope.version,
                        }
                    )
                if span.status.code == Status.STATUS_CODE_ERROR:
                    tags.append({"key": "otel.status_code", "type": "string", "value": "ERROR"})
                    tags.append({"key": "error", "type": "bool", "value": True})
                    if span.status.message:
                        tags.append(
                            {
                                "key": "otel.status_description",
                                "type": "string",
                                "value": span.status.message,
                            }
                        )
                elif span.status.code == Status.STATUS_CODE_OK:
                    tags.append({"key": "otel.status_code", "type": "string", "value": "OK"})
                references = []
                if span.parent_span_id:
                    references.append(
                        {
                            "refType": "CHILD_OF",
                            "traceID": trace_id,
                            "spanID": span.parent_span_id.hex(),
                        }
                    )
                for link in span.links:
                    references.append(
                        {
                            "refType": "FOLLOWS_FROM",
                            "traceID": link.trace_id.hex(),
                            "spanID": link.span_id.hex(),
                        }
                    )
                logs = [
                    {
                        "timestamp": event.time_unix_nano // 1000,
                        "fields": [{"key": "event", "type": "string", "value": event.name}]
                        + [_tag(kv.key, kv.value) for kv in event.attributes],
                    }
                    for event in span.events
                ]
                trace["spans"].append(
                    {
                        "traceID": trace_id,
                        "spanID": span.span_id.hex(),
                        "operationName": span.name,
                        "references": references,
                        "startTime": span.start_time_unix_nano // 1000,
                        "duration": (span.end_time_unix_nano - span.start_time_unix_nano) // 1000,
                        "tags": tags,
                        "logs": logs,
                        "processID": process_id,
                        "warnings": None,
                    }
                )
    return {"data": list(traces.values()), "total": 0, "limit": 0, "offset": 0, "errors": None}
