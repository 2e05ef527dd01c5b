"""Requests -> one `PreparedBatch`: decode, route, build the Arrow tables. Pure but for the router.

The one definition of what a batch of acknowledged requests becomes, run by the writer
in the collector's process or by the decoder process (`collector.store.decoder_process`),
so both paths give the same rows. A request that fails to decode is left out whole and
named in `Prepared.rejected`; the caller dead-letters it.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from tracesim.collector.decode.decode import SpanBatch, decode_traces, decode_tree
from tracesim.collector.decode.decode_logs import LogBatch, decode_logs
from tracesim.collector.decode.spans_tree import tree_of_bytes
from tracesim.collector.redaction.redaction import Redactor
from tracesim.collector.routing.routing import Router
from tracesim.collector.store.prepared import PreparedBatch, marks, prepare, rollback

__all__ = ["KIND_LOGS", "KIND_TRACES", "Prepared", "message_of", "prepare_items"]

log = logging.getLogger(__name__)

KIND_TRACES = 1
KIND_LOGS = 2


@dataclass
class Prepared:
    """A prepared batch, the spans/logs stored with derived fields NULL, and the requests
    left out because they could not be decoded: (seq, reason)."""

    batch: PreparedBatch
    unreadable: int = 0
    rejected: list[tuple[int, str]] = field(default_factory=list)


def message_of(kind: int, message: Any) -> Any:
    """The request as a protobuf message (`message` is one already, or its bytes)."""
    if not isinstance(message, (bytes, bytearray, memoryview)):
        return message
    message_type = ExportTraceServiceRequest if kind == KIND_TRACES else ExportLogsServiceRequest
    return message_type.FromString(message)


def prepare_items(
    items: Iterable[tuple[int, int, Any]], router: Router, redactor: Redactor | None = None
) -> Prepared:
    """Decode and route (seq, kind, message or its bytes) requests into one batch."""
    spans, logs = SpanBatch(), LogBatch()
    rejected: list[tuple[int, str]] = []
    for seq, kind, message in items:
        if message is None:
            continue
        mark = marks(spans, logs)
        try:
            if kind == KIND_TRACES and isinstance(message, (bytes, bytearray, memoryview)):
                decode_tree(tree_of_bytes(message), spans, redactor)  # native when built
            elif kind == KIND_TRACES:
                decode_traces(message, spans, redactor)
            elif kind == KIND_LOGS:
                decode_logs(message_of(kind, message), logs, redactor)
        except Exception as error:  # a bug in decoding must not stop the pipeline
            log.exception("could not decode spooled request %d", seq)
            rollback(spans, logs, mark)  # no half-decoded request in the columns
            rejected.append((seq, f"could not be decoded: {error!r}"))
    learned = [(t["trace_id"], t["chat_id"], t["turn_id"]) for t in spans.turns]
    for trace_id, chat_id, turn_id in learned:
        router.learn(trace_id, chat_id, turn_id)
    router.route(spans.columns, spans.rules)
    router.route(logs.columns, logs.rules)
    backfill = router.backfill_targets(learned)
    router.settled(trace_id for trace_id, _chat, _turn in learned)
    batch = prepare(spans, logs, backfill, router.session_backfill_targets())
    return Prepared(batch, spans.unreadable + logs.unreadable, rejected)
