"""Never silent when content capture is off (SPEC §5): a model call stored without any
message content (the default of the OTel GenAI instrumentations) cannot show the tool calls
it asked for, and some providers' finish reason says `stop` even then (the Gemini API). A
conversation (chat id, else trace) that holds such a call and in which no call is found
gets an `unread_request` per such call, naming the setting to turn on. It is found over the
whole file, so an UNKEYED trace (each model call a trace of its own, no app span) is covered:
on a DuckDB file, through a running collector and on ClickHouse. Content on the span or in
its log records, or a call found, keeps it quiet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.evaluator.extract.audit import UNREAD_REQUEST
from tracesim.evaluator.extract.contentless import CONTENTLESS, contentless_requests
from tracesim.evaluator.store.live import TOKEN_ENV

from tests.collector.otlp import (
    GrpcClient,
    log_record,
    logs_request,
    new_span_id,
    new_trace_id,
    span,
    trace_request,
)
from tracesim.cli import cli

T0 = 1_700_000_000_000_000_000
USAGE_ONLY = {
    "gen_ai.operation.name": "generate_content",
    "gen_ai.request.model": "gemini-x",
    "gen_ai.response.finish_reasons": ["stop"],
    "gen_ai.usage.input_tokens": 100,
    "gen_ai.usage.output_tokens": 20,
}
TEXT = [{"role": "assistant", "parts": [{"type": "text", "content": "Sunny"}]}]
WARNING = "model calls whose tool requests are unreadable or not recorded"


def _row(attributes: dict, *, span_id: str = "m1", trace: str = "t", events: list | None = None):
    return {
        "trace_id": trace,
        "span_id": span_id,
        "name": "generate_content gemini-x",
        "operation": attributes.get("gen_ai.operation.name"),
        "attributes": json.dumps(attributes),
        "events": json.dumps(events or []),
        "chat_id": None,
        "turn_id": None,
    }


def test_a_model_call_without_content_is_an_unread_request() -> None:
    [item] = contentless_requests([_row(USAGE_ONLY)])
    assert item.kind == UNREAD_REQUEST and item.span_id == "m1"
    assert item.detail == CONTENTLESS and "CAPTURE_MESSAGE_CONTENT" in item.detail


def test_content_on_the_span_or_in_its_log_records_is_quiet() -> None:
    with_content = {**USAGE_ONLY, "gen_ai.output.messages": json.dumps(TEXT)}
    assert contentless_requests([_row(with_content)]) == []
    record = {"name": "gen_ai.choice", "attributes": {"gen_ai.output.messages": json.dumps(TEXT)}}
    assert contentless_requests([_row(USAGE_ONLY, events=[record])]) == []


def test_a_conversation_whose_calls_are_found_is_quiet() -> None:
    parts = [{"type": "tool_call", "id": "c1", "name": "t", "arguments": "{}"}]
    asked = {**USAGE_ONLY, "gen_ai.output.messages": json.dumps([{"parts": parts}])}
    rows = [_row(USAGE_ONLY), _row(asked, span_id="m2")]
    assert contentless_requests(rows) == []
    # another trace is another conversation: it is told about
    assert [i.trace_id for i in contentless_requests([*rows, _row(USAGE_ONLY, trace="u")])] == ["u"]


def test_a_span_that_is_no_model_call_is_quiet() -> None:
    agent = {"gen_ai.operation.name": "invoke_agent", "gen_ai.usage.input_tokens": 5}
    embeddings = {**USAGE_ONLY, "gen_ai.operation.name": "embeddings"}
    assert contentless_requests([_row(agent), _row(embeddings, span_id="m2")]) == []


def test_a_finish_reason_asking_for_tools_is_said_once_per_turn_not_twice() -> None:
    """`extract.unread` already says it, per turn, with its reason."""
    asked = {**USAGE_ONLY, "gen_ai.response.finish_reasons": ["tool_calls"]}
    assert contentless_requests([_row(asked)]) == []


def _unkeyed_requests() -> tuple[list, list]:
    """Two model calls, each a trace of its own with no conversation key: one stored
    without content, one whose content is in its log record; and a keyed chat whose model
    span has content (quiet)."""
    bare, logged, keyed = new_trace_id(), new_trace_id(), new_trace_id()
    logged_span = new_span_id()
    spans = [
        span("generate_content gemini-x", trace_id=bare, start=T0, kind=3, attrs=USAGE_ONLY),
        span("generate_content gemini-x", trace_id=logged, span_id=logged_span, start=T0 + 10,
             kind=3, attrs=USAGE_ONLY),
        span("chat m", trace_id=keyed, start=T0 + 20, kind=3,
             attrs={**USAGE_ONLY, "gen_ai.operation.name": "chat", "session.id": "c1",
                    "gen_ai.output.messages": json.dumps(TEXT)}),
    ]  # fmt: skip
    record = log_record("", trace_id=logged, span_id=logged_span, time=T0 + 11)
    record.event_name = "gen_ai.client.inference.operation.details"
    record.attributes.add(key="gen_ai.output.messages").value.string_value = json.dumps(TEXT)
    return spans, [record]


def _evaluate_and_inspect(db: str, out: Path) -> tuple[str, dict, str, str]:
    runner = CliRunner()
    result = runner.invoke(cli, ["evaluate", "--db", db, "--no-progress", "--output-dir",
                                 str(out), "--workers", "1"])  # fmt: skip
    assert "Traceback" not in result.output, result.output
    summary = json.loads((out / "results.json").read_text())
    inspected = runner.invoke(cli, ["inspect", "--db", db])
    assert inspected.exit_code == 0, inspected.output
    report = out / "report.html"
    written = runner.invoke(cli, ["report", "--db", db, "--out", str(report)])
    assert written.exit_code == 0, written.output
    return result.output, summary, inspected.output, report.read_text(encoding="utf-8")


def _assert_warned_once(output: str, summary: dict, inspected: str, page: str) -> None:
    line = next(x for x in output.splitlines() if "did not become a tool call" in x)
    assert f"1 {WARNING}" in line, line
    assert summary["unexplained_evidence"] == {UNREAD_REQUEST: 1}
    assert f"{WARNING}: 1" in inspected and "content capture off" in inspected, inspected
    assert WARNING in page


def _send(collector: Collector, spans: list, records: list, token: str | None = None) -> None:
    client = GrpcClient(collector.grpc_endpoint or "", token=token)
    try:
        client.export(trace_request(spans, resource={"service.name": "agent"}))
        client.export_logs(logs_request(records))
    finally:
        client.close()


def test_duckdb_file_warns_about_an_unkeyed_contentless_trace(tmp_path: Path) -> None:
    db = tmp_path / "capture.duckdb"
    spans, records = _unkeyed_requests()
    with Collector(db, grpc_port=0, http_port=None) as collector:
        _send(collector, spans, records)
    _assert_warned_once(*_evaluate_and_inspect(str(db), tmp_path / "out"))


def test_a_running_collector_warns_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "live-s3cret"
    monkeypatch.setenv(TOKEN_ENV, token)
    db = tmp_path / "live.duckdb"
    spans, records = _unkeyed_requests()
    collector = Collector(db, grpc_port=0, http_port=0, auth_token=token).start()
    try:
        _send(collector, spans, records, token)
        _assert_warned_once(*_evaluate_and_inspect(str(db), tmp_path / "out"))
    finally:
        collector.shutdown()


@pytest.mark.parametrize("layout", ["map", "json"])
def test_clickhouse_warns_the_same(tmp_path: Path, layout: str) -> None:
    pytest.importorskip("chdb", reason="the clickhouse extra is not installed")
    from tests.clickhouse.conftest import request_of, write_exporter_tables
    from tests.clickhouse.exporter_mapping import insert_logs

    spans, records = _unkeyed_requests()
    url = write_exporter_tables(
        tmp_path / "ch", request_of(({"service.name": "agent"}, spans)), layout=layout
    )
    from chdb import session

    sess = session.Session(str(tmp_path / "ch"))
    try:
        insert_logs(sess.query, logs_request(records), layout=layout)
    finally:
        sess.close()
    _assert_warned_once(*_evaluate_and_inspect(url, tmp_path / "out"))
