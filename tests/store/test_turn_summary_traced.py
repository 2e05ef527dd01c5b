"""`turn_summary` lists every turn of `all_turns`: a collected conversation's traced turns
(their spans found by trace, since collected spans carry no turn id) as well as simulated
ones, with a `source` column, on DuckDB and ClickHouse (chdb) alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from tracesim.collector import Collector
from tracesim.evaluator import evaluate_db
from tracesim.schemas.eval_config import EvalConfig

from tests.collector.otlp import GrpcClient, new_span_id, new_trace_id, span

SUMMARY = (
    "SELECT chat_id, turn_id, source, num_spans, num_llm_calls, input_tokens, output_tokens "
    "FROM turn_summary ORDER BY chat_id, turn_id"
)
EXPECTED = [
    ("prod-1", 0, "traced", 2, 1, 100, 10),
    ("prod-1", 1, "traced", 2, 1, 200, 20),
]


def _conversation() -> Any:
    """Two traces keyed by `gen_ai.conversation.id`, each an agent span around a model call."""
    from tests.clickhouse.conftest import request_of

    spans, history = [], []
    for turn, (asked, answered) in enumerate([("where is A1?", "Today."), ("refund", "Done.")]):
        trace, root = new_trace_id(), new_span_id()
        start = 1_700_000_000_000_000_000 + turn * 10**9
        history.append({"role": "user", "parts": [{"type": "text", "content": asked}]})
        reply = [{"role": "assistant", "parts": [{"type": "text", "content": answered}]}]
        spans.append(span("invoke_agent a", trace_id=trace, span_id=root, start=start,
                          attrs={"gen_ai.conversation.id": "prod-1",
                                 "gen_ai.operation.name": "invoke_agent"}))  # fmt: skip
        spans.append(span("chat m", trace_id=trace, parent=root, start=start + 1000, attrs={
            "gen_ai.operation.name": "chat", "gen_ai.request.model": "m",
            "gen_ai.usage.input_tokens": 100 * (turn + 1),
            "gen_ai.usage.output_tokens": 10 * (turn + 1),
            "gen_ai.input.messages": json.dumps(history),
            "gen_ai.output.messages": json.dumps(reply),
        }))  # fmt: skip
        history.extend(reply)
    return request_of(({"service.name": "agent"}, spans))


def _evaluate(db: Any, out: Path) -> None:
    evaluate_db(db, config=EvalConfig(metrics=[]), output_dir=out, progress=False)


def test_duckdb_lists_traced_turns(tmp_path: Path) -> None:
    db = tmp_path / "prod.duckdb"
    with Collector(db, grpc_port=0, http_port=None, fsync=False) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        try:
            client.export(_conversation())
        finally:
            client.close()
    _evaluate(db, tmp_path / "out")
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute(SUMMARY).fetchall() == EXPECTED


def test_clickhouse_lists_traced_turns(tmp_path: Path) -> None:
    pytest.importorskip("chdb", reason="the clickhouse extra is not installed")
    from tests.clickhouse.conftest import query, write_exporter_tables

    url = write_exporter_tables(tmp_path / "ch", _conversation())
    _evaluate(url, tmp_path / "out")
    assert [tuple(r.values()) for r in query(url, SUMMARY)] == EXPECTED


def _reported_usage() -> Any:
    """A simulated turn whose agent has no spans: only the turn span, carrying the usage
    the agent's chat-completions answer reported (as the connector writes it)."""
    from tests.clickhouse.conftest import request_of

    turn = span("tracesim.turn", trace_id=new_trace_id(), span_id=new_span_id(), attrs={
        "tracesim.chat_id": "sim-1", "tracesim.turn_id": 0, "tracesim.run_id": "run-1",
        "gen_ai.usage.input_tokens": 70, "gen_ai.usage.output_tokens": 7,
        "gen_ai.response.model": "gpt-4o-mini",
    })  # fmt: skip
    return request_of(({"service.name": "tracesim"}, [turn]))


REPORTED = "SELECT chat_id, turn_id, source, num_llm_calls, input_tokens, output_tokens " \
    "FROM turn_summary"  # fmt: skip


def test_a_turns_reported_usage_is_its_tokens_on_every_backend(tmp_path: Path) -> None:
    pytest.importorskip("chdb", reason="the clickhouse extra is not installed")
    from tests.clickhouse.conftest import query, write_exporter_tables

    db = tmp_path / "sim.duckdb"
    with Collector(db, grpc_port=0, http_port=None, fsync=False) as collector:
        client = GrpcClient(collector.grpc_endpoint or "")
        try:
            client.export(_reported_usage())
        finally:
            client.close()
    with duckdb.connect(str(db), read_only=True) as con:
        ours = con.execute(REPORTED).fetchall()
    url = write_exporter_tables(tmp_path / "ch", _reported_usage())
    theirs = [tuple(r.values()) for r in query(url, REPORTED)]
    assert ours == theirs == [("sim-1", 0, "simulated", 0, 70, 7)]
