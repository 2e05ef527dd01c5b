"""Cut HTTP connections whose request does not arrive whole in time (slowloris).

uvicorn's h11 protocol has no read timeout: a client that sends half a request head, or
declares a body and trickles it a byte a minute, holds its connection (and the bytes of
the body it has sent, counted against the receiver's in-flight budget) forever. Here every
request must be read whole, head and body, within `timeout` seconds of the moment the
connection started waiting for it (connection made, or the previous answer sent). Past
that the connection is closed and counted in `ReadGuard.cut`. The handler still reading
sees the client gone and its bytes are released; nothing of a cut request is stored.
Idle keep-alive connections are closed earlier by uvicorn's own keep-alive timeout.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["DEFAULT_HTTP_READ_TIMEOUT", "ReadGuard", "guarded_protocol"]

log = logging.getLogger(__name__)

DEFAULT_HTTP_READ_TIMEOUT = 60.0
"""Seconds an HTTP request may take to arrive whole (16 MiB on a slow link included)."""

_READING = (h11.IDLE, h11.SEND_BODY)
"""The client's states in which a request is still being read from it."""


class ReadGuard:
    """The read timeout shared by every connection of one server, and how many it cut."""

    def __init__(self, timeout: float = DEFAULT_HTTP_READ_TIMEOUT) -> None:
        if timeout <= 0:
            raise ValueError(f"the HTTP read timeout must be positive, not {timeout}")
        self.timeout = timeout
        self._lock = threading.Lock()
        self.cut = 0
        """Connections closed because their request did not arrive whole in time."""

    def count_cut(self) -> None:
        with self._lock:
            self.cut += 1
            cut = self.cut
        if cut & (cut - 1) == 0:  # 1, 2, 4, 8, ...: said, without flooding the log
            log.warning(
                "closed %d HTTP connection(s) whose request did not arrive whole within "
                "%.0f s (a stalled or slow client)",
                cut,
                self.timeout,
            )


def guarded_protocol(guard: ReadGuard) -> type[H11Protocol]:
    """uvicorn's h11 protocol with `guard`'s read deadline on every request."""

    class GuardedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._track(restart=True)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            self._track(restart=False)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._track(restart=True)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _track(self, *, restart: bool) -> None:
            """Arm the deadline while a request is being read, stop it once it is whole;
            `restart` starts a new clock (waiting for the next request)."""
            if self.transport is None or self.transport.is_closing():
                self._disarm()
            elif self.conn.their_state not in _READING:
                self._disarm()
            elif restart or self._deadline is None:
                self._disarm()
                self._deadline = self.loop.call_later(guard.timeout, self._expired)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expired(self) -> None:
            self._deadline = None
            if self.transport is None or self.transport.is_closing():
                return
            if self.conn.their_state not in _READING:
                return
            waiting = self.conn.their_state is h11.IDLE and not self.conn.trailing_data[0]
            if waiting and self.cycle is not None:  # an idle keep-alive: not an attack
                self.transport.close()
                return
            guard.count_cut()
            self.transport.close()

    return GuardedH11Protocol
