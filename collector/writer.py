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
from dataclasses import dataclass
from typing import Any

from collector.decode import SpanBatch, decode_traces
from collector.decode_logs import LogBatch, decode_logs
from collector.redaction import Redactor
from collector.routing import Router
from collector.store import PreparedBatch, Store, prepare

__all__ = ["KIND_LOGS", "KIND_TRACES", "Item", "Writer", "WriterStats"]

log = logging.getLogger(__name__)

KIND_TRACES = 1
KIND_LOGS = 2


@dataclass
class Item:
    """One acknowledged (or replayed) request waiting to be stored."""

    seq: int
    kind: int
    message: Any
    nbytes: int
    count: int


@dataclass
class WriterStats:
    """Counters of the writer (rows actually inserted, i.e. after dedup)."""

    spans_stored: int = 0
    logs_stored: int = 0
    batches: int = 0
    requests: int = 0
    failed_requests: int = 0
    committed_seq: int = 0


class Writer:
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
    ) -> None:
        self._store = store
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
        self._prepared: queue.Queue[tuple[list[Item], PreparedBatch] | None] = queue.Queue(2)
        self._failed_from: int | None = None
        self.stats = WriterStats()

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
                self._store_batch(batch, self._prepare(batch))
                batch, rows = [], 0
        if batch:
            self._store_batch(batch, self._prepare(batch))

    def _take(self) -> list[Item] | None:
        """Wait for a full or due batch; None when stopping with nothing left."""
        with self._cond:
            while not self._items:
                if self._stopping:
                    return None
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
        """Decoder thread: take batches, decode, route, build Arrow tables, hand them on."""
        try:
            while True:
                batch = self._take()
                if batch is None:
                    return
                self._prepared.put((batch, self._prepare(batch)))
        finally:
            self._prepared.put(None)

    def _run_db(self) -> None:
        """Database thread: commit prepared batches in order (DuckDB releases the GIL, so
        this overlaps with decoding the next batch)."""
        while True:
            job = self._prepared.get()
            if job is None:
                return
            self._store_batch(*job)

    def _prepare(self, items: list[Item]) -> PreparedBatch:
        """Decode and route a batch; requests that fail to decode are logged and skipped."""
        spans, logs = SpanBatch(), LogBatch()
        redactor = self._redactor
        for item in items:
            try:
                if item.kind == KIND_TRACES:
                    decode_traces(item.message, spans, redactor)
                elif item.kind == KIND_LOGS:
                    decode_logs(item.message, logs, redactor)
            except Exception:  # a bug in decoding must not stop the pipeline
                log.exception("could not decode spooled request %d; skipped", item.seq)
                self.stats.failed_requests += 1
            item.message = None  # free memory early
        router = self._router
        learned = [(t["trace_id"], t["chat_id"], t["turn_id"]) for t in spans.turns]
        for trace_id, chat_id, turn_id in learned:
            router.learn(trace_id, chat_id, turn_id)
        router.route(spans.columns, spans.rules)
        router.route(logs.columns, logs.rules)
        backfill = router.backfill_targets(learned)
        router.settled(trace_id for trace_id, _chat, _turn in learned)
        return prepare(spans, logs, backfill, router.session_backfill_targets())

    def _store_batch(self, items: list[Item], prepared: PreparedBatch) -> None:
        """Commit one prepared batch (one retry), then publish progress. The spool position
        stored with it never passes a batch that failed (replayed at the next start)."""
        seq = max(item.seq for item in items)
        if self._failed_from is not None:
            seq = min(seq, self._failed_from - 1)
        for attempt in (1, 2):
            try:
                stored_spans, stored_logs = self._store.write(prepared, seq)
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
            first = min(item.seq for item in items)
            if self._failed_from is None or first < self._failed_from:
                self._failed_from = first
            log.error(
                "requests %d..%d could not be stored; they stay in the spool and are "
                "replayed when the collector starts again",
                first,
                max(item.seq for item in items),
            )
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
