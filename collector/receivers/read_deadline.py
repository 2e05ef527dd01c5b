"""Cut calls whose request is not read whole in time: a client that opens an Export and
sends nothing more (or never ends its one message) must not hold a gRPC worker forever.

Only `workers` requests are read at once (`grpc_admission`), so four such calls would
stop gRPC ingest. Each handler registers its call before reading and unregisters once the
message (and the end of the stream) arrived; one thread cancels the calls still reading
past `timeout` seconds. Every call has the same timeout, so registration order is deadline
order: an ordered dict gives O(1) registration and removal, no thread per call, and no
reference to a finished call is kept (gRPC frees a call's stream only when Python does).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

__all__ = ["DEFAULT_READ_TIMEOUT", "Clock", "ReadDeadlines"]

DEFAULT_READ_TIMEOUT = 60.0
"""Seconds a gRPC call may take to deliver its request (16 MiB on a slow link included)."""


class Clock:
    """One call being read; `cut` once its deadline cancelled it."""

    __slots__ = ("cancel", "cut", "deadline", "key")

    def __init__(self, key: int, deadline: float, cancel: Callable[[], None]) -> None:
        self.key = key
        self.deadline = deadline
        self.cancel: Callable[[], None] | None = cancel
        self.cut = False


class ReadDeadlines:
    """Calls being read and their deadlines; cancels the late ones. Thread-safe."""

    def __init__(self, timeout: float = DEFAULT_READ_TIMEOUT) -> None:
        self.timeout = timeout
        self._cond = threading.Condition()
        self._reading: OrderedDict[int, Clock] = OrderedDict()
        self._keys = itertools.count()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.cut = 0
        """Calls cancelled because their request did not arrive in time."""

    def watch(self, cancel: Callable[[], None]) -> Clock:
        """Start the clock for one call; `cancel` ends it. Returns the clock for `done`."""
        with self._cond:
            clock = Clock(next(self._keys), time.monotonic() + self.timeout, cancel)
            self._reading[clock.key] = clock
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(
                    target=self._run, name="tracesim-grpc-read-deadlines", daemon=True
                )
                self._thread.start()
            if len(self._reading) == 1:
                self._cond.notify()
        return clock

    def done(self, clock: Clock) -> bool:
        """The call's request was read (or reading ended): its clock stops and the call is
        forgotten. True when the deadline had cut it (then nothing of it may be stored)."""
        with self._cond:
            self._reading.pop(clock.key, None)
            clock.cancel = None
            return clock.cut

    def close(self) -> None:
        """Stop the thread (calls still reading are left to the server's own stop)."""
        with self._cond:
            self._closed = True
            self._reading.clear()
            self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while not self._closed:
                if not self._reading:
                    self._cond.wait()
                    continue
                clock = next(iter(self._reading.values()))
                wait = clock.deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                del self._reading[clock.key]  # still reading: cut it (under the lock, so
                clock.cut = True  # `done` sees the cut and stores nothing)
                self.cut += 1
                cancel, clock.cancel = clock.cancel, None
                try:
                    if cancel is not None:
                        cancel()
                except Exception:  # noqa: BLE001 - a call that ended meanwhile
                    pass
