"""`tracesim import` of the OpenTelemetry Python SDK's span JSON: real spans printed by the
real `ConsoleSpanExporter` (pretty objects one after another, or one per line), and the same
spans saved as `{"spans": [...]}` with integer ids and nanosecond times (agent tools that
keep traces so, e.g. any-agent)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tracesim.cli import cli


def _agent_run(provider: TracerProvider) -> None:
    """A small agent turn as GenAI-instrumented code emits it."""
    tracer = provider.get_tracer("conformance.agent")
    root_attrs = {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "sdk-conv"}
    with tracer.start_as_current_span("invoke_agent support", attributes=root_attrs):
        chat_attrs = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-test",
            "gen_ai.usage.input_tokens": 100,
            "gen_ai.usage.output_tokens": 20,
            "gen_ai.response.finish_reasons": ["tool_calls"],
        }
        with tracer.start_as_current_span(
            "chat gpt-test", kind=trace.SpanKind.CLIENT, attributes=chat_attrs
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool get_weather",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_weather",
                "gen_ai.tool.call.id": "call_1",
                "gen_ai.tool.call.arguments": '{"city": "Lyon"}',
                "gen_ai.tool.call.result": "Rain, 12 C",
            },
        ):
            pass
        try:
            with tracer.start_as_current_span(
                "execute_tool lookup_order",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": "lookup_order",
                    "gen_ai.tool.call.id": "call_2",
                    "gen_ai.tool.call.arguments": '{"order_id": "B7"}',
                },
            ):
                raise KeyError("order B7 not found")
        except KeyError:
            pass


def _console_output(*, indent: int | None) -> str:
    out = io.StringIO()
    provider = TracerProvider()
    exporter = ConsoleSpanExporter(
        out=out, formatter=lambda span: span.to_json(indent=indent) + "\n"
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    _agent_run(provider)
    provider.shutdown()
    return out.getvalue()


def _saved_spans() -> dict:
    """The same run saved as {"spans": [...]}: integer ids, nanosecond times."""
    memory = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(memory))
    _agent_run(provider)
    spans = []
    for span in memory.get_finished_spans():
        item = json.loads(span.to_json())
        item["context"] = {"trace_id": span.context.trace_id, "span_id": span.context.span_id}
        item["parent"] = {"span_id": span.parent.span_id} if span.parent else None
        item["start_time"], item["end_time"] = span.start_time, span.end_time
        item["kind"] = "internal" if span.kind == trace.SpanKind.INTERNAL else "client"
        item["status"] = {"status_code": span.status.status_code.name.lower()}
        spans.append(item)
    return {"spans": spans, "final_output": "done"}


def _rows(db: Path) -> dict[str, tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {
            r[0]: r
            for r in con.execute(
                "SELECT name, parent_span_id IS NULL, kind, status_code, status_message, "
                "chat_id, tool_name, input_tokens, attributes, events FROM spans"
            ).fetchall()
        }
    finally:
        con.close()


@pytest.mark.parametrize("shape", ["console-pretty", "console-lines", "saved-spans"])
def test_sdk_span_json_is_imported_whole(shape: str, tmp_path: Path) -> None:
    if shape == "saved-spans":
        text = json.dumps(_saved_spans(), indent=2)
    else:
        text = _console_output(indent=4 if shape == "console-pretty" else None)
    path = tmp_path / "spans.json"
    path.write_text(text)
    db = tmp_path / "sdk.duckdb"
    result = CliRunner().invoke(cli, ["import", str(path), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "sdk-json, 1 request(s)" in result.output
    assert "4 spans, 0 logs, 1 traces, 1 conversations" in result.output
    rows = _rows(db)
    assert set(rows) == {
        "invoke_agent support",
        "chat gpt-test",
        "execute_tool get_weather",
        "execute_tool lookup_order",
    }
    assert rows["invoke_agent support"][1] is True
    assert all(r[1] is False for n, r in rows.items() if n != "invoke_agent support")
    assert {r[5] for r in rows.values()} == {"sdk-conv"}
    chat = rows["chat gpt-test"]
    assert chat[7] == 100
    if shape != "saved-spans":  # the saved shape writes internal / client only
        assert chat[2] == "CLIENT"
        assert json.loads(chat[8])["gen_ai.response.finish_reasons"] == ["tool_calls"]
    failed = rows["execute_tool lookup_order"]
    assert failed[6] == "lookup_order" and "ERROR" in str(failed[3]).upper()
    if shape != "saved-spans":
        assert "order B7 not found" in failed[4]
        events = json.loads(failed[9])
        assert events[0]["name"] == "exception"


def test_a_broken_console_dump_names_the_span(tmp_path: Path) -> None:
    text = _console_output(indent=4).replace('"0x', '"0xzz', 1)
    path = tmp_path / "broken.json"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["import", str(path), "--db", str(tmp_path / "b.duckdb")])
    assert result.exit_code == 2, result.output
    assert "broken.json:1: spans[0].context: trace_id must be" in result.output
    assert "nothing was imported" in result.output
