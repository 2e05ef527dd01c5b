"""OTLP export responses, with partial_success when items were rejected."""

from __future__ import annotations

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsPartialSuccess,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTracePartialSuccess,
    ExportTraceServiceResponse,
)

__all__ = ["logs_response", "trace_response"]


def trace_response(rejected: int, message: str) -> ExportTraceServiceResponse:
    """ExportTraceServiceResponse with partial_success when spans were rejected."""
    if not rejected:
        return ExportTraceServiceResponse()
    return ExportTraceServiceResponse(
        partial_success=ExportTracePartialSuccess(rejected_spans=rejected, error_message=message)
    )


def logs_response(rejected: int, message: str) -> ExportLogsServiceResponse:
    """ExportLogsServiceResponse with partial_success when records were rejected."""
    if not rejected:
        return ExportLogsServiceResponse()
    return ExportLogsServiceResponse(
        partial_success=ExportLogsPartialSuccess(
            rejected_log_records=rejected, error_message=message
        )
    )
