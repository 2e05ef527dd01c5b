"""Chats with spans but no simulated turns (`tracesim collect` alone): tool calls per trace.

See `evaluator.load.traced`: one turn per trace, ranked by start time, run_id NULL;
spans without a chat_id are not evaluated; judges skip these chats; with a
run_id they are left alone.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import duckdb
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from tracesim.collector.collector import Collector
from tracesim.evaluator import evaluate_db
from tracesim.evaluator.output.results_file import read_results
from tracesim.schemas import create_all
from tracesim.schemas.eval_config import EvalConfig

T0 = datetime(2025, 3, 1, 9, 0, 0)
NO_JUDGES = EvalConfig(metrics=[])


def _span(trace: int, n: int, chat: str | None, *, tool: str | None, seconds: int) -> dict:
    attrs: dict = {"gen_ai.operation.name": "chat"}
    name = "chat model"
    if tool is not None:
        attrs = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": tool,
            "gen_ai.tool.call.arguments": json.dumps({"n": n}),
        }
        name = f"execute_tool {tool}"
    if chat is not None:
        attrs["gen_ai.conversation.id"] = chat
    start = T0 + timedelta(seconds=seconds)
    return {
        "trace_id": f"{trace:032x}",
        "span_id": f"{trace:08x}{n:08x}",
        "name": name,
        "start_time": start,
        "end_time": start + timedelta(milliseconds=10),
        "duration_ms": 10.0,
        "status_code": "UNSET",
        "attributes": json.dumps(attrs),
        "events": "[]",
        "chat_id": chat,
        "turn_id": None,
        "tool_name": tool,
    }


def _production_db(path: Path) -> Path:
    """Chat `prod-1`: trace 0xb (starts first, two calls), trace 0xa (one call);
    an unkeyed trace 0xc with a tool call; no turns, no conversations."""
    con = duckdb.connect(str(path))
    create_all(con)
    spans = [
        _span(0xA, 1, "prod-1", tool="refund", seconds=60),
        _span(0xA, 0, "prod-1", tool=None, seconds=59),
        _span(0xB, 2, "prod-1", tool="lookup", seconds=2),
        _span(0xB, 1, "prod-1", tool="search", seconds=1),
        _span(0xC, 1, None, tool="orphan", seconds=5),
    ]
    for span in spans:
        columns = list(span)
        con.execute(
            f"INSERT INTO spans ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
            [span[c] for c in columns],
        )
    con.close()
    return path


def _tool_calls(path: Path) -> list[tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(
            "SELECT chat_id, turn_id, seq, run_id, name, source FROM tool_calls "
            "ORDER BY chat_id, turn_id, seq"
        ).fetchall()


def test_traced_only_chat_gets_tool_calls_per_trace(tmp_path: Path) -> None:
    db = _production_db(tmp_path / "prod.duckdb")
    result = evaluate_db(db, config=NO_JUDGES, output_dir=tmp_path / "out", progress=False)
    assert result.exit_code == 3  # nothing graded never passes (SPEC §13)
    orphan_trace = format(0xC, "032x")  # no conversation key: a conversation of its own
    assert _tool_calls(db) == [
        (orphan_trace, 0, 0, None, "orphan", "traced"),
        ("prod-1", 0, 0, None, "search", "traced"),
        ("prod-1", 0, 1, None, "lookup", "traced"),
        ("prod-1", 1, 0, None, "refund", "traced"),
    ]
    with duckdb.connect(str(db), read_only=True) as con:
        stats = dict(con.execute("SELECT name, calls FROM tool_stats").fetchall())
        final = con.execute(
            "SELECT value, label FROM scores WHERE chat_id = 'prod-1' AND metric = 'final_score'"
        ).fetchall()
    assert stats == {"search": 1, "lookup": 1, "refund": 1, "orphan": 1}
    assert final == [(None, "Not graded")]  # nothing decided its turns: never a 0
    report = read_results(result.results_path)
    [conversation] = [c for c in report.conversations if c.chat_id == "prod-1"]
    assert conversation.chat_id == "prod-1" and conversation.num_tool_calls == 3
    assert conversation.final_score is None and conversation.status == "Not graded"


def test_traced_only_chats_are_not_judged_and_not_evaluated_for_a_run(tmp_path: Path) -> None:
    db = _production_db(tmp_path / "prod.duckdb")
    # Judges selected but not configured: a simulated chat would get `not_run` results.
    result = evaluate_db(db, config=EvalConfig(), output_dir=tmp_path / "out", progress=False)
    with duckdb.connect(str(db), read_only=True) as con:
        labels = con.execute(
            "SELECT count(*) FROM scores WHERE eval_id = ? AND label = 'not_run'",
            [result.eval_id],
        ).fetchone()
    assert labels == (0,)
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM tool_calls")
    evaluate_db(db, config=NO_JUDGES, run_id="run-x", output_dir=tmp_path / "o2", progress=False)
    assert _tool_calls(db) == []


def test_traced_only_chat_from_a_real_collector(tmp_path: Path) -> None:
    db = tmp_path / "collected.duckdb"
    with Collector(db, grpc_port=0, http_port=None) as collector:
        provider = TracerProvider(resource=Resource.create({"service.name": "prod-agent"}))
        exporter = OTLPSpanExporter(endpoint=collector.grpc_endpoint, insecure=True)
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        tracer = provider.get_tracer("prod")
        for tool in ("first", "second"):  # two requests of one session: two traces
            with tracer.start_as_current_span("invoke_agent", attributes={"session.id": "s-9"}):
                with tracer.start_as_current_span(
                    f"execute_tool {tool}",
                    attributes={"session.id": "s-9", "gen_ai.tool.call.arguments": '{"q": 1}'},
                ):
                    pass
        provider.shutdown()
        assert collector.flush(10)
    result = evaluate_db(db, config=NO_JUDGES, output_dir=tmp_path / "out", progress=False)
    assert result.exit_code == 3  # nothing graded never passes (SPEC §13)
    assert _tool_calls(db) == [
        ("s-9", 0, 0, None, "first", "traced"),
        ("s-9", 1, 0, None, "second", "traced"),
    ]
