"""A batch DuckDB refuses stays in the spool: acknowledged spans survive to the next start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, span, trace_request


def _names(db_path: Path) -> list[str]:
    with duckdb.connect(str(db_path), read_only=True) as con:
        return sorted(row[0] for row in con.execute("SELECT name FROM spans").fetchall())


def _refuse_writes(collector: Collector) -> None:
    store = collector._store
    assert store is not None

    def refuse(_batch: Any, _seq: int) -> tuple[int, int]:
        raise duckdb.IOException("No space left on device (injected)")

    store.write = refuse  # type: ignore[method-assign]


def test_failed_batch_is_stored_once_the_store_recovers(db_path: Path) -> None:
    with Collector(db_path, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([span("kept-before")]))
        assert collector.flush(10)
        original = collector._store.write  # type: ignore[union-attr]
        _refuse_writes(collector)
        client.export(trace_request([span("acknowledged-while-failing")]))  # answered OK
        assert collector.flush(10)
        collector._store.write = original  # type: ignore[union-attr,method-assign]
        client.export(trace_request([span("after-recovery")]))  # the store works again ...
        client.close()
        assert collector.flush(10)
        # ... so the failed batch is reloaded from the spool and stored in this session
        assert collector.wait_retried(10)
        _, rows = collector.query("SELECT name FROM spans ORDER BY name")
        assert [row[0] for row in rows] == [
            "acknowledged-while-failing",
            "after-recovery",
            "kept-before",
        ]
    assert _names(db_path) == ["acknowledged-while-failing", "after-recovery", "kept-before"]
    with Collector(db_path, grpc_port=None, http_port=None) as collector:
        assert collector.stats().replayed_requests == 0  # nothing left to replay


def test_failed_replay_keeps_the_spool(db_path: Path) -> None:
    with Collector(db_path, grpc_port=0, http_port=None) as collector:
        _refuse_writes(collector)
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([span("only-in-spool")]))
        client.close()
        assert collector.flush(10)
    assert _names(db_path) == []
    assert list(Path(f"{db_path}.spool").glob("spool-*.log"))
    with Collector(db_path, grpc_port=None, http_port=None) as collector:
        pass
    assert _names(db_path) == ["only-in-spool"]


def test_replay_that_fails_keeps_the_spool(db_path: Path, monkeypatch: Any) -> None:
    with Collector(db_path, grpc_port=0, http_port=None) as collector:
        _refuse_writes(collector)
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([span("spooled")]))
        client.close()
        assert collector.flush(10)
    from tracesim.collector.store.store import Store

    original = Store.write

    def refuse(_self: Store, _batch: Any, _seq: int) -> tuple[int, int]:
        raise duckdb.IOException("No space left on device (injected)")

    monkeypatch.setattr(Store, "write", refuse)
    with Collector(db_path, grpc_port=None, http_port=None) as collector:
        assert collector.stats().replayed_requests == 1
    monkeypatch.setattr(Store, "write", original)
    assert _names(db_path) == []
    with Collector(db_path, grpc_port=None, http_port=None) as collector:
        assert collector.stats().replayed_requests == 1
    assert _names(db_path) == ["spooled"]
