"""The query endpoint's own workers: bounded, low priority, interrupted at shutdown.

Queries never run on the receivers' threads, so slow ones cannot starve ingest:
at most `workers` run (each on a reader cursor, at a lower CPU priority than
ingest where the OS allows it) and `queue` more wait; beyond that `submit`
raises `Busy` (HTTP 503). `close` refuses new queries, interrupts the running
ones and waits for them, so the store is never closed under a query (which
aborted the process). Thread-safe.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import duckdb
from tracesim.collector.errors import Busy

__all__ = ["QueryPool"]

log = logging.getLogger(__name__)

T = TypeVar("T")


def _lower_priority() -> None:
    """Run this worker thread at a lower CPU priority than ingest (Linux: per thread)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass


class QueryPool:
    """Runs `fn(cursor)` on a fresh reader cursor of the store, on its own threads."""

    def __init__(
        self,
        cursor: Callable[[], duckdb.DuckDBPyConnection],
        *,
        workers: int = 2,
        queue: int = 8,
    ) -> None:
        self._cursor = cursor
        self._executor = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="tracesim-query", initializer=_lower_priority
        )
        self._capacity = workers + queue
        self._lock = threading.Condition()
        self._waiting = 0
        self._active: set[duckdb.DuckDBPyConnection] = set()
        self._closed = False

    def submit(self, fn: Callable[[duckdb.DuckDBPyConnection], T]) -> Future[T]:
        """Queue a query; Busy when the pool is full or closed."""
        with self._lock:
            if self._closed:
                raise Busy("the collector is shutting down; retry against the next one")
            if self._waiting >= self._capacity:
                raise Busy("too many queries at once; retry later")
            self._waiting += 1
        try:
            return self._executor.submit(self._run, fn)
        except RuntimeError:  # shut down in between
            with self._lock:
                self._waiting -= 1
            raise Busy("the collector is shutting down; retry against the next one") from None

    def _run(self, fn: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        try:
            return self.run_here(fn)
        finally:
            with self._lock:
                self._waiting -= 1

    def run_here(self, fn: Callable[[duckdb.DuckDBPyConnection], T]) -> T:
        """Run on the caller's thread, on a cursor `close` can interrupt."""
        with self._lock:
            if self._closed:
                raise Busy("the collector is shutting down")
            cursor = self._cursor()
            self._active.add(cursor)
        try:
            return fn(cursor)
        finally:
            with self._lock:
                self._active.discard(cursor)
                self._lock.notify_all()
            cursor.close()

    def close(self) -> None:
        """Refuse new queries, interrupt the running ones and wait until none runs (queries
        on callers' threads included), so the store can be closed (idempotent)."""
        with self._lock:
            self._closed = True
        self._interrupt()
        self._executor.shutdown(wait=True, cancel_futures=True)
        with self._lock:
            while self._active:  # a query on a caller's thread: interrupt until it ends
                self._interrupt_locked()
                self._lock.wait(1.0)

    def _interrupt(self) -> None:
        with self._lock:
            self._interrupt_locked()

    def _interrupt_locked(self) -> None:
        for cursor in self._active:
            try:
                cursor.interrupt()
            except duckdb.Error as error:  # best effort
                log.warning("could not interrupt a query: %s", error)

    @property
    def idle(self) -> bool:
        """True when no query runs."""
        with self._lock:
            return not self._active

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"QueryPool(active={len(self._active)}, waiting={self._waiting})"
