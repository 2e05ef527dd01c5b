"""Log records of a span, stored by the exporter in `otel_logs`, are read as its events on
ClickHouse as on DuckDB (SPEC §5): here a model call's `gen_ai.choice` gives a tool span
its id."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tracesim.evaluator.pipeline.pipeline import evaluate_db
from tracesim.schemas.eval_config import EvalConfig

from tests.clickhouse.conftest import StoreDB, query, request_of
from tests.clickhouse.exporter_mapping import insert_logs
from tests.collector.otlp import log_record, logs_request, new_span_id, new_trace_id, span


@pytest.mark.parametrize(
    ("layout", "store_db"),
    [("map", "chdb"), ("json", "chdb"), ("json", "http")],
    indirect=["store_db"],
)
def test_log_records_become_events_of_their_span(
    tmp_path: Path, layout: str, store_db: StoreDB
) -> None:
    trace_id, model = new_trace_id(), new_span_id()
    spans = request_of(
        (
            {"service.name": "agent"},
            [
                span("chat m", trace_id=trace_id, span_id=model, attrs={"session.id": "s"}),
                span(
                    "execute_tool t",
                    trace_id=trace_id,
                    start=1_700_000_000_100_000_000,
                    attrs={"gen_ai.tool.name": "t"},
                ),
            ],
        )
    )
    record = log_record("", trace_id=trace_id, span_id=model)
    record.event_name = "gen_ai.choice"
    message = {"tool_calls": [{"id": "c1", "function": {"name": "t", "arguments": "{}"}}]}
    record.body.kvlist_value.values.add(key="message").value.string_value = json.dumps(message)
    url = store_db(spans, layout=layout)
    insert_logs(store_db.execute, logs_request([record]), layout=layout)
    evaluate_db(url, config=EvalConfig(), output_dir=tmp_path / "out", progress=False)
    calls = query(url, "SELECT chat_id, name, id FROM tool_calls")
    assert calls == [{"chat_id": "s", "name": "t", "id": "c1"}]
