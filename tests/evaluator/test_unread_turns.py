"""Never silent on telemetry tracesim cannot read (SPEC §5): a turn whose spans follow no
convention tracesim reads, yet carry payloads, is an `unread_turn`: listed by `tracesim
inspect` with the attribute prefixes seen, counted by `tracesim evaluate` and kept in the run
summary. Turns of a known convention and turns with no agent span stay quiet. A model call that asked
for tools with no readable request, in a turn with no call, is an `unread_request`. Files written
by a real collector."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.evaluator.extract import extract_tool_calls
from tracesim.evaluator.extract.audit import UNREAD_REQUEST, UNREAD_TURN, WARNED_KINDS
from tracesim.evaluator.extract.unread import payload_prefixes, unread_requests, unread_turns
from tracesim.evaluator.inspect.inspect import format_inspection, inspect_db

from tests.collector.otlp import GrpcClient, new_span_id, new_trace_id, span, trace_request
from tracesim.cli import cli

T0 = 1_700_000_000_000_000_000

REQUEST = json.dumps({"message": {"content": [{"toolRequest": {"name": "get_weather"}}]}})


def _capture(path: Path) -> tuple[Path, bytes]:
    unknown, known, own, plain = (new_trace_id() for _ in range(4))
    root = new_span_id()
    with Collector(path, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        spans = [
            # an instrumentation of its own: JSON in and out, a tool request inside
            span("generate", trace_id=unknown, span_id=root, start=T0, attrs={"acme:in": "{}"}),
            span(
                "model/x",
                trace_id=unknown,
                parent=root,
                start=T0 + 1_000,
                attrs={"acme:type": "action", "acme:input": '"hi"', "acme:output": REQUEST},
            ),
            span(
                "get_weather",
                trace_id=unknown,
                parent=root,
                start=T0 + 2_000,
                attrs={"acme:type": "action", "acme:input": '{"city": "Paris"}'},
            ),
            # a known convention whose model answered without tools, beside a chain span
            span(
                "chat m",
                trace_id=known,
                start=T0 + 10_000,
                attrs={
                    "gen_ai.operation.name": "chat",
                    "gen_ai.request.model": "m",
                    "gen_ai.conversation.id": "c1",
                    "gen_ai.output.messages": json.dumps(
                        [{"role": "assistant", "parts": [{"type": "text", "content": "hi"}]}]
                    ),
                },
            ),
            span("chain", trace_id=known, start=T0 + 11_000, attrs={"input.value": "hello"}),
            # tracesim's own spans only: no agent span at all
            span(
                "tracesim.turn",
                trace_id=own,
                start=T0 + 20_000,
                attrs={"tracesim.chat_id": "c2", "tracesim.turn_id": 0, "input": "hello"},
            ),
            # a span with no payload (an HTTP client span)
            span("GET", trace_id=plain, start=T0 + 30_000, attrs={"http.request.method": "GET"}),
        ]
        client.export(trace_request(spans))
        client.close()
    return path, unknown


def test_inspect_lists_the_unread_turn_with_its_prefixes(tmp_path: Path) -> None:
    db, unknown = _capture(tmp_path / "c.duckdb")
    with duckdb.connect(str(db), read_only=True) as con:
        inspection = inspect_db(con)
    [item] = [i for i in inspection.unexplained if i.kind == UNREAD_TURN]
    assert item.trace_id == unknown.hex() and item.name == "generate"
    assert "3 span(s)" in item.detail and "(acme:)" in item.detail
    assert UNREAD_TURN in WARNED_KINDS
    text = format_inspection(inspection)
    assert "turns whose agent spans gave no model call and no tool evidence: 1" in text


def test_evaluate_counts_the_unread_turn(tmp_path: Path) -> None:
    db, _ = _capture(tmp_path / "c.duckdb")
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", str(db), "--no-progress", "--output-dir", str(tmp_path / "o")]
    )
    line = next(x for x in result.output.splitlines() if "did not become a tool call" in x)
    assert "1 turns whose agent spans gave no model call and no tool evidence" in line, line
    with duckdb.connect(str(db), read_only=True) as con:
        summary = json.loads(con.execute("SELECT summary FROM runs").fetchone()[0])
    assert summary["unexplained_evidence"] == {UNREAD_TURN: 1}


def _row(trace: str, span_id: str, attrs: dict, **hot: object) -> dict:
    return {
        "trace_id": trace,
        "span_id": span_id,
        "name": "step",
        "attributes": json.dumps(attrs),
        "chat_id": hot.pop("chat_id", None),
        "turn_id": hot.pop("turn_id", None),
        "operation": hot.pop("operation", None),
        "tool_name": hot.pop("tool_name", None),
    }


def test_a_keyed_turn_read_in_another_trace_is_not_unread() -> None:
    row = _row("t2", "s1", {"acme:output": "{}"}, chat_id="c", turn_id=1)
    assert [i.kind for i in unread_turns([row])] == [UNREAD_TURN]
    assert unread_turns([row], read=[("c", 1)]) == []


def test_a_tool_span_extraction_reads_without_a_hot_column_is_read() -> None:
    tool = _row(
        "t", "s", {"openinference.span.kind": "TOOL", "tool.name": "t", "input.value": "{}"}
    )
    assert unread_turns([tool]) == []


def test_payload_prefixes() -> None:
    assert payload_prefixes({"genkit:input": "{}", "genkit:name": "x"}) == {"genkit:"}
    assert payload_prefixes({"acme.call": '{"function": {"name": "f"}}'}) == {"acme."}
    assert payload_prefixes({"http.method": "GET", "tracesim.input": "x"}) == set()


def _model(attrs: dict) -> dict:
    return {**_row("t", "m1", {"gen_ai.operation.name": "chat", **attrs}), "name": "chat m"}


def test_a_model_call_that_asked_for_tools_unreadably_is_an_unread_request() -> None:
    streamed = _model({"gen_ai.response.finish_reasons": ["tool_calls"]})
    [item] = extract_audit([streamed])
    assert item.kind == UNREAD_REQUEST and item.span_id == "m1"
    assert "gen_ai.response.finish_reasons" in item.detail
    # the request is readable: the existing audit says whether it became a call
    parts = [{"type": "tool_call", "id": "c1", "name": "t", "arguments": "{}"}]
    readable = _model(
        {
            "gen_ai.response.finish_reasons": ["tool_calls"],
            "gen_ai.output.messages": json.dumps([{"role": "assistant", "parts": parts}]),
        }
    )
    assert UNREAD_REQUEST not in {i.kind for i in extract_audit([readable])}
    assert unread_requests([streamed], calls=1) == []  # the turn found its calls elsewhere
    assert extract_audit([_model({"gen_ai.response.finish_reasons": ["stop"]})]) == []


def extract_audit(rows: list[dict]) -> list:
    audit: list = []
    extract_tool_calls(rows, audit=audit)
    return audit


def test_an_unread_request_is_settled_by_calls_of_the_conversation() -> None:
    from tracesim.evaluator.extract.audit import settle
    from tracesim.schemas import ToolCall

    [item] = extract_audit([_model({"gen_ai.response.finish_reasons": ["tool_calls"]})])
    assert settle([item], []) == [item]  # no call anywhere: the calls are missing
    # a span per trace (LangChain.js): the calls were found in the conversation's other traces
    assert settle([item], [ToolCall(name="t", arguments={})]) == []
