"""`tracesim inspect` and the unkeyed-tool-span warning of `tracesim evaluate`, on files a real
collector wrote."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.evaluator.inspect.inspect import (
    count_unkeyed_tool_spans,
    format_inspection,
    inspect_db,
)

from tests.collector.otlp import GrpcClient, new_trace_id, span, trace_request
from tracesim.cli import cli


def _capture(path: Path) -> Path:
    """A keyed ADK-like trace and an unkeyed trace whose tool span is named with markup."""
    keyed, unkeyed = new_trace_id(), new_trace_id()
    with Collector(path, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(
            trace_request(
                [
                    span(
                        "invoke_agent a",
                        trace_id=keyed,
                        attrs={"gen_ai.operation.name": "invoke_agent", "session.id": "c1"},
                    ),
                    span(
                        "execute_tool get_weather",
                        trace_id=keyed,
                        attrs={
                            "gen_ai.tool.name": "get_weather",
                            "gen_ai.tool.call.arguments": '{"city": "Paris"}',
                            "gen_ai.tool.call.result": "sunny",
                        },
                    ),
                    span(
                        "chat m",
                        trace_id=keyed,
                        attrs={
                            "gen_ai.operation.name": "chat",
                            "gen_ai.request.model": "m",
                            "gen_ai.usage.input_tokens": 10,
                            "gen_ai.usage.output_tokens": 2,
                        },
                    ),
                ],
                resource={"service.name": "agent-a"},
                scope="adk",
            )
        )
        client.export(
            trace_request(
                [span("execute_tool [bold]x[/bold]", trace_id=unkeyed)],
                resource={"service.name": "agent-b"},
                scope="manual",
            )
        )
        client.close()
    return path


def test_inspect_reports_groups_conventions_models_and_unkeyed_spans(tmp_path: Path) -> None:
    db = _capture(tmp_path / "c.duckdb")
    with duckdb.connect(str(db), read_only=True) as con:
        inspection = inspect_db(con)
        assert count_unkeyed_tool_spans(con) == 1
    a, b = inspection.groups
    assert (a.service_name, a.scope_name, a.spans, a.tool_spans) == ("agent-a", "adk", 3, 1)
    assert "OTel GenAI" in a.conventions
    assert (a.model_calls, a.input_tokens, a.output_tokens) == (1, 10, 2)
    assert a.unread == {"id": 1}
    assert (b.tool_spans, b.unkeyed_tool_spans) == (1, 1)
    assert b.unread == {"id": 1, "arguments": 1, "result": 1}
    [unkeyed] = inspection.unkeyed
    assert unkeyed.name == "execute_tool [bold]x[/bold]" and "no conversation key" in unkeyed.reason
    text = format_inspection(inspection)
    assert "unkeyed tool spans: 1" in text and "[bold]x[/bold]" in text


def test_inspect_command_prints_plain_text_and_json(tmp_path: Path) -> None:
    db = _capture(tmp_path / "c.duckdb")
    result = CliRunner().invoke(cli, ["inspect", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "service agent-a / scope adk" in result.output
    assert "execute_tool [bold]x[/bold]" in result.output  # stored text is not markup
    result = CliRunner().invoke(cli, ["inspect", "--db", str(db), "--format", "json"])
    assert json.loads(result.output)["unkeyed"][0]["service_name"] == "agent-b"


def test_inspect_bad_file_exits_2(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["inspect", "--db", str(tmp_path / "missing.duckdb")])
    assert result.exit_code == 2 and "does not exist" in result.output
    not_db = tmp_path / "x.duckdb"
    not_db.write_text("not a database")
    result = CliRunner().invoke(cli, ["inspect", "--db", str(not_db)])
    assert result.exit_code == 2 and "is not a DuckDB file" in result.output


def test_evaluate_warns_about_unkeyed_tool_spans(tmp_path: Path) -> None:
    db = _capture(tmp_path / "c.duckdb")
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", str(db), "--no-progress", "--output-dir", str(tmp_path / "o")]
    )
    assert result.exit_code == 3, result.output  # nothing graded (no judge ran): exit 3, SPEC §13
    assert "1 tool span(s) carry no conversation key" in result.output
    with duckdb.connect(str(db), read_only=True) as con:
        chats = {r[0] for r in con.execute("SELECT chat_id FROM tool_calls").fetchall()}
    assert "c1" in chats and len(chats) == 2  # the unkeyed trace is a conversation of its own


def test_a_runs_own_root_span_is_not_counted_as_missing_a_key(tmp_path: Path) -> None:
    """`tracesim.run` covers many conversations: it has no key by design."""
    db = tmp_path / "r.duckdb"
    with Collector(db, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(
            trace_request(
                [
                    span("tracesim.run", trace_id=new_trace_id()),
                    span("orphan", trace_id=new_trace_id()),
                ],
                resource={"service.name": "tracesim-simulator"},
                scope="tracesim",
            )
        )
        client.close()
    with duckdb.connect(str(db), read_only=True) as con:
        (group,) = inspect_db(con).groups
    assert (group.spans, group.unkeyed_spans) == (2, 1)
