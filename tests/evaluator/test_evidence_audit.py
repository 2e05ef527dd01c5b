"""Never silent (SPEC §5): evidence that did not become a call is listed by `tracesim
inspect`, counted in one warning line by `tracesim evaluate` and kept in the run summary;
an unkeyed trace whose calls are only in model messages is still evaluated. Files written
by a real collector."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.audit import (
    IGNORED_SPAN,
    RESULT_WITHOUT_CALL,
    SKIPPED_SPAN,
    UNANSWERED_REQUEST,
)
from tracesim.evaluator.inspect.inspect import format_inspection, inspect_db

from tests.collector.otlp import GrpcClient, new_span_id, new_trace_id, span, trace_request
from tracesim.cli import cli

T0 = 1_700_000_000_000_000_000


def _chat(calls=(), answers=()) -> dict:
    attributes: dict = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}
    if calls:
        parts = [{"type": "tool_call", "id": i, "name": n, "arguments": a} for i, n, a in calls]
        attributes["gen_ai.output.messages"] = json.dumps([{"role": "assistant", "parts": parts}])
    if answers:
        parts = [{"type": "tool_call_response", "id": i, "response": r} for i, r in answers]
        attributes["gen_ai.input.messages"] = json.dumps([{"role": "tool", "parts": parts}])
    return attributes


def _capture(path: Path) -> Path:
    keyed, messages_only = new_trace_id(), new_trace_id()
    agent = new_span_id()
    session = {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "c1"}
    with Collector(path, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(
            trace_request(
                [
                    span("invoke_agent a", trace_id=keyed, span_id=agent, start=T0, attrs=session),
                    # requests a (answered by its span) and b (never run, never answered)
                    span(
                        "chat m",
                        trace_id=keyed,
                        parent=agent,
                        start=T0 + 1,
                        attrs=_chat(calls=[("c_a", "a", '{"x": 1}'), ("c_b", "b", "{}")]),
                    ),
                    span(
                        "execute_tool a",
                        trace_id=keyed,
                        parent=agent,
                        start=T0 + 2,
                        attrs={
                            "gen_ai.tool.name": "a",
                            "gen_ai.tool.call.id": "c_a",
                            "gen_ai.tool.call.arguments": '{"x": 1}',
                            "gen_ai.tool.call.result": "A",
                        },
                    ),
                    # a tool message no request names
                    span(
                        "chat m",
                        trace_id=keyed,
                        parent=agent,
                        start=T0 + 3,
                        attrs=_chat(answers=[("c_a", "A"), ("stray", "who asked?")]),
                    ),
                    # a TOOL span with no name anywhere, and ADK's summary span
                    span(
                        "",
                        trace_id=keyed,
                        parent=agent,
                        start=T0 + 4,
                        attrs={"openinference.span.kind": "TOOL"},
                    ),
                    span(
                        "execute_tool (merged tools)",
                        trace_id=keyed,
                        parent=agent,
                        start=T0 + 5,
                        attrs={"gen_ai.tool.name": "(merged tools)"},
                    ),
                ]
            )
        )
        # no key anywhere, no tool span: the call is only in the model messages
        client.export(
            trace_request(
                [
                    span(
                        "chat m",
                        trace_id=messages_only,
                        start=T0 + 10,
                        attrs=_chat(calls=[("q1", "lookup", '{"id": 7}')]),
                    ),
                    span(
                        "chat m",
                        trace_id=messages_only,
                        start=T0 + 11,
                        attrs=_chat(answers=[("q1", "found")]),
                    ),
                ]
            )
        )
        client.close()
    return path


def test_inspect_lists_evidence_that_did_not_become_a_call(tmp_path: Path) -> None:
    db = _capture(tmp_path / "c.duckdb")
    with duckdb.connect(str(db), read_only=True) as con:
        inspection = inspect_db(con)
    found = {(item.kind, item.name or item.detail) for item in inspection.unexplained}
    assert found == {
        (UNANSWERED_REQUEST, "b"),
        (RESULT_WITHOUT_CALL, "stray"),
        (SKIPPED_SPAN, "no tool name in any convention, nor in the span name"),
        (IGNORED_SPAN, "(merged tools)"),
    }
    assert len(inspection.unkeyed_traces) == 1
    text = format_inspection(inspection)
    assert "model requests never answered: 1" in text
    assert "tool results with no call: 1" in text and "stray" in text
    assert "unkeyed traces" in text


def test_evaluate_warns_with_counts_and_evaluates_the_unkeyed_message_only_trace(
    tmp_path: Path,
) -> None:
    db = _capture(tmp_path / "c.duckdb")
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", str(db), "--no-progress", "--output-dir", str(tmp_path / "o")]
    )
    assert result.exit_code == 3, result.output  # nothing graded (no judge ran): exit 3, SPEC §13
    line = next(x for x in result.output.splitlines() if "did not become a tool call" in x)
    assert "3 piece(s)" in line and "1 model requests never answered" in line
    assert "1 tool results with no call" in line and "1 tool spans skipped" in line
    with duckdb.connect(str(db), read_only=True) as con:
        calls = con.execute(
            "SELECT chat_id, name, arguments, result, arguments_from, result_from "
            "FROM tool_calls ORDER BY chat_id"
        ).fetchall()
        summary = json.loads(con.execute("SELECT summary FROM runs").fetchone()[0])
    assert ("c1", "a", '{"x":1}', "A", "tool_span", "tool_span") in calls
    [lookup] = [c for c in calls if c[1] == "lookup"]  # the unkeyed trace, evaluated
    assert lookup[2:] == ('{"id":7}', "found", "model_request", "model_input")
    assert summary["unexplained_evidence"][UNANSWERED_REQUEST] == 1
    report = (tmp_path / "o" / "report.html").read_text()
    assert "Tool evidence that did not become a call" in report
    assert "1 model requests never answered" in report


def test_audit_is_empty_when_every_piece_is_explained() -> None:
    model = {
        "trace_id": "0" * 32,
        "span_id": "1" * 16,
        "name": "chat m",
        "start_time": 1,
        "attributes": json.dumps(_chat(calls=[("c1", "t", "{}")])),
        "events": "[]",
    }
    tool = {
        **model,
        "span_id": "2" * 16,
        "start_time": 2,
        "name": "execute_tool t",
        "attributes": json.dumps(
            {"gen_ai.tool.name": "t", "gen_ai.tool.call.id": "c1", "gen_ai.tool.call.result": "ok"}
        ),
    }
    audit: list = []
    [call] = extract_tool_calls([model, tool], audit=audit)
    assert call.result == "ok" and audit == []
