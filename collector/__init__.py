"""The collector: OTLP receivers (gRPC and HTTP), decoding, routing of spans
to (chat_id, turn_id), and the DuckDB store, the only writer of spans.

Pipeline: receiver_grpc / receiver_http -> ingest (validate, spool with group
fsync, acknowledge) -> writer thread (decode, redact, route, batch) -> store (DuckDB).
Imports `schemas` only; never `simulator` or `evaluator`.
"""

from collector.collector import Collector, CollectorStats
from collector.errors import Busy, CollectorError, InvalidRequest, StoreLocked, TooLarge
from collector.query import check_read_only
from collector.redaction import InvalidRedactionRule, RedactionRule, Redactor
from collector.redaction_file import load_redaction_file

__all__ = [
    "Busy",
    "Collector",
    "CollectorError",
    "CollectorStats",
    "InvalidRedactionRule",
    "InvalidRequest",
    "RedactionRule",
    "Redactor",
    "StoreLocked",
    "TooLarge",
    "check_read_only",
    "load_redaction_file",
]
