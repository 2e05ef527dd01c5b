"""OTLP/JSON bodies -> protobuf requests, so JSON takes the same path as protobuf after parsing.

OTLP/JSON differs from protobuf's canonical JSON mapping only in ids (hex, not
base64); field names in camelCase or snake_case, int64 as strings and enums as
ints or names are handled by `json_format`. Invalid hex ids become a 1-byte id
so that the span is rejected one by one (partial success), not the request.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector.errors import InvalidRequest

__all__ = ["logs_request_from_json", "traces_request_from_json"]

_INVALID_ID = base64.b64encode(b"\x00").decode()
_ID_KEYS = ("traceId", "trace_id", "spanId", "span_id", "parentSpanId", "parent_span_id")


def _fix_ids(item: Any, lengths: dict[str, int]) -> None:
    """Rewrite hex ids of one span / link / log record to base64 in place."""
    if not isinstance(item, dict):
        return
    for key in _ID_KEYS:
        value = item.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            item[key] = _INVALID_ID
            continue
        if value == "":
            continue
        try:
            raw = bytes.fromhex(value)
        except ValueError:
            raw = b""
        size = lengths["trace" if key.startswith("trace") else "span"]
        item[key] = base64.b64encode(raw).decode() if len(raw) == size else _INVALID_ID


def _children(item: Any, *keys: str) -> list[Any]:
    """The list under the first present key (camelCase or snake_case)."""
    if not isinstance(item, dict):
        return []
    for key in keys:
        value = item.get(key)
        if isinstance(value, list):
            return value
    return []


def _load(body: bytes) -> dict[str, Any]:
    """Parse the JSON text of a request."""
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError as error:
        raise InvalidRequest(f"request body is not valid JSON: {error}") from None
    if not isinstance(document, dict):
        raise InvalidRequest("OTLP/JSON request must be a JSON object")
    return document


def _parse(document: dict[str, Any], message: Any) -> Any:
    """Fill a protobuf message from the fixed-up JSON document."""
    try:
        json_format.ParseDict(document, message, ignore_unknown_fields=True)
    except (json_format.ParseError, ValueError, TypeError) as error:
        raise InvalidRequest(f"invalid OTLP/JSON request: {error}") from None
    return message


def traces_request_from_json(body: bytes) -> ExportTraceServiceRequest:
    """Parse an OTLP/JSON trace export body."""
    document = _load(body)
    lengths = {"trace": 16, "span": 8}
    for resource_spans in _children(document, "resourceSpans", "resource_spans"):
        for scope_spans in _children(resource_spans, "scopeSpans", "scope_spans"):
            for span in _children(scope_spans, "spans"):
                _fix_ids(span, lengths)
                for link in _children(span, "links"):
                    _fix_ids(link, lengths)
    return _parse(document, ExportTraceServiceRequest())


def logs_request_from_json(body: bytes) -> ExportLogsServiceRequest:
    """Parse an OTLP/JSON logs export body."""
    document = _load(body)
    lengths = {"trace": 16, "span": 8}
    for resource_logs in _children(document, "resourceLogs", "resource_logs"):
        for scope_logs in _children(resource_logs, "scopeLogs", "scope_logs"):
            for record in _children(scope_logs, "logRecords", "log_records"):
                _fix_ids(record, lengths)
    return _parse(document, ExportLogsServiceRequest())
