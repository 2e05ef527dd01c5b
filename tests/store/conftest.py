"""One capture reached through every backend `--db` takes: a DuckDB file, the running
collector that holds that file (in-process, on free ports), a chdb directory, and a
ClickHouse server over HTTP (`tests.clickhouse.chdb_http`)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient

BACKENDS = ("duckdb", "live", "chdb", "http")


def two_chats() -> Any:
    from tests.clickhouse.conftest import two_chats_request

    return two_chats_request()


@dataclass
class Backend:
    """What a test gives `--db`, and the collector holding the file (live only)."""

    kind: str
    db: str
    collector: Collector | None = None


def collect(db: Path, request: Any) -> Collector:
    """A collector of `db` on free ports that stored `request` (running)."""
    collector = Collector(db, grpc_port=0, http_port=0, spool_dir=db.parent / "spool").start()
    client = GrpcClient(collector.grpc_endpoint or "")
    try:
        client.export(request)
    finally:
        client.close()
    assert collector.flush(30)
    return collector


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    kind = request.param
    if kind in ("duckdb", "live"):
        db = tmp_path / "capture.duckdb"
        collector = collect(db, two_chats())
        if kind == "duckdb":
            collector.shutdown()
            yield Backend(kind, str(db))
            return
        try:
            yield Backend(kind, str(db), collector)
        finally:
            collector.shutdown()
        return
    pytest.importorskip("chdb", reason="the clickhouse extra is not installed")
    from tests.clickhouse.conftest import StoreDB

    maker = StoreDB(tmp_path, kind)
    try:
        yield Backend(kind, maker(two_chats()))
    finally:
        maker.close()
