"""Plain INSERT with the conflict path only on a constraint error: same rows either way."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from tracesim.collector.decode.decode import SpanBatch, decode_traces
from tracesim.collector.decode.decode_logs import LogBatch, decode_logs
from tracesim.collector.store.store import Store, prepare

from tests.collector.otlp import log_record, logs_request, span, trace_request


def _batch(spans: list, logs: list) -> object:
    span_batch, log_batch = SpanBatch(), LogBatch()
    decode_traces(trace_request(spans), span_batch)
    decode_logs(logs_request(logs), log_batch)
    return prepare(span_batch, log_batch, [])


def test_a_batch_partly_stored_already_stores_only_its_new_rows(tmp_path: Path) -> None:
    old = [span(f"old-{n}") for n in range(3)]
    new = [span(f"new-{n}") for n in range(2)]
    store = Store(tmp_path / "t.duckdb")
    try:
        assert store.write(_batch(old, [log_record("first")]), 1) == (3, 1)
        # two spans and the log record are resent with two new spans and a new record
        resent = _batch(old[:2] + new, [log_record("first"), log_record("second")])
        assert store.write(resent, 2) == (2, 1)
        names = [r[0] for r in store.con.execute("SELECT name FROM spans ORDER BY name").fetchall()]
        assert names == ["new-0", "new-1", "old-0", "old-1", "old-2"]
        assert store.con.execute("SELECT count(*) FROM logs").fetchone()[0] == 2
        assert store.loaded_seq() == 2
        # the store is usable after the fallback: a fresh batch goes in the plain way again
        assert store.write(_batch([span("later")], []), 3) == (1, 0)
        assert store.loaded_seq() == 3
    finally:
        store.close()


def test_a_fully_resent_batch_stores_nothing_and_records_its_position(tmp_path: Path) -> None:
    spans = [span(f"s-{n}") for n in range(4)]
    store = Store(tmp_path / "t.duckdb")
    try:
        store.write(_batch(spans, []), 5)
        assert store.write(_batch(spans, []), 6) == (0, 0)
        assert store.con.execute("SELECT count(*) FROM spans").fetchone()[0] == 4
        assert store.loaded_seq() == 6
    finally:
        store.close()


def test_plain_inserts_store_what_conflict_checked_inserts_store(tmp_path: Path) -> None:
    """The same batches (fresh, resent, partly resent) through the plain path with its
    fallback and through the conflict-checked path only: the same rows and counts."""
    spans = [span(f"s-{n}") for n in range(6)]
    records = [log_record(f"r-{n}") for n in range(3)]
    batches = [
        (spans[:3], records[:1]),
        (spans[:3], records[:1]),  # resent whole
        (spans[2:], records),  # partly resent
        ([spans[5], spans[5]], []),  # twice in one batch
    ]
    plain, checked = Store(tmp_path / "plain.duckdb"), Store(tmp_path / "checked.duckdb")
    checked.write = lambda batch, seq: checked._write(  # type: ignore[method-assign]
        batch, seq, datetime(2026, 1, 1), conflicts=True
    )
    try:
        for seq, (batch_spans, batch_logs) in enumerate(batches, start=1):
            prepared = _batch(batch_spans, batch_logs)
            assert plain.write(prepared, seq) == checked.write(prepared, seq)
        for table, columns in (("spans", "* EXCLUDE (received_at)"), ("logs", "log_id, body")):
            sql = f"SELECT {columns} FROM {table} ORDER BY ALL"
            assert plain.con.execute(sql).fetchall() == checked.con.execute(sql).fetchall()
        assert plain.loaded_seq() == checked.loaded_seq() == len(batches)
    finally:
        plain.close()
        checked.close()


def test_a_new_spans_table_keeps_its_json_columns_in_zstd(tmp_path: Path) -> None:
    """Checkpoints skip DuckDB's compression analysis of the big JSON columns; the columns
    tracesim filters on keep DuckDB's own choice, and the table answers as before."""
    store = Store(tmp_path / "t.duckdb")
    try:
        store.write(_batch([span("s", attrs={"k": "v" * 500})], []), 1)
        assert store.checkpoint()
        sql = store.con.execute(
            "SELECT sql FROM duckdb_tables() WHERE table_name = 'spans'"
        ).fetchone()[0]
        for column in ("attributes", "resource_attributes", "events", "links"):
            assert f"{column} JSON USING COMPRESSION ZSTD" in sql
        assert "chat_id VARCHAR," in sql  # not forced
        assert store.con.execute("SELECT attributes->>'$.k' FROM spans").fetchone()[0] == "v" * 500
    finally:
        store.close()
