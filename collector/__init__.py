"""The collector: OTLP receivers (gRPC and HTTP), decoding, routing of spans
to (chat_id, turn_id), and the DuckDB store, the only writer of spans. Its
query endpoint runs guarded read-only SQL (`query.sql_guard`, also used by `tracesim sql`),
announced to readers in `<db>.collector.json` while it runs (`query.sidecar`).

Pipeline: receiver_grpc / receiver_http -> ingest (validate, spool with group
fsync, acknowledge) -> writer thread (decode, redact, route, batch; under `tracesim
collect` decoding and routing run in a child process, `store.decoder_process`) -> store
(DuckDB).
Imports `schemas` only; never `simulator` or `evaluator`.
"""

from tracesim.collector.collector import Collector, CollectorStats
from tracesim.collector.errors import (
    Busy,
    CollectorError,
    InvalidRequest,
    NotADuckDBFile,
    StoreLocked,
    TooLarge,
)
from tracesim.collector.query.query import QueryAnswer
from tracesim.collector.query.sidecar import read_sidecar, sidecar_path
from tracesim.collector.query.sql_guard import (
    ENDPOINT_TABLE_FUNCTIONS,
    RefusedQuery,
    check_read_only,
    check_safe_for_endpoint,
)
from tracesim.collector.redaction.redaction import InvalidRedactionRule, RedactionRule, Redactor
from tracesim.collector.redaction.redaction_file import load_redaction_file

__all__ = [
    "ENDPOINT_TABLE_FUNCTIONS",
    "Busy",
    "Collector",
    "CollectorError",
    "CollectorStats",
    "InvalidRedactionRule",
    "InvalidRequest",
    "QueryAnswer",
    "RedactionRule",
    "Redactor",
    "RefusedQuery",
    "NotADuckDBFile",
    "StoreLocked",
    "TooLarge",
    "check_read_only",
    "check_safe_for_endpoint",
    "load_redaction_file",
    "read_sidecar",
    "sidecar_path",
]
