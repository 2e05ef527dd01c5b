"""The collector: OTLP receivers (gRPC and HTTP), decoding, routing of spans
to (chat_id, turn_id), and the DuckDB store, the only writer of spans. Its
query endpoint runs guarded read-only SQL (`query.sql_guard`, also used by `tracesim sql`),
announced to readers in `<db>.collector.json` while it runs (`query.sidecar`).

Pipeline: receiver_grpc / receiver_http -> ingest (validate, spool with group
fsync, acknowledge) -> writer thread (decode, redact, route, batch; under `tracesim
collect` decoding and routing run in a child process, `store.decoder_process`) -> store
(DuckDB).
Imports `schemas` only; never `simulator` or `evaluator`.

Public names are imported on first use: the decoder process imports one module of this
package without loading the receivers, DuckDB and the query engine.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "Collector": "tracesim.collector.collector",
    "CollectorStats": "tracesim.collector.collector",
    "Busy": "tracesim.collector.errors",
    "CollectorError": "tracesim.collector.errors",
    "InvalidRequest": "tracesim.collector.errors",
    "NotADuckDBFile": "tracesim.collector.errors",
    "StoreLocked": "tracesim.collector.errors",
    "TooLarge": "tracesim.collector.errors",
    "QueryAnswer": "tracesim.collector.query.query",
    "read_sidecar": "tracesim.collector.query.sidecar",
    "sidecar_path": "tracesim.collector.query.sidecar",
    "ENDPOINT_TABLE_FUNCTIONS": "tracesim.collector.query.sql_guard",
    "RefusedQuery": "tracesim.collector.query.sql_guard",
    "check_read_only": "tracesim.collector.query.sql_guard",
    "check_safe_for_endpoint": "tracesim.collector.query.sql_guard",
    "InvalidRedactionRule": "tracesim.collector.redaction.redaction",
    "RedactionRule": "tracesim.collector.redaction.redaction",
    "Redactor": "tracesim.collector.redaction.redaction",
    "load_redaction_file": "tracesim.collector.redaction.redaction_file",
}

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

def __getattr__(name: str) -> Any:
    """Import a public name's module on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
