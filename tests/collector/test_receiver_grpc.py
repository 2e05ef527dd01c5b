"""GrpcReceiver construction: a port that cannot be bound leaves nothing behind."""

from __future__ import annotations

import gc
import socket
import threading
import weakref
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from tracesim.collector.receivers import receiver_grpc
from tracesim.collector.receivers.receiver_grpc import GrpcReceiver


class _NoIngest:
    """Stands in for `Ingest`: the receiver never serves here."""

    def export_traces(self, payload: bytes) -> tuple[int, str]:
        return 0, ""

    def export_logs(self, payload: bytes) -> tuple[int, str]:
        return 0, ""


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A loopback port bound and listened on by a plain socket."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_port_in_use_releases_the_half_built_server(
    taken_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    servers: list[weakref.ref[Any]] = []
    pools: list[Any] = []
    real_server, real_pool = grpc.server, receiver_grpc.ThreadPoolExecutor

    def recording_server(*args: Any, **kwargs: Any) -> Any:
        server = real_server(*args, **kwargs)
        servers.append(weakref.ref(server))
        return server

    class RecordingPool(real_pool):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.shut = False
            pools.append(self)

        def shutdown(self, *args: Any, **kwargs: Any) -> None:
            self.shut = True
            super().shutdown(*args, **kwargs)

    monkeypatch.setattr(grpc, "server", recording_server)
    monkeypatch.setattr(receiver_grpc, "ThreadPoolExecutor", RecordingPool)
    threads_before = sorted(thread.name for thread in threading.enumerate())
    gc.disable()  # what is released must go without the cyclic collector's help
    try:
        with pytest.raises(OSError, match="port in use"):
            GrpcReceiver(_NoIngest(), port=taken_port)  # type: ignore[arg-type]
        assert len(servers) == 1 and servers[0]() is None, "the grpc server is still alive"
    finally:
        gc.enable()
    assert len(pools) == 1 and pools[0].shut, "the handler thread pool was not shut down"
    assert sorted(thread.name for thread in threading.enumerate()) == threads_before


def test_port_in_use_twice_then_a_free_port_serves(taken_port: int) -> None:
    for _ in range(2):
        with pytest.raises(OSError, match="port in use"):
            GrpcReceiver(_NoIngest(), port=taken_port)  # type: ignore[arg-type]
    receiver = GrpcReceiver(_NoIngest(), port=0)  # type: ignore[arg-type]
    receiver.start()
    try:
        assert receiver.port > 0
    finally:
        receiver.stop(grace=None)


def test_bad_worker_or_waiting_counts_are_refused_before_listening() -> None:
    for workers, waiting in ((0, 4), (4, -1)):
        with pytest.raises(ValueError, match="max_waiting at least 0"):
            GrpcReceiver(_NoIngest(), port=0, workers=workers, max_waiting=waiting)  # type: ignore[arg-type]
