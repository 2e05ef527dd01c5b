"""No value stops the writer: out-of-range values, unloadable rows and spool records (SPEC §9)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from tracesim.collector import Collector
from tracesim.collector.spool.spool import Spool
from tracesim.collector.store.store import Store
from tracesim.collector.store.writer import KIND_LOGS, KIND_TRACES

from tests.collector.otlp import GrpcClient, log_record, logs_request, span, trace_request

_HUGE = "100000000000000000000"  # > int64


def _rows(db_path: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db_path), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_out_of_range_values_are_nulled_and_later_spans_stored(db_path: Path) -> None:
    hostile = [
        span("tokens", attrs={"gen_ai.usage.input_tokens": _HUGE}),
        span("late", start=2**64 - 10, duration_ns=5),
        span("neg", attrs={"gen_ai.usage.output_tokens": -1e30}),
    ]
    with Collector(db_path, grpc_port=0, http_port=None, batch_seconds=0.01) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request(hostile))
        client.export(trace_request([span("after")]))
        client.close()
        assert collector.flush(10)
        assert collector.stats().spans_stored == 4
    rows = dict(_rows(db_path, "SELECT name, input_tokens FROM spans"))
    assert set(rows) == {"tokens", "late", "neg", "after"}
    assert rows["tokens"] is None  # nulled: the raw text stays in the attributes
    attrs = _rows(db_path, "SELECT attributes FROM spans WHERE name = 'tokens'")[0][0]
    assert json.loads(attrs)["gen_ai.usage.input_tokens"] == _HUGE
    assert _rows(db_path, "SELECT start_time FROM spans WHERE name = 'late'") == [(None,)]


def test_a_row_duckdb_refuses_is_isolated_and_dead_lettered(db_path: Path, monkeypatch) -> None:
    original = Store.write

    def picky(self: Store, batch: Any, seq: int) -> tuple[int, int]:
        spans = batch.spans
        if spans is not None and "poison" in spans.column("name").to_pylist():
            raise duckdb.ConversionException("Conversion Error: injected for row 'poison'")
        return original(self, batch, seq)

    monkeypatch.setattr(Store, "write", picky)
    names = [f"ok{i}" for i in range(7)] + ["poison"]
    with Collector(db_path, grpc_port=0, http_port=None, batch_seconds=3600) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([span(name) for name in names]))
        client.close()
        assert collector.flush(10)
        stats = collector.stats()
        assert stats.spans_stored == 7
        assert stats.dead_letters == 1
    stored = sorted(row[0] for row in _rows(db_path, "SELECT name FROM spans"))
    assert stored == sorted(names[:-1])
    lines = Path(f"{db_path}.deadletter.jsonl").read_text().splitlines()
    entry = json.loads(lines[0])
    assert entry["table"] == "spans" and entry["row"]["name"] == "poison"
    assert "injected" in entry["reason"]


def test_start_up_survives_unloadable_spool_records(db_path: Path) -> None:
    spool = Spool(f"{db_path}.spool")
    spool.open(next_seq=1)
    spool.append(KIND_TRACES, b"\xff\xff garbage that is not protobuf")
    spool.append(77, b"an unknown kind")
    hostile = trace_request(
        [span("from-spool", start=2**64 - 10, duration_ns=5)]
    ).SerializeToString()
    spool.sync(spool.append(KIND_TRACES, hostile))
    spool.sync(spool.append(KIND_LOGS, logs_request([log_record("hello")]).SerializeToString()))
    spool.close()
    with Collector(db_path, grpc_port=None, http_port=None) as collector:
        stats = collector.stats()
        assert stats.spans_stored == 1 and stats.logs_stored == 1
        assert stats.dead_letters == 2
    assert _rows(db_path, "SELECT name, start_time FROM spans") == [("from-spool", None)]
    reasons = [
        json.loads(line)["reason"]
        for line in Path(f"{db_path}.deadletter.jsonl").read_text().splitlines()
    ]
    assert any("ExportTraceServiceRequest" in reason for reason in reasons)
    assert any("kind 77" in reason for reason in reasons)


def test_prepare_never_raises_on_values_out_of_range() -> None:
    from tracesim.collector.store.columns import table_of

    table, notes = table_of(
        {"start_time": [1, 2**63 + 5, None], "input_tokens": [2**64, -5, 3]},
        ("start_time", "input_tokens"),
    )
    assert table.column("input_tokens").to_pylist() == [None, -5, 3]
    assert table.column("start_time").type == pa.timestamp("ns")
    assert table.column("start_time").null_count == 2
    assert notes == 2


def test_an_event_time_past_2262_keeps_its_span(db_path: Path) -> None:
    pb2_span = span("with-late-event")
    pb2_span.events.add(name="late", time_unix_nano=2**64 - 1)
    with Collector(db_path, grpc_port=0, http_port=None, batch_seconds=0.01) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([pb2_span, span("neighbour")]))
        client.close()
        assert collector.flush(10)
        assert collector.stats().dead_letters == 0
    events = _rows(db_path, "SELECT events FROM spans WHERE name = 'with-late-event'")[0][0]
    assert json.loads(events)[0]["time"].startswith("2554-")


def test_a_split_batch_that_then_fails_is_replayed_whole(db_path: Path, monkeypatch) -> None:
    original = Store.write

    def failing(self: Store, batch: Any, seq: int) -> tuple[int, int]:
        if batch.spans is not None and batch.logs is not None:
            raise duckdb.ConversionException("Conversion Error: injected, forces a split")
        if batch.logs is not None:
            raise duckdb.IOException("No space left on device (injected)")
        return original(self, batch, seq)

    monkeypatch.setattr(Store, "write", failing)
    with Collector(db_path, grpc_port=0, http_port=None, batch_seconds=3600) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request([span("kept")]))
        client.export_logs(logs_request([log_record("must survive")]))
        client.close()
        assert collector.flush(10)
    monkeypatch.setattr(Store, "write", original)
    with Collector(db_path, grpc_port=None, http_port=None):
        pass
    assert _rows(db_path, "SELECT body FROM logs") == [('"must survive"',)]
    assert _rows(db_path, "SELECT name FROM spans") == [("kept",)]
