"""A watch on the process's memory while endpoint queries run: past a limit, they stop.

DuckDB's memory limit covers its buffers, not the values a query computes: a recursive
CTE doubling a string, or a function building a huge result (`value_size` refuses the
known ones before they run), grows the collector's process outside it. While any query
runs, a thread samples the resident size (`/proc/self/statm`) every few milliseconds;
past the size when the first of them started plus `limit` bytes, every running query is
interrupted and answered "stopped: memory"; ingest keeps running throughout.

DuckDB sees an interrupt only between vectors: the step in flight when the watch trips
completes (measured: a string doubled past a 128 MiB limit peaked at 146 MiB, four
copies concatenated at 186). So the watch trips at half the limit: what the queries
built up to then is at most half of it, and a step that doubles or quadruples the values
it holds (`s || s`, `list_concat(s, s)`, `s || s || s || s` in a recursive CTE) still ends
within the limit (the values it builds from a number are refused before: `value_size`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["DEFAULT_QUERY_MEMORY", "TRIP_FRACTION", "MemoryWatch", "Watched", "resident_bytes"]

DEFAULT_QUERY_MEMORY = 1 << 30
"""Bytes the collector's process may grow by while queries run (1 GiB)."""
TRIP_FRACTION = 0.5
"""The share of the limit past which the watch interrupts: the rest is for the step in
flight, which completes before DuckDB sees the interrupt."""

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_bytes() -> int | None:
    """This process's resident memory now (None where /proc is not there)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


class Watched:
    """One running query under the watch; `tripped` once the watch interrupted it."""

    __slots__ = ("cursor", "tripped")

    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor
        self.tripped = False


class MemoryWatch:
    """Interrupts running queries before the process grows past `limit` bytes (it trips at
    `TRIP_FRACTION` of it, so the step in flight ends within it). Thread-safe."""

    def __init__(self, limit: int = DEFAULT_QUERY_MEMORY, *, interval: float = 0.005) -> None:
        self.limit = limit
        self.interval = interval
        self._lock = threading.Lock()
        self._running: set[Watched] = set()
        self._baseline = 0
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self.trips = 0
        """Queries stopped for memory since start."""

    @contextmanager
    def watching(self, cursor: Any) -> Iterator[Watched]:
        """Watch `cursor` while the block runs its query."""
        watched = Watched(cursor)
        with self._lock:
            if not self._running:
                self._baseline = resident_bytes() or 0
            self._running.add(watched)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._watch, name="tracesim-query-memory", daemon=True
                )
                self._thread.start()
            self._wake.set()
        try:
            yield watched
        finally:
            with self._lock:
                self._running.discard(watched)

    def _watch(self) -> None:
        """Sample while queries run; park (until the next query) when none does."""
        while True:
            with self._lock:
                running = list(self._running)
                ceiling = self._baseline + int(self.limit * TRIP_FRACTION)
                if not running:
                    self._wake.clear()
            if not running:
                if not self._wake.wait(30.0):
                    with self._lock:
                        if not self._running:
                            self._thread = None
                            return
                continue
            size = resident_bytes()
            if size is None:
                return  # no way to measure here: the buffer limit alone applies
            if size > ceiling:
                for watched in running:
                    if not watched.tripped:
                        watched.tripped = True
                        self.trips += 1
                    try:
                        watched.cursor.interrupt()
                    except Exception:  # noqa: BLE001 - a cursor closing meanwhile
                        pass
            threading.Event().wait(self.interval)
