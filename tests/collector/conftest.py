"""Fixtures: a running collector on loopback with ports picked by the OS."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tracesim.collector import Collector
from tracesim.collector.ingest import Ingest

from tests.collector.otlp import GrpcClient


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh DuckDB file path."""
    return tmp_path / "traces.duckdb"


@pytest.fixture
def collector(db_path: Path) -> Iterator[Collector]:
    """A started collector with both receivers on port 0."""
    with Collector(db_path, grpc_port=0, http_port=0) as running:
        yield running


@pytest.fixture
def client(collector: Collector) -> Iterator[GrpcClient]:
    """A raw gRPC client of `collector`."""
    grpc_client = GrpcClient(collector.grpc_endpoint)
    yield grpc_client
    grpc_client.close()


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Holds every trace export inside the (real) ingest until the event is set."""
    release = threading.Event()
    real = Ingest.export_traces

    def gated(self: Ingest, payload: bytes) -> tuple[int, str]:
        release.wait(60)
        return real(self, payload)

    monkeypatch.setattr(Ingest, "export_traces", gated)
    yield release
    release.set()
