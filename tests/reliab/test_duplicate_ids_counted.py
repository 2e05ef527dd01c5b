"""A span id stored twice with different content is never silent: the first stored is
kept (a resent request must not double a span), and every span or log record left out
for its id is counted in the collector's stats and said by `tracesim collect`.

Before: a second span with the same (trace id, span id) but another name and conversation,
in a later request or in the same one, vanished without a count or a line."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from tracesim.collector import Collector

from tests.collector.otlp import GrpcClient, new_span_id, new_trace_id, span, trace_request
from tracesim.damage_lines import damage_lines as stats_lines


@pytest.mark.parametrize("decoder_process", [False, True], ids=["here", "decoder-process"])
def test_reused_ids_keep_the_first_and_are_counted(tmp_path: Path, decoder_process: bool) -> None:
    db = tmp_path / "t.duckdb"
    trace, span_id = new_trace_id(), new_span_id()
    other, other_id = new_trace_id(), new_span_id()
    first = span("first", trace_id=trace, span_id=span_id, attrs={"session.id": "c1"})
    second = span("second", trace_id=trace, span_id=span_id, attrs={"session.id": "c2"})
    with Collector(
        db, grpc_port=0, http_port=None, fsync=False, decoder_process=decoder_process
    ) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        try:
            client.export(trace_request([first]))
            assert collector.flush(30)
            client.export(trace_request([second]))  # a later request, same id
            client.export(  # twice in one request
                trace_request([span("x1", trace_id=other, span_id=other_id),
                               span("x2", trace_id=other, span_id=other_id)])  # fmt: skip
            )
            assert collector.flush(30)
        finally:
            client.close()
        stats = collector.stats()
    assert stats.duplicate_items == 2
    assert stats.spans_stored == 2
    assert any("2 span(s)/log record(s) not stored: their id was stored" in line
               for line in stats_lines(stats, str(db)))  # fmt: skip
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT name, chat_id FROM spans ORDER BY name").fetchall()
    assert rows == [("first", "c1"), ("x1", None)]
