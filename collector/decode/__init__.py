"""OTLP requests (protobuf or OTLP/JSON) -> column lists for the store's tables. Pure."""

from tracesim.collector.decode.decode import (
    SPAN_FIELDS,
    SpanBatch,
    check_spans,
    decode_traces,
    span_is_valid,
)
from tracesim.collector.decode.decode_json import logs_request_from_json, traces_request_from_json
from tracesim.collector.decode.decode_logs import LOG_FIELDS, LogBatch, check_logs, log_is_valid
from tracesim.collector.decode.values import any_value, attributes, hex_id, iso_time

# `decode_logs` (the function) is not re-exported: here it would shadow its submodule.
__all__ = [
    "LOG_FIELDS",
    "LogBatch",
    "SPAN_FIELDS",
    "SpanBatch",
    "any_value",
    "attributes",
    "check_logs",
    "check_spans",
    "decode_traces",
    "hex_id",
    "iso_time",
    "log_is_valid",
    "logs_request_from_json",
    "span_is_valid",
    "traces_request_from_json",
]
