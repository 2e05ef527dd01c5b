"""A batch whose preparation fails is prepared again a request at a time and merged
(`writer_batches.concat`); the merge must keep every table, the session back-fill
included, or the spans stored before a trace's conversation id arrived stay unkeyed.

Before: `concat` merged five of the six tables and dropped `session_backfill`: after an
isolated batch, the earlier spans of a trace keyed by `session.id` kept chat_id NULL,
silently (the conversation was graded without them)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
from tracesim.collector import Collector
from tracesim.collector.store import writer as writer_module
from tracesim.collector.store.store import PreparedBatch
from tracesim.collector.store.writer_batches import concat

from tests.collector.otlp import GrpcClient, new_trace_id, span, trace_request


def test_concat_keeps_every_table() -> None:
    tables = {
        name: pa.table({"x": [index]})
        for index, (name, _) in enumerate(
            PreparedBatch(**{f: pa.table({"x": [0]}) for f in _TABLE_FIELDS}).tables()
        )
    }
    merged = concat(PreparedBatch(), PreparedBatch(**tables))
    assert {name for name, _ in merged.tables()} == set(_TABLE_FIELDS)


_TABLE_FIELDS = ("spans", "logs", "turns", "conversations", "backfill", "session_backfill")


def test_an_isolated_batch_still_keys_the_earlier_spans(tmp_path: Path, monkeypatch) -> None:
    db = tmp_path / "t.duckdb"
    trace = new_trace_id()
    real = writer_module.Writer._prepare
    calls = {"n": 0}

    def failing_once(self, items):  # the whole batch fails once, then each request passes
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("a hostile request in the batch")
        return real(self, items)

    with Collector(db, grpc_port=0, http_port=None, fsync=False) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        try:
            client.export(trace_request([span("early", trace_id=trace, start=1)]))
            assert collector.flush(30)
            monkeypatch.setattr(writer_module.Writer, "_prepare", failing_once)
            client.export(
                trace_request([span("keyed", trace_id=trace, start=2, attrs={"session.id": "s1"})])
            )
            assert collector.flush(30)
        finally:
            client.close()
    assert calls["n"] == 2  # the batch failed whole, then its request alone passed
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT name, chat_id FROM spans ORDER BY name").fetchall()
    assert rows == [("early", "s1"), ("keyed", "s1")]
