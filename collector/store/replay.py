"""Spool records back into writer items: at start-up (replay) and to retry a failed batch.

A record that cannot be parsed (unknown kind, not protobuf) goes to the dead-letter
file instead of stopping start-up. Records spooled by an older version may hold raw
values, so they are redacted again.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector.decode.decode import check_spans
from tracesim.collector.decode.decode_logs import check_logs
from tracesim.collector.redaction.redaction import Redactor
from tracesim.collector.redaction.redaction_request import redact_logs, redact_traces
from tracesim.collector.spool.deadletter import DeadLetter
from tracesim.collector.spool.spool import SpoolRecord
from tracesim.collector.store.writer import KIND_LOGS, KIND_TRACES, Item

__all__ = ["replay_item", "replay_items"]


def replay_items(
    records: Iterable[SpoolRecord], redactor: Redactor, dead_letter: DeadLetter
) -> Iterator[Item]:
    """Writer items of `records`; the unloadable ones go to `dead_letter`."""
    for record in records:
        try:
            yield replay_item(record, redactor)
        except Exception as error:  # an unloadable record never stops start-up
            dead_letter.record(
                record.seq, record.kind, record.payload, f"spool record {record.seq}: {error}"
            )


def replay_item(record: SpoolRecord, redactor: Redactor) -> Item:
    """A spool record as a writer item; ValueError naming what is wrong when it cannot be."""
    if record.kind not in (KIND_TRACES, KIND_LOGS):
        raise ValueError(f"unknown kind {record.kind}")
    message_type = (
        ExportTraceServiceRequest if record.kind == KIND_TRACES else ExportLogsServiceRequest
    )
    try:
        request = message_type.FromString(record.payload)
    except Exception as error:
        raise ValueError(f"not a valid {message_type.DESCRIPTOR.name}: {error}") from None
    if redactor:  # records spooled by an older version may hold raw values
        redact = redact_traces if record.kind == KIND_TRACES else redact_logs
        redact(request, redactor)
    check = check_spans if record.kind == KIND_TRACES else check_logs
    count = check(request)[0]
    return Item(record.seq, record.kind, request, len(record.payload), count)
