"""Log records of a span read as its events (SPEC §5), on a file a real collector wrote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
from tracesim.collector import Collector
from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.load.load import load_conversations
from tracesim.evaluator.load.load_logs import has_span_logs

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


def _choice_record(trace_id: bytes, span_id: bytes, call_id: str, name: str) -> Any:
    """A `gen_ai.choice` record named only by its `event.name` attribute (the JS SDKs)."""
    message = {
        "tool_calls": [
            {"id": call_id, "function": {"name": name, "arguments": '{"city": "Paris"}'}}
        ]
    }
    record = log_record(
        "", trace_id=trace_id, span_id=span_id, attrs={"event.name": "gen_ai.choice"}
    )
    record.body.kvlist_value.values.add(key="message").value.string_value = json.dumps(message)
    return record


def test_calls_only_in_log_records_named_by_attribute_are_found(tmp_path: Path) -> None:
    """The model's request and the tool's answer only in log records whose event is named by
    the `event.name` attribute (otel-openai-node): the calls are found, with their results;
    an application's own log on the same span is not read."""
    db = tmp_path / "c.duckdb"
    trace_id, first, second = new_trace_id(), new_span_id(), new_span_id()
    with Collector(db, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        keyed = {"gen_ai.conversation.id": "conv", "gen_ai.operation.name": "chat"}
        client.export(
            trace_request(
                [
                    span("chat m", trace_id=trace_id, span_id=first, attrs=keyed),
                    span(
                        "chat m",
                        trace_id=trace_id,
                        span_id=second,
                        attrs=keyed,
                        start=1_700_000_001_000_000_000,
                    ),
                ]
            )
        )
        answer = log_record(
            "", trace_id=trace_id, span_id=second, attrs={"event.name": "gen_ai.tool.message"}
        )
        answer.body.kvlist_value.values.add(key="id").value.string_value = "call_1"
        answer.body.kvlist_value.values.add(key="content").value.string_value = "Sunny"
        chatter = log_record("request took 3 ms", trace_id=trace_id, span_id=second)
        client.export_logs(
            logs_request(
                [_choice_record(trace_id, first, "call_1", "get_weather"), answer, chatter]
            )
        )
        client.close()
    with duckdb.connect(str(db)) as con:
        [conversation] = load_conversations(con)
    spans = [s for turn in conversation.spans_by_turn.values() for s in turn]
    events = [e["name"] for s in spans for e in s["events"]]
    assert events == ["gen_ai.choice", "gen_ai.tool.message"]  # the app's own log is not read
    [call] = extract_tool_calls(spans)
    assert (call.id, call.name, call.arguments, call.result) == (
        "call_1",
        "get_weather",
        {"city": "Paris"},
        "Sunny",
    )


def test_a_file_whose_logs_carry_no_evidence_reads_none(tmp_path: Path) -> None:
    """Only application logs linked to spans: no log query per chunk at all."""
    db = tmp_path / "c.duckdb"
    trace_id, model = new_trace_id(), new_span_id()
    with Collector(db, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(
            trace_request(
                [span("chat m", trace_id=trace_id, span_id=model, attrs={"session.id": "s"})]
            )
        )
        client.export_logs(logs_request([log_record("hello", trace_id=trace_id, span_id=model)]))
        client.close()
    with duckdb.connect(str(db)) as con:
        assert has_span_logs(con) is False


def test_an_unkeyed_trace_whose_calls_are_only_in_logs_is_evaluated(tmp_path: Path) -> None:
    """No conversation key and no tool span (the OTel JS openai instrumentation without an
    app span): the trace is a conversation of its own and its logs give the call."""
    from tracesim.evaluator.pipeline.pipeline import evaluate_db
    from tracesim.schemas.eval_config import EvalConfig

    db = tmp_path / "c.duckdb"
    trace_id, model = new_trace_id(), new_span_id()
    with Collector(db, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        attrs = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
        client.export(
            trace_request([span("chat m", trace_id=trace_id, span_id=model, attrs=attrs)])
        )
        client.export_logs(logs_request([_choice_record(trace_id, model, "call_1", "get_weather")]))
        client.close()
    evaluate_db(db, config=EvalConfig(), output_dir=tmp_path / "out", progress=False)
    with duckdb.connect(str(db)) as con:
        rows = con.execute("SELECT chat_id, id, name, arguments FROM tool_calls").fetchall()
    assert rows == [(trace_id.hex(), "call_1", "get_weather", '{"city":"Paris"}')]
