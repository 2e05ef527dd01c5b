"""An evaluation over HTTP whose parameters pass ClickHouse's field limit
(`http_max_field_value_size`, 128 KiB): 4,000 conversations keyed by their trace, whose ids
the spans query names, evaluate as they do in-process."""

from __future__ import annotations

from pathlib import Path

from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.schemas.eval_config import EvalConfig

from tests.clickhouse.conftest import StoreDB, query, request_of
from tests.collector.otlp import new_trace_id, span


def test_thousands_of_trace_keyed_conversations(tmp_path: Path) -> None:
    traces = 4_000  # ~150 KB of trace ids
    spans = [
        span("execute_tool lookup", trace_id=new_trace_id(), attrs={"gen_ai.tool.name": "lookup"})
        for _ in range(traces)
    ]
    store = StoreDB(tmp_path, "http")
    url = store(request_of(({"service.name": "agent"}, spans)))
    try:
        evaluate_db(url, config=EvalConfig(), output_dir=tmp_path / "out", progress=False)
        calls = query(url, "SELECT uniqExact(chat_id) AS chats, count() AS n FROM tool_calls FINAL")
        assert calls == [{"chats": traces, "n": traces}]
    finally:
        store.close()
