"""The writer: decodes queued requests, routes them, and commits batches to the store.

Two threads in a pipeline: the decoder thread (decode, route, Arrow tables) and
the database thread (DuckDB insert + commit, which releases the GIL), so the
next batch is decoded while the previous one is written.

Batches close at `batch_rows` spans/logs or `batch_seconds` after their first
request, or at once when someone waits in `flush`. Each commit records the last
spool sequence number it holds and then lets the spool delete loaded segments.
`put` and `flush` are thread-safe; everything else runs on the writer thread
(or before it starts, for replay).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable

from tracesim.collector.decode.spans_tree import NATIVE
from tracesim.collector.redaction.redaction import Redactor
from tracesim.collector.routing.routing import Router
from tracesim.collector.spool.deadletter import DeadLetter
from tracesim.collector.store.decoder_process import DecoderProcess
from tracesim.collector.store.prepare_items import KIND_LOGS, KIND_TRACES, prepare_items
from tracesim.collector.store.remote_decoding import RemoteDecoding
from tracesim.collector.store.store import PreparedBatch, Store
from tracesim.collector.store.writer_isolation import Isolating
from tracesim.collector.store.writer_items import Item, Job, WriterStats

__all__ = ["KIND_LOGS", "KIND_TRACES", "Item", "Writer", "WriterStats"]

log = logging.getLogger(__name__)


class Writer(Isolating):
    """Owns the store; one thread."""

    def __init__(
        self,
        store: Store,
        router: Router,
        *,
        batch_rows: int = 8192,
        batch_seconds: float = 0.2,
        on_committed: Callable[[int, int], None] | None = None,
        redactor: Redactor | None = None,
        dead_letter: DeadLetter | None = None,
        decoder: DecoderProcess | None = None,
        router_factory: Callable[[], Router] | None = None,
    ) -> None:
        if decoder is not None and (redactor or router_factory is None):
            raise ValueError("a decoder process needs a router_factory and no redactor")
        self._remote = (
            RemoteDecoding(decoder, router_factory, self._wait_idle)
            if decoder is not None and router_factory is not None
            else None
        )
        self._store = store
        self._dead_letter = dead_letter
        self._redactor = redactor or None
        self._router = router
        self._batch_rows = batch_rows
        self._batch_seconds = batch_seconds
        self._on_committed = on_committed
        self._cond = threading.Condition()
        self._items: deque[Item] = deque()
        self._rows = 0
        self._last_put_seq = 0
        self._flush_waiters = 0
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._db_thread: threading.Thread | None = None
        self._prepared: queue.Queue[Job | None] = queue.Queue(2)
        self._failed: list[tuple[int, int]] = []  # (first, last) seq of batches not stored
        self._retry_due = False
        self.reload: Callable[[int, int], list[Item]] | None = None
        """Reads requests first..last back from the spool, to store a failed batch again."""
        self.stats = WriterStats()

    def takes_payload(self, kind: int) -> bool:
        """True when an item of `kind` should carry its spooled bytes rather than the parsed
        message: the decoder process parses them itself, and trace requests are read
        natively from their bytes (`spans_tree`) when that reader is built (half the
        CPU of walking the parsed message)."""
        if self._remote is not None:
            return True
        return kind == KIND_TRACES and NATIVE and self._redactor is None

    @property
    def _failed_from(self) -> int | None:
        """First request of the oldest batch that could not be stored (None: none)."""
        return min(first for first, _last in self._failed) if self._failed else None

    @property
    def durable_seq(self) -> int:
        """Every request up to this sequence number is committed in DuckDB (below the
        first request of a batch that failed, if any; `stats.committed_seq` counts
        requests handled, stored or not)."""
        committed = self.stats.committed_seq
        if self._failed_from is None:
            return committed
        return min(committed, self._failed_from - 1)

    @property
    def has_failed(self) -> bool:
        """True when a batch could not be committed (its requests stay in the spool)."""
        return self._failed_from is not None

    def start(self) -> None:
        """Start the writer thread."""
        self._db_thread = threading.Thread(target=self._run_db, name="tracesim-db", daemon=True)
        self._db_thread.start()
        self._thread = threading.Thread(target=self._run, name="tracesim-writer", daemon=True)
        self._thread.start()

    def put(self, item: Item) -> None:
        """Queue one request (callers keep seq order)."""
        with self._cond:
            self._items.append(item)
            self._rows += item.count
            self._last_put_seq = item.seq
            self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Block until everything queued so far is committed; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            target = self._last_put_seq
            self._flush_waiters += 1
            self._cond.notify_all()
            try:
                while self.stats.committed_seq < target:
                    if self._db_thread is None or not self._db_thread.is_alive():
                        return False
                    remaining = None if deadline is None else deadline - time.monotonic()
                    if remaining is not None and remaining <= 0:
                        return False
                    self._cond.wait(remaining)
                return True
            finally:
                self._flush_waiters -= 1

    def stop(self, timeout: float | None = None) -> bool:
        """Commit what is queued and stop the threads (idempotent); False when one is still
        running after `timeout` s (each), so the store must not be closed yet."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        for thread in (self._thread, self._db_thread):
            if thread is not None:
                thread.join(timeout)
        return not any(t is not None and t.is_alive() for t in (self._thread, self._db_thread))

    def load(self, items: Iterable[Item]) -> None:
        """Store items synchronously in batches (replay before `start`)."""
        batch: list[Item] = []
        rows = 0
        for item in items:
            batch.append(item)
            rows += item.count
            if rows >= self._batch_rows:
                self._store_batch(batch, self._prepare_isolated(batch))
                batch, rows = [], 0
        if batch:
            self._store_batch(batch, self._prepare_isolated(batch))

    def _take(self) -> list[Item] | None:
        """Wait for a full or due batch; None when stopping with nothing left."""
        with self._cond:
            while not self._items:
                if self._retry_due or self._stopping:
                    return [] if self._retry_due else None
                self._cond.wait()
            due = time.monotonic() + self._batch_seconds
            while self._rows < self._batch_rows and not self._flush_waiters and not self._stopping:
                remaining = due - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
            batch: list[Item] = []
            rows = 0
            while self._items and (rows < self._batch_rows or not batch):
                item = self._items.popleft()
                batch.append(item)
                rows += item.count
            self._rows -= rows
            return batch

    def _run(self) -> None:
        """Decoder thread: take batches, decode, route, build Arrow tables, hand them on;
        after the store recovered from a failure, reload the oldest failed batch."""
        try:
            while True:
                batch = self._take()
                if batch is None:
                    return
                if self._retry_due:
                    self._queue_retry()
                if batch:
                    self._prepared.put((batch, self._prepare_isolated(batch), None))
        finally:
            self._prepared.put(None)

    def _queue_retry(self) -> None:
        """Read the oldest failed batch back from the spool and queue it (decoder thread)."""
        with self._cond:
            self._retry_due = False
            failed = min(self._failed) if self._failed else None
        if failed is None or self.reload is None:
            return
        try:
            items = self.reload(*failed)
        except Exception:
            log.exception("reading requests %d..%d back from the spool failed", *failed)
            return
        self._prepared.put((items, self._prepare_isolated(items), failed))

    def _run_db(self) -> None:
        """Database thread: commit prepared batches in order (DuckDB releases the GIL, so
        this overlaps with decoding the next batch)."""
        while True:
            job = self._prepared.get()
            if job is None:
                return
            items, prepared, retried = job
            try:
                if retried is None:
                    self._store_batch(items, prepared)
                else:
                    self._store_retry(items, prepared, retried)
            finally:
                self._prepared.task_done()  # see `_wait_idle`

    def _store_retry(
        self, items: list[Item], prepared: PreparedBatch, failed: tuple[int, int]
    ) -> None:
        """Store a failed batch read back from the spool; on success it is no longer failed
        and the spool position moves past it."""
        rest = [batch for batch in self._failed if batch != failed]
        seq = self.stats.committed_seq
        if rest:
            seq = min(seq, min(first for first, _last in rest) - 1)
        try:
            stored_spans, stored_logs = self._write_isolating(
                prepared, seq, min(seq, failed[0] - 1)
            )
        except Exception:
            log.exception("requests %d..%d still cannot be stored", *failed)
            return
        with self._cond:
            self._failed = rest
            self.stats.spans_stored += stored_spans
            self.stats.logs_stored += stored_logs
            self.stats.failed_requests -= failed[1] - failed[0] + 1
            self._retry_due = bool(rest)
            self._cond.notify_all()
        log.warning("requests %d..%d are stored after all (the store recovered)", *failed)
        if self._on_committed is not None:
            self._on_committed(self.durable_seq, 0)

    def wait_retried(self, timeout: float | None = None) -> bool:
        """Block until no failed batch is left (True) or `timeout` s passed (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while self._failed:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(remaining)
            return True

    def _wait_idle(self) -> None:
        """Block until every prepared batch is committed (or handled): the store then
        holds what routed them, for a new decoder process's router."""
        self._prepared.join()

    def _prepare(self, items: list[Item]) -> PreparedBatch:
        """Decode and route a batch (here or in the decoder process); requests that fail to
        decode are dead-lettered."""
        triples = [(item.seq, item.kind, item.message) for item in items]
        if self._remote is not None:
            prepared = self._remote.prepare(triples)
        else:
            prepared = prepare_items(triples, self._router, self._redactor)
        by_seq = {item.seq: item for item in items}
        for seq, reason in prepared.rejected:
            self._reject_item(by_seq[seq], reason)
        self.stats.nulled_values += prepared.batch.nulled
        self.stats.duplicates += prepared.batch.duplicates
        if prepared.unreadable:
            self.stats.unreadable_items += prepared.unreadable
            log.warning(
                "%d span(s)/log record(s) stored with derived fields (chat, turn, operation, "
                "tool, model, tokens) NULL: an attribute had a shape its convention reader "
                "could not read",
                prepared.unreadable,
            )
        for item in items:
            item.message = None  # free memory early
        return prepared.batch

    def _store_batch(self, items: list[Item], prepared: PreparedBatch) -> None:
        """Commit one prepared batch (one retry), then publish progress. The spool position
        stored with it never passes a batch that failed (replayed at the next start)."""
        seq = max(item.seq for item in items)
        if self._failed_from is not None:
            seq = min(seq, self._failed_from - 1)
        for attempt in (1, 2):
            try:
                partial = min(seq, min(item.seq for item in items) - 1)
                stored_spans, stored_logs = self._write_isolating(prepared, seq, partial)
            except Exception:
                log.exception(
                    "storing a batch of %d requests failed (attempt %d)", len(items), attempt
                )
                continue
            self.stats.spans_stored += stored_spans
            self.stats.logs_stored += stored_logs
            self.stats.batches += 1
            break
        else:
            self.stats.failed_requests += len(items)
            first, last = min(item.seq for item in items), max(item.seq for item in items)
            with self._cond:
                self._failed.append((first, last))
            log.error(
                "requests %d..%d could not be stored; they stay in the spool and are stored "
                "when the store works again (or when the collector starts again)",
                first,
                last,
            )
            self._done(items)
            return
        if self._failed and self.reload is not None:  # the store works: retry the failed
            with self._cond:
                self._retry_due = True
                self._cond.notify_all()
        self._done(items)

    def _done(self, items: list[Item]) -> None:
        """Publish the committed position, release memory budget, wake flushers."""
        seq = max(item.seq for item in items)
        with self._cond:
            self.stats.requests += len(items)
            self.stats.committed_seq = max(self.stats.committed_seq, seq)
            self._cond.notify_all()
        if self._on_committed is not None:
            self._on_committed(self.durable_seq, sum(item.nbytes for item in items))
