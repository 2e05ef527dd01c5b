"""OTLP/JSON documents (`{"resourceSpans": ...}` / `{"resourceLogs": ...}`) -> requests.

The same conversion as the HTTP receiver's (`decode.decode_json`), after a check that names
the field of any id that is not hex of the right size: a file is imported whole or not at
all, where the receiver would accept the valid spans of a request and count the others.
"""

from __future__ import annotations

from typing import Any

import orjson
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector.decode.decode_json import logs_request_from_json, traces_request_from_json
from tracesim.collector.errors import InvalidRequest
from tracesim.collector.importers.errors import TraceFileError
from tracesim.collector.importers.ids import id_bytes, line_of

__all__ = ["Request", "is_otlp_document", "request_from_document"]

Request = ExportTraceServiceRequest | ExportLogsServiceRequest

_SIGNALS = {
    "resourceSpans": "traces",
    "resource_spans": "traces",
    "resourceLogs": "logs",
    "resource_logs": "logs",
}
METRICS_KEYS = ("resourceMetrics", "resource_metrics")


def _key(document: dict[str, Any]) -> str | None:
    return next((k for k in _SIGNALS if k in document), None)


def is_otlp_document(document: Any) -> bool:
    """True for an OTLP/JSON traces or logs document (TracesData / LogsData)."""
    return isinstance(document, dict) and _key(document) is not None


def _list(item: Any, *keys: str) -> list[Any]:
    for key in keys:
        value = item.get(key) if isinstance(item, dict) else None
        if isinstance(value, list):
            return value
    return []


def _check_id(
    item: dict[str, Any], keys: tuple[str, str], size: int, *, optional: bool, where: str, ctx: Any
) -> None:
    key = next((k for k in keys if k in item), keys[0])
    value = item.get(key)
    if optional and value in (None, ""):
        return
    raw = id_bytes(value, size)
    if raw is None or (not optional and raw == bytes(size)):
        path, text, line = ctx
        raise TraceFileError(
            path,
            f"{value!r} is not an id of {size} bytes in hex ({2 * size} hex digits"
            f"{', non-zero' if not optional else ''}); fix or drop that "
            f"{'span' if 'spans' in where else 'record'}",
            line=line or (line_of(text, key, value) if text else None),
            field=f"{where}.{key}",
        )
    item[key] = raw.hex()  # base64 (protobuf's JSON mapping, Tempo) becomes OTLP's hex


def _check_ids(document: dict[str, Any], key: str, ctx: Any) -> None:
    """Every span / log record id must be an id of its size, in hex or base64 (rewritten to
    hex in place, as the OTLP/JSON conversion reads it)."""
    if _SIGNALS[key] == "traces":
        outer, inner, items = ("scopeSpans", "scope_spans"), ("spans",), "spans"
    else:
        outer, inner, items = ("scopeLogs", "scope_logs"), ("logRecords", "log_records"), "logs"
    for i, resource in enumerate(_list(document, key)):
        for j, scope in enumerate(_list(resource, *outer)):
            for k, item in enumerate(_list(scope, *inner)):
                if not isinstance(item, dict):
                    continue
                where = f"{key}[{i}].{outer[0]}[{j}].{inner[0]}[{k}]"
                if items == "spans":
                    _check_id(
                        item, ("traceId", "trace_id"), 16, optional=False, where=where, ctx=ctx
                    )
                    _check_id(item, ("spanId", "span_id"), 8, optional=False, where=where, ctx=ctx)
                    _check_id(
                        item,
                        ("parentSpanId", "parent_span_id"),
                        8,
                        optional=True,
                        where=where,
                        ctx=ctx,
                    )
                else:
                    _check_id(
                        item, ("traceId", "trace_id"), 16, optional=True, where=where, ctx=ctx
                    )
                    _check_id(item, ("spanId", "span_id"), 8, optional=True, where=where, ctx=ctx)


def request_from_document(
    document: dict[str, Any], *, path: str, text: str | None = None, line: int | None = None
) -> Request:
    """The protobuf request of one OTLP/JSON document; TraceFileError names what is wrong.

    `text` (the file's JSON text) lets an error point at the line of a bad id; `line` is
    the document's own line in a JSON-lines file.
    """
    key = _key(document)
    if key is None:
        raise TraceFileError(
            path, "not an OTLP/JSON document: expected resourceSpans or resourceLogs", line=line
        )
    _check_ids(document, key, (path, text, line))
    body = orjson.dumps(document)
    try:
        if _SIGNALS[key] == "traces":
            return traces_request_from_json(body)
        return logs_request_from_json(body)
    except InvalidRequest as error:
        raise TraceFileError(path, str(error), line=line, field=key) from None
