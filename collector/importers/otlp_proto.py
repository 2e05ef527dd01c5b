"""OTLP protobuf dumps -> requests: one ExportTraceServiceRequest / ExportLogsServiceRequest
(an OTLP/HTTP body saved to a file, or TracesData / LogsData, the same bytes), or the
Collector file exporter's `format: proto` stream (each message preceded by its size as a
4-byte big-endian integer).

Traces and logs share their wire shape (a repeated field 1), so the signal is the one
whose every item has valid ids; a file name saying `log` or `trace` is asked first.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector.decode.decode import check_spans
from tracesim.collector.decode.decode_logs import check_logs
from tracesim.collector.importers.errors import TraceFileError

__all__ = ["requests_from_protobuf"]

Request = ExportTraceServiceRequest | ExportLogsServiceRequest


def _messages(data: bytes) -> list[bytes]:
    """The messages of a delimited stream, or [data] when it is one message."""
    if not data or data[0] != 0:  # a message starts with a field tag, never 0
        return [data]
    out, at = [], 0
    while at < len(data):
        if at + 4 > len(data):
            return [data]
        size = int.from_bytes(data[at : at + 4], "big")
        if at + 4 + size > len(data):
            return [data]
        out.append(data[at + 4 : at + 4 + size])
        at += 4 + size
    return out


def _as(kind: type, payload: bytes) -> Request | None:
    try:
        return kind.FromString(payload)
    except (DecodeError, ValueError, RuntimeError):
        return None


def _only_valid(request: Request | None) -> bool:
    if request is None:
        return False
    if isinstance(request, ExportTraceServiceRequest):
        valid, rejected, _ = check_spans(request)
        has_fields = valid > 0
    else:
        valid, rejected, _ = check_logs(request)
        has_fields = any(
            r.time_unix_nano or r.observed_time_unix_nano or r.HasField("body")
            for rl in request.resource_logs
            for sl in rl.scope_logs
            for r in sl.log_records
        )
    return rejected == 0 and has_fields


def requests_from_protobuf(data: bytes, *, path: str) -> list[Request]:
    """Every request of a protobuf dump; TraceFileError when a message is neither."""
    logs_first = "log" in path.rsplit("/", 1)[-1].lower()
    kinds: list[type] = [ExportTraceServiceRequest, ExportLogsServiceRequest]
    if logs_first:
        kinds.reverse()
    out: list[Request] = []
    for n, payload in enumerate(_messages(data)):
        request = next((r for r in (_as(kind, payload) for kind in kinds) if _only_valid(r)), None)
        if request is None:
            raise TraceFileError(
                path,
                "not an OTLP ExportTraceServiceRequest or ExportLogsServiceRequest with valid "
                "ids (protobuf); export traces or logs as OTLP protobuf or JSON",
                field=f"message {n + 1}",
            )
        out.append(request)
    return out
