"""Log records of a span read as its events (SPEC §5), on a file a real collector wrote."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from tracesim.collector import Collector
from tracesim.evaluator.load.load import load_conversations

from tests.collector.otlp import (
    GrpcClient,
    log_record,
    logs_request,
    new_span_id,
    new_trace_id,
    span,
    trace_request,
)


def test_log_records_become_events_of_their_span(tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    trace_id, model = new_trace_id(), new_span_id()
    choice = {
        "message": {"tool_calls": [{"id": "c1", "function": {"name": "t", "arguments": "{}"}}]}
    }
    with Collector(db, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(
            trace_request(
                [
                    span("chat m", trace_id=trace_id, span_id=model, attrs={"session.id": "s"}),
                    span("execute_tool t", trace_id=trace_id, attrs={"gen_ai.tool.name": "t"}),
                ]
            )
        )
        record = log_record("", trace_id=trace_id, span_id=model)
        record.event_name = "gen_ai.choice"
        record.body.kvlist_value.values.add(key="message").value.string_value = json.dumps(
            choice["message"]
        )
        client.export_logs(logs_request([record]))
        client.close()
    with duckdb.connect(str(db)) as con:
        [conversation] = load_conversations(con)
    spans = {s["name"]: s for s in conversation.spans_by_turn[0]}
    [event] = spans["chat m"]["events"]
    assert event["name"] == "gen_ai.choice"
    assert json.loads(event["attributes"]["message"])["tool_calls"][0]["id"] == "c1"
