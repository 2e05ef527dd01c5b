"""`Collector`: receivers -> ingest (spool) -> writer -> DuckDB store, with start/shutdown.

The embedded collector of `tracesim run` and the process behind `tracesim collect`.
While its HTTP receiver runs it announces it in `<db>.collector.json` (`sidecar`).
`shutdown` is safe twice, concurrently and before `start`. Configuration (redaction rules, TLS
files) is validated in the constructor, so bad settings fail before anything listens.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from tracesim.collector.collector_view import CollectorView
from tracesim.collector.decode.spans_tree import NATIVE
from tracesim.collector.ingest import Ingest
from tracesim.collector.query.query_memory import DEFAULT_QUERY_MEMORY, MemoryWatch
from tracesim.collector.query.query_pool import QueryPool
from tracesim.collector.query.serving import QueryServing
from tracesim.collector.query.sidecar import remove_sidecar, write_sidecar
from tracesim.collector.query.store_routes import identity_document, new_nonce
from tracesim.collector.receivers.http_read_guard import DEFAULT_HTTP_READ_TIMEOUT
from tracesim.collector.receivers.http_server import HttpServer
from tracesim.collector.receivers.read_deadline import DEFAULT_READ_TIMEOUT
from tracesim.collector.receivers.receiver_grpc import GrpcReceiver
from tracesim.collector.receivers.receiver_http import StoreRoutes, build_app
from tracesim.collector.receivers.tls import tls_config
from tracesim.collector.redaction.pseudonym import load_or_create_key
from tracesim.collector.redaction.redaction import RedactionRule, Redactor
from tracesim.collector.routing.routing import DEFAULT_MAX_BYTES as DEFAULT_ROUTER_BYTES
from tracesim.collector.routing.routing import Router
from tracesim.collector.spool.deadletter import DeadLetter
from tracesim.collector.spool.spool import Spool
from tracesim.collector.stats import CollectorStats
from tracesim.collector.store.decoder_process import DecoderDied, DecoderProcess
from tracesim.collector.store.replay import replay_items
from tracesim.collector.store.store import (
    DEFAULT_CHECKPOINT_THRESHOLD,
    DEFAULT_MEMORY_LIMIT,
    Store,
    check_size,
)
from tracesim.collector.store.writer import Item, Writer

__all__ = ["Collector", "CollectorStats"]

log = logging.getLogger(__name__)


class Collector(QueryServing, CollectorView):
    """OTLP gRPC + HTTP receivers writing spans and logs to one DuckDB file.

    `redaction`: rules (RedactionRule, mappings or preset names, see `collector.redaction`)
    applied to attributes before they are stored; raises InvalidRedactionRule when one is bad.
    `tls_cert` / `tls_key`: PEM files; both receivers then speak TLS only (ValueError when
    the pair is unusable).
    `query_max_rows`: most rows `POST /tracesim/query` answers (the answer says `truncated`);
    `query_timeout`: seconds after which a query is interrupted (None: no limit).
    `query_max_bytes`: about the most bytes of rows the endpoint answers (`truncated` then);
    `query_workers`: queries the endpoint runs at once (a few more wait, the rest get 503).
    `query_memory_bytes`: how much the process may grow while queries run before they are
    stopped (`query_memory`); values a single call would build past a bound are refused
    before running (`value_size`).
    `grpc_workers` / `grpc_max_waiting`: gRPC requests read and handled at once, and calls
    let wait for them (each holding a 64 KiB window); further calls get UNAVAILABLE.
    `grpc_read_timeout` / `http_read_timeout`: seconds a request may take to arrive whole
    before it is cut (counted in `stats().cut_requests`).
    Queries run with DuckDB's external access disabled and its configuration locked.
    `router_capacity` / `router_max_bytes`: entries and bytes each of the router's four
    trace maps keeps (conversation ids are client-chosen text; the oldest go first).
    `duckdb_memory_limit` / `duckdb_checkpoint_threshold`: DuckDB sizes ("512MB", "1GiB")
    bounding its buffers and the WAL size that triggers a checkpoint (ValueError when not
    a size); the defaults are the measured ones of `collector.store`.
    `decoder_process`: decode and route in a child process (`collector.store.decoder_process`),
    out of the receivers' and DuckDB's GIL: what `tracesim collect` runs at full speed with.
    """

    def __init__(
        self,
        db_path: str | Path,
        *,
        host: str = "127.0.0.1",
        grpc_port: int | None = 4317,
        http_port: int | None = 4318,
        auth_token: str | None = None,
        max_request_bytes: int = 16 << 20,
        spool_dir: str | Path | None = None,
        max_pending_bytes: int = 32 << 20,
        batch_rows: int = 8192,
        batch_seconds: float = 0.2,
        grpc_workers: int = 4,
        grpc_max_waiting: int = 64,
        grpc_read_timeout: float = DEFAULT_READ_TIMEOUT,
        http_read_timeout: float = DEFAULT_HTTP_READ_TIMEOUT,
        fsync: bool = True,
        router_capacity: int = 1_000_000,
        router_max_bytes: int = DEFAULT_ROUTER_BYTES,
        redaction: Redactor | Sequence[RedactionRule | Mapping[str, Any] | str] | None = None,
        tls_cert: str | Path | None = None,
        tls_key: str | Path | None = None,
        query_max_rows: int = 100_000,
        query_timeout: float | None = 30.0,
        query_max_bytes: int = 64 << 20,
        query_workers: int = 2,
        query_memory_bytes: int = DEFAULT_QUERY_MEMORY,
        duckdb_memory_limit: str = DEFAULT_MEMORY_LIMIT,
        duckdb_checkpoint_threshold: str = DEFAULT_CHECKPOINT_THRESHOLD,
        decoder_process: bool = False,
    ) -> None:
        self.db_path = Path(db_path)
        self.host = host
        self._grpc_port = grpc_port
        self._http_port = http_port
        self._auth_token = auth_token
        self._max_request_bytes = max_request_bytes
        self._spool_dir = Path(spool_dir) if spool_dir else Path(f"{self.db_path}.spool")
        self._max_pending = max_pending_bytes
        self._batch = (batch_rows, batch_seconds)
        self._grpc_workers = grpc_workers
        self._grpc_max_waiting = grpc_max_waiting
        self._grpc_read_timeout = grpc_read_timeout
        self._http_read_timeout = http_read_timeout
        self._fsync = fsync
        self._router_capacity = router_capacity
        self._router_max_bytes = router_max_bytes
        self.redactor = Redactor.from_config(redaction)
        self._tls = tls_config(tls_cert, tls_key)
        if query_max_rows < 1:
            raise ValueError(f"query_max_rows must be at least 1, not {query_max_rows}")
        self._query_max_rows = query_max_rows
        self._query_timeout = query_timeout
        self._query_max_bytes = query_max_bytes
        self._query_workers = query_workers
        self._queries: QueryPool | None = None
        self._query_memory = MemoryWatch(query_memory_bytes)
        self._duckdb_settings = {
            "memory_limit": check_size("duckdb_memory_limit", duckdb_memory_limit),
            "checkpoint_threshold": check_size(
                "duckdb_checkpoint_threshold", duckdb_checkpoint_threshold
            ),
        }
        self._lock = threading.Lock()  # guards _started / _stopped
        self._started = False
        self._stopped = False
        self._opened = threading.Event()  # set when `start` finished, well or not
        self._torn_down = threading.Event()  # set when the first `shutdown` finished
        self._store: Store | None = None
        self._spool: Spool | None = None
        self._writer: Writer | None = None
        self._decoder_process = decoder_process
        self._decoder: DecoderProcess | None = None
        self._ingest: Ingest | None = None
        self._grpc: GrpcReceiver | None = None
        self._http: HttpServer | None = None
        self._http_app: Any = None
        self._replayed = 0
        self._loaded_at_start = 0
        self.dead_letter = DeadLetter(f"{self.db_path}.deadletter.jsonl")
        self._sidecar = False
        self.nonce = new_nonce()
        """Names this start: in the sidecar and `GET /tracesim/identity`, so a reader knows
        the collector answering is the one that announced itself for the file."""

    # lifecycle -------------------------------------------------------------------------
    def start(self) -> Collector:
        """Open the store, replay the spool, start the writer and the receivers; requests
        are acknowledged only once every step succeeded (UNAVAILABLE before: retried)."""
        with self._lock:
            if self._started:
                return self
            self._started = True
        try:
            self._open()
        except BaseException:
            self._opened.set()
            self.shutdown()
            raise
        self._opened.set()
        return self

    def _open(self) -> None:
        """The steps of `start` (any failure is cleaned up by `shutdown`)."""
        self._store = Store(self.db_path, **self._duckdb_settings)
        if not NATIVE:
            log.warning(
                "the native OTLP reader (tracesim.collector.decode._otlp_wire) is not built, "
                "so trace requests are decoded through protobuf alone (the same rows, about "
                "twice the CPU); reinstall tracesim where a C compiler is available"
            )
        if self.redactor:  # the same pseudonyms for this database across restarts and runs
            self.redactor.pseudonyms.use_key(load_or_create_key(f"{self.db_path}.pseudonym-key"))
        router = self._preloaded_router()
        if self._decoder_process:
            try:
                self._decoder = DecoderProcess(router)
            except DecoderDied as error:  # the collector always starts
                log.warning("%s; decoding in the collector's own process", error)
        self._spool = Spool(self._spool_dir, fsync=self._fsync)
        self._writer = Writer(
            self._store,
            router,
            batch_rows=self._batch[0],
            batch_seconds=self._batch[1],
            dead_letter=self.dead_letter,
            decoder=self._decoder,
            router_factory=self._preloaded_router,
        )
        loaded = self._loaded_at_start = self._store.loaded_seq()
        self._writer.load(self._replay_items(self._spool, loaded))
        if self._writer.has_failed:  # keep what could not be loaded for the next start
            log.error("replaying the spool %s failed; its segments are kept", self._spool_dir)
        elif self._replayed == 0 or self._store.checkpoint():  # never drop what a WAL holds
            self._spool.drop_recovered()
        self._spool.open(next_seq=max(loaded, self._spool.last_seq) + 1)
        self._store.lock_down()  # from here on no SQL reaches files or settings
        self._queries = QueryPool(self._store.cursor, workers=self._query_workers)
        self._ingest = Ingest(
            self._spool,
            self._writer,
            max_pending_bytes=self._max_pending,
            release=self._release_spool,
            redactor=self.redactor,
            ready=False,  # opened last: a later step failing must find nothing acknowledged
        )
        self._writer._on_committed = self._ingest.committed
        self._writer.reload = self._reload_requests
        self._writer.start()
        if self._grpc_port is not None:
            self._grpc = GrpcReceiver(
                self._ingest,
                host=self.host,
                port=self._grpc_port,
                auth_token=self._auth_token,
                max_request_bytes=self._max_request_bytes,
                workers=self._grpc_workers,
                max_waiting=self._grpc_max_waiting,
                tls=self._tls,
                read_timeout=self._grpc_read_timeout,
            )
            self._grpc.start()
        if self._http_port is not None:
            app = build_app(
                self._ingest,
                query=self.submit_query,
                store_routes=StoreRoutes(
                    lambda: identity_document(self.db_path, self.nonce),
                    self.submit_arrow,
                    self.submit_writes,
                    max_write_bytes=4 * self._max_request_bytes,
                ),
                auth_token=self._auth_token,
                max_request_bytes=self._max_request_bytes,
            )
            self._http_app = app
            self._http = HttpServer(
                app,
                host=self.host,
                port=self._http_port,
                tls=self._tls,
                read_timeout=self._http_read_timeout,
            )
            self._http.start()
            write_sidecar(
                self.db_path,
                http_endpoint=self.http_endpoint,
                grpc_endpoint=self.grpc_endpoint,
                token_required=self._auth_token is not None,
                nonce=self.nonce,
            )
            self._sidecar = True
        self._ingest.open()  # fully up: from here on requests are acknowledged

    def _preloaded_router(self) -> Router:
        """A router knowing the stored turns, sessions and traces still waiting for either
        (at start, and for a new decoder process)."""
        assert self._store is not None
        router = Router(capacity=self._router_capacity, max_bytes=self._router_max_bytes)
        limit, budget = self._router_capacity, self._router_max_bytes  # read no more
        waiting, complete = self._store.waiting_traces(limit, budget)
        sessions, unkeyed, unkeyed_complete = self._store.trace_sessions(limit, budget)
        router.preload(
            self._store.known_turns(limit, budget),
            waiting,
            waiting_complete=complete,
            sessions=sessions,
            unkeyed=unkeyed,
            unkeyed_complete=unkeyed_complete,
        )
        return router

    def _release_spool(self, loaded: int) -> None:
        """Delete spool segments loaded up to `loaded`, after a checkpoint put them in the
        database file itself (the WAL alone can be damaged). Runs on the writer's thread."""
        spool, store = self._spool, self._store
        if spool is not None and store is not None and spool.releasable(loaded):
            if store.checkpoint():
                spool.release(loaded)

    def _reload_requests(self, first: int, last: int) -> list[Item]:
        """Requests first..last read back from the spool (a batch the store failed to take)."""
        assert self._spool is not None
        records = self._spool.read_range(first, last)
        return list(replay_items(records, self.redactor, self.dead_letter))

    def _replay_items(self, spool: Spool, loaded: int) -> Any:
        """Spool records not yet in DuckDB, parsed for the writer."""
        for item in replay_items(spool.recover(loaded), self.redactor, self.dead_letter):
            self._replayed += 1
            yield item

    def shutdown(self, timeout: float = 30.0) -> None:
        """Stop receiving, commit everything acknowledged, close.

        Safe twice, concurrently and before `start` (then it does nothing). The first call
        tears down; a concurrent one returns when that teardown is done. The store is
        closed only once the writer has stopped, even if that takes longer than `timeout`.
        """
        with self._lock:
            if not self._started:
                return
            first = not self._stopped
            self._stopped = True
        if not first:
            self._torn_down.wait()
            return
        try:
            self._opened.wait()  # a `start` still opening finishes before teardown
            self._teardown(timeout)
        finally:
            self._torn_down.set()

    def _teardown(self, timeout: float) -> None:
        """The steps of `shutdown`, run once."""
        if self._sidecar:  # only ours: another collector may own the file
            remove_sidecar(self.db_path)
            self._sidecar = False
        if self._ingest is not None:
            self._ingest.close()
        if self._queries is not None:  # interrupted: the store is never closed under a query
            self._queries.close()
        if self._grpc is not None:
            self._grpc.stop(grace=timeout / 3)
        if self._http is not None:
            self._http.stop(timeout=timeout / 3)
        if self._writer is not None:
            self._stop_writer(self._writer, timeout)
        if self._decoder is not None:
            self._decoder.close()
        if self._spool is not None:
            loaded = None
            if self._writer is not None and self._store is not None and self._store.checkpoint():
                loaded = max(self._writer.durable_seq, self._loaded_at_start)
            self._spool.close(loaded=loaded)
        if self._store is not None:
            self._store.close()
            self._store = None

    def _stop_writer(self, writer: Writer, timeout: float) -> None:
        """Stop the writer and wait for its threads however long it takes: closing the
        store under a thread still writing to it could lose or corrupt acknowledged data."""
        if writer.stop(timeout):
            return
        step = timeout if timeout > 0 else 30.0
        waited = timeout
        while True:
            log.error(
                "the collector's writer is still committing to %s after %.0f s; waiting "
                "for it before closing the store (acknowledged data would be lost otherwise)",
                self.db_path,
                waited,
            )
            if writer.stop(step):
                log.warning("the writer of %s stopped; closing the store", self.db_path)
                return
            waited += step

    def __enter__(self) -> Collector:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.shutdown()
