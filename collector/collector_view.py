"""`CollectorView`: what a running collector answers about itself (its endpoints, waiting
for what it acknowledged to be stored, its counters) and in-process ingest for `import`.

A mixin of `Collector`, apart from its lifecycle (`collector.py`): it only reads the
receivers, ingest, writer, spool and store that `Collector.start` opened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tracesim.collector.errors import Busy
from tracesim.collector.stats import CollectorStats

if TYPE_CHECKING:
    from tracesim.collector.ingest import Ingest
    from tracesim.collector.receivers.http_server import HttpServer
    from tracesim.collector.receivers.tls import TlsConfig
    from tracesim.collector.spool.deadletter import DeadLetter
    from tracesim.collector.spool.spool import Spool
    from tracesim.collector.store.store import Store
    from tracesim.collector.store.writer import Writer

__all__ = ["CollectorView"]


class CollectorView:
    """Endpoints, waiting and counters of a collector (see `Collector`)."""

    host: str
    dead_letter: DeadLetter
    _tls: TlsConfig | None
    _grpc: Any
    _http: HttpServer | None
    _ingest: Ingest | None
    _writer: Writer | None
    _spool: Spool | None
    _store: Store | None
    _replayed: int

    @property
    def tls(self) -> bool:
        """True when the receivers speak TLS."""
        return self._tls is not None

    @property
    def grpc_endpoint(self) -> str | None:
        """host:port of the gRPC receiver (the real port when 0 was asked), None when off.
        Under TLS `https://host:port`, which OTLP exporters read as "use TLS"."""
        if self._grpc is None:
            return None
        address = f"{self.host}:{self._grpc.port}"
        return f"https://{address}" if self._tls is not None else address

    @property
    def http_endpoint(self) -> str | None:
        """http(s)://host:port of the HTTP receiver (https under TLS), None when off."""
        if self._http is None:
            return None
        return f"{self._scheme}://{self.host}:{self._http.port}"

    @property
    def _scheme(self) -> str:
        return "https" if self._tls is not None else "http"

    # waiting and reading -------------------------------------------------------------------
    def flush(self, timeout: float | None = 30.0) -> bool:
        """Block until everything acknowledged so far is committed in DuckDB."""
        if self._writer is None:
            return True
        return self._writer.flush(timeout)

    def wait_retried(self, timeout: float | None = 30.0) -> bool:
        """Block until every batch the store once failed to take is stored (True), or
        `timeout` s passed (False)."""
        return self._writer.wait_retried(timeout) if self._writer is not None else True

    def wait_settled(self, settle: float = 1.0, timeout: float = 10.0) -> bool:
        """Wait until no request arrived for `settle` s (True) or `timeout` s passed (False);
        then flush, so what arrived is queryable."""
        if self._ingest is None:
            return True
        settled = self._ingest.wait_settled(settle, timeout)
        self.flush()
        return settled

    def ingest(self, request: Any) -> tuple[int, str]:
        """Store one ExportTraceServiceRequest / ExportLogsServiceRequest in-process, by the
        receivers' own path (validation, redaction, spool and fsync, routing); returns
        (rejected items, message). For `tracesim import`; raises Busy when not running."""
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )

        if self._ingest is None:
            raise Busy("collector is not running")
        payload = request.SerializeToString()
        if isinstance(request, ExportTraceServiceRequest):
            return self._ingest.export_traces(payload)
        return self._ingest.export_logs(payload)

    @property
    def received_requests(self) -> int:
        """Requests that passed validation since start (each may have been acknowledged):
        a store or spool that received one is never removed."""
        return self._ingest.requests if self._ingest is not None else 0

    def stats(self) -> CollectorStats:
        """Counters since start."""
        writer, ingest, spool = self._writer, self._ingest, self._spool
        return CollectorStats(
            spans_stored=writer.stats.spans_stored if writer else 0,
            logs_stored=writer.stats.logs_stored if writer else 0,
            rejected_spans=ingest.rejected_spans if ingest else 0,
            rejected_logs=ingest.rejected_logs if ingest else 0,
            busy_answers=ingest.busy_answers if ingest else 0,
            requests=ingest.requests if ingest else 0,
            replayed_requests=self._replayed,
            pending_bytes=ingest.pending_bytes if ingest else 0,
            spool_bytes=spool.disk_bytes() if spool else 0,
            dead_letters=self.dead_letter.count,
            nulled_values=writer.stats.nulled_values if writer else 0,
            duplicate_items=(writer.stats.duplicates if writer else 0)
            + (self._store.duplicates_skipped if self._store else 0),
            unreadable_items=writer.stats.unreadable_items if writer else 0,
            quarantined_ranges=spool.quarantined_ranges if spool else 0,
            quarantined_bytes=spool.quarantined_bytes if spool else 0,
            cut_requests=(self._grpc.deadlines.cut if self._grpc else 0)
            + (self._http.cut if self._http else 0),
        )
