"""Helpers for collector tests: hand-built OTLP requests and raw gRPC / HTTP clients."""

from __future__ import annotations

import itertools
import os
from typing import Any

import grpc
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import LogRecord
from opentelemetry.proto.trace.v1.trace_pb2 import Span as PB2Span
from tracesim.collector.receivers.receiver_grpc import LOGS_METHOD, TRACE_METHOD

_counter = itertools.count(1)


def new_trace_id() -> bytes:
    """A random 16-byte trace id."""
    return os.urandom(16)


def new_span_id() -> bytes:
    """A unique 8-byte span id."""
    return os.urandom(4) + next(_counter).to_bytes(4, "big")


def any_value(value: Any) -> AnyValue:
    """Python value -> AnyValue."""
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, bytes):
        return AnyValue(bytes_value=value)
    if isinstance(value, (list, tuple)):
        result = AnyValue()
        result.array_value.values.extend(any_value(v) for v in value)
        return result
    if isinstance(value, dict):
        result = AnyValue()
        result.kvlist_value.values.extend(key_values(value))
        return result
    return AnyValue(string_value=str(value))


def key_values(attrs: dict[str, Any]) -> list[KeyValue]:
    """dict -> repeated KeyValue."""
    return [KeyValue(key=k, value=any_value(v)) for k, v in attrs.items()]


def span(
    name: str = "op",
    *,
    trace_id: bytes | None = None,
    span_id: bytes | None = None,
    parent: bytes = b"",
    attrs: dict[str, Any] | None = None,
    start: int = 1_700_000_000_000_000_000,
    duration_ns: int = 5_000_000,
    kind: int = 1,
    status: int = 0,
    status_message: str = "",
) -> PB2Span:
    """A protobuf span."""
    pb2_span = PB2Span(
        trace_id=trace_id if trace_id is not None else new_trace_id(),
        span_id=span_id if span_id is not None else new_span_id(),
        parent_span_id=parent,
        name=name,
        kind=kind,
        start_time_unix_nano=start,
        end_time_unix_nano=start + duration_ns,
    )
    pb2_span.attributes.extend(key_values(attrs or {}))
    pb2_span.status.code = status
    pb2_span.status.message = status_message
    return pb2_span


def trace_request(
    spans: list[PB2Span], *, resource: dict[str, Any] | None = None, scope: str = "tests"
) -> ExportTraceServiceRequest:
    """One resource, one scope, the given spans."""
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.attributes.extend(key_values(resource or {"service.name": "test"}))
    scope_spans = resource_spans.scope_spans.add()
    scope_spans.scope.name = scope
    scope_spans.spans.extend(spans)
    return request


def logs_request(
    records: list[LogRecord], *, resource: dict[str, Any] | None = None
) -> ExportLogsServiceRequest:
    """One resource, one scope, the given log records."""
    request = ExportLogsServiceRequest()
    resource_logs = request.resource_logs.add()
    resource_logs.resource.attributes.extend(key_values(resource or {"service.name": "test"}))
    scope_logs = resource_logs.scope_logs.add()
    scope_logs.scope.name = "tests"
    scope_logs.log_records.extend(records)
    return request


def log_record(
    body: str,
    *,
    trace_id: bytes = b"",
    span_id: bytes = b"",
    attrs: dict[str, Any] | None = None,
    time: int = 1_700_000_000_000_000_000,
) -> LogRecord:
    """A protobuf log record."""
    record = LogRecord(
        time_unix_nano=time,
        severity_number=9,
        severity_text="INFO",
        trace_id=trace_id,
        span_id=span_id,
    )
    record.body.string_value = body
    record.attributes.extend(key_values(attrs or {}))
    return record


class GrpcClient:
    """Raw OTLP gRPC client (bytes or messages in, responses out); TLS when given the CA.
    `own_connection`: a TCP connection of its own (gRPC otherwise shares one between
    channels to the same endpoint)."""

    def __init__(
        self,
        endpoint: str,
        *,
        token: str | None = None,
        compression: grpc.Compression | None = None,
        root_certificates: bytes | None = None,
        own_connection: bool = False,
    ) -> None:
        options = [("grpc.max_send_message_length", 64 << 20)]
        if own_connection:
            options.append(("grpc.use_local_subchannel_pool", 1))
        endpoint = endpoint.removeprefix("https://").removeprefix("http://")
        if root_certificates is None:
            self.channel = grpc.insecure_channel(endpoint, options=options, compression=compression)
        else:
            credentials = grpc.ssl_channel_credentials(root_certificates=root_certificates)
            self.channel = grpc.secure_channel(
                endpoint, credentials, options=options, compression=compression
            )
        self._metadata = [("authorization", f"Bearer {token}")] if token else None
        self._traces = self.channel.unary_unary(
            TRACE_METHOD,
            request_serializer=_to_bytes,
            response_deserializer=ExportTraceServiceResponse.FromString,
        )
        self._logs = self.channel.unary_unary(
            LOGS_METHOD,
            request_serializer=_to_bytes,
            response_deserializer=ExportLogsServiceResponse.FromString,
        )

    def export(self, request: Any) -> ExportTraceServiceResponse:
        """Trace Export; raises grpc.RpcError on a non-OK status."""
        return self._traces(request, metadata=self._metadata, timeout=30)

    def export_logs(self, request: Any) -> ExportLogsServiceResponse:
        """Logs Export."""
        return self._logs(request, metadata=self._metadata, timeout=30)

    def close(self) -> None:
        """Close the channel."""
        self.channel.close()


def _to_bytes(request: Any) -> bytes:
    """Messages are serialised, bytes sent as they are."""
    return request if isinstance(request, bytes) else request.SerializeToString()
