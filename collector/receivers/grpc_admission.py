"""Admission of gRPC calls before their request is read: bounds what waiting calls hold.

gRPC reads a call's request only when a handler thread takes the call; until then the
HTTP/2 transport keeps what the client sent, up to the stream's flow-control window.
So the receiver (1) keeps that window small (`TRANSPORT_OPTIONS`: no BDP growth, which
otherwise lets a waiting stream buffer a whole 16 MiB message) and (2) admits at most
`limit` calls at once (running + waiting for a thread). Past that a call is answered
UNAVAILABLE, which OTLP exporters retry, on a thread of its own and without reading it;
so is a call without the right token (UNAUTHENTICATED), before it takes an admission.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc

__all__ = [
    "Admission",
    "AdmittingHandlers",
    "STREAM_WINDOW_BYTES",
    "STREAMS_PER_CONNECTION",
    "TRANSPORT_OPTIONS",
]

STREAM_WINDOW_BYTES = 64 << 10
"""Most bytes the transport takes of a call's request before a handler asks for it."""

STREAMS_PER_CONNECTION = 16
"""Calls one connection may have open at once: more wait in the client, so one exporter
cannot take every admission (OTLP exporters keep a few calls in flight, not 16)."""

TRANSPORT_OPTIONS = [
    ("grpc.http2.bdp_probe", 0),
    ("grpc.http2.lookahead_bytes", STREAM_WINDOW_BYTES),
    ("grpc.max_concurrent_streams", STREAMS_PER_CONNECTION),
]
"""Server options keeping each stream's receive window at `STREAM_WINDOW_BYTES` until its
message is asked for (gRPC then opens the window to the message's declared size), and
a connection's open calls at `STREAMS_PER_CONNECTION`."""


class Admission:
    """Counts calls admitted and not yet finished; refuses past `limit`. Thread-safe."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"the admission limit must be at least 1, not {limit}")
        self.limit = limit
        self.admitted = 0
        self.peak = 0  # most calls admitted at once (diagnostics, tests)
        self.refused = 0  # calls answered UNAVAILABLE because the limit was reached
        self._lock = threading.Lock()

    def enter(self) -> bool:
        """Admit one more call, or count a refusal and say no."""
        with self._lock:
            if self.admitted >= self.limit:
                self.refused += 1
                return False
            self.admitted += 1
            self.peak = max(self.peak, self.admitted)
            return True

    def leave(self) -> None:
        """A call admitted by `enter` finished (answered, aborted or cancelled)."""
        with self._lock:
            self.admitted -= 1


class _Refusal:
    """Answers a call with `code` without reading its request. `experimental_thread_pool`
    (what gRPC's own health service uses) makes gRPC run it on a thread of its own, never
    queued behind busy handlers; tests/collector/test_grpc_admission.py checks it."""

    def __init__(self, pool: ThreadPoolExecutor, code: grpc.StatusCode, details: str) -> None:
        self.experimental_thread_pool = pool
        self._code = code
        self._details = details

    def __call__(self, requests: Iterator[bytes], context: grpc.ServicerContext) -> Any:
        context.abort(self._code, self._details)


Behavior = Callable[[Iterator[bytes], grpc.ServicerContext], Any]
"""A stream-unary behavior on raw request bytes; it must call `Admission.leave` once."""


class AdmittingHandlers(grpc.GenericRpcHandler):
    """Finds a call's handler on gRPC's polling thread, before anything reads the call:
    UNAUTHENTICATED when `authorized(metadata)` says no, UNAVAILABLE when `admission` is
    full (neither takes a handler thread nor an admission), else the method's behavior.

    `methods` maps full method names ("/pkg.Service/Method") to stream-unary behaviors
    taking the request as an iterator: the message is read when the behavior asks for
    it, so a unary client's call is served the same and a refused one is never read.
    """

    def __init__(
        self,
        methods: dict[str, tuple[Behavior, Callable[[Any], bytes]]],
        *,
        admission: Admission,
        authorized: Callable[[Any], bool],
    ) -> None:
        self.admission = admission
        self._authorized = authorized
        self._handlers = {
            name: grpc.stream_unary_rpc_method_handler(behavior, response_serializer=serialize)
            for name, (behavior, serialize) in methods.items()
        }
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="tracesim-grpc-refuse")
        busy = (
            f"the collector is handling {admission.limit} export calls already (running or "
            "waiting); retry later"
        )
        self._busy = grpc.stream_unary_rpc_method_handler(
            _Refusal(self._pool, grpc.StatusCode.UNAVAILABLE, busy)
        )
        self._unauthenticated = grpc.stream_unary_rpc_method_handler(
            _Refusal(
                self._pool,
                grpc.StatusCode.UNAUTHENTICATED,
                "missing or wrong bearer token in 'authorization' metadata",
            )
        )

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Any:
        handler = self._handlers.get(handler_call_details.method)  # type: ignore[attr-defined]
        if handler is None:
            return None  # gRPC answers UNIMPLEMENTED
        if not self._authorized(handler_call_details.invocation_metadata):  # type: ignore[attr-defined]
            return self._unauthenticated
        return handler if self.admission.enter() else self._busy

    def close(self) -> None:
        """Let the refusal thread go (the server is stopped)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
