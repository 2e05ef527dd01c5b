"""Never silent on a call's outcome (SPEC §5): a call known only from the model's request,
with no result and no error from any evidence, is an `unanswered_request`, listed by
`tracesim inspect` and counted by `evaluate`. A call a tool span ran stays quiet (a tool
may return nothing), and so does an answered one. A tool span's result or error that the
model input's answer of its id contradicts is a `conflict` (listed by inspect). Files written by a real
collector; the model spans follow the GenAI semantic conventions (messages as parts)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.evaluator.extract.audit import CONFLICT, UNANSWERED_REQUEST
from tracesim.evaluator.extract.pairing.outcome import (
    NO_ANSWER,
    disagreeing_answers,
    unanswered_calls,
)
from tracesim.evaluator.inspect.inspect import format_inspection, inspect_db
from tracesim.schemas import ToolCall

from tests.collector.otlp import GrpcClient, new_span_id, new_trace_id, span, trace_request
from tracesim.cli import cli

T0 = 1_700_000_000_000_000_000


def _chat(trace: str, root: str, step: int, inputs: list, outputs: list) -> object:
    return span(
        "chat m",
        trace_id=trace,
        parent=root,
        start=T0 + (step + 1) * 1_000,
        attrs={
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "m",
            "gen_ai.input.messages": json.dumps(inputs),
            "gen_ai.output.messages": json.dumps(outputs),
        },
    )


def _capture(path: Path, *, answered: bool) -> Path:
    """One keyed trace: the model calls get_weather, then answers. With `answered`, the
    second model input carries the tool's answer; without, only the user's text (as an
    instrumentation that records no history does)."""
    trace, root = new_trace_id(), new_span_id()
    user = {"role": "user", "parts": [{"type": "text", "content": "weather?"}]}
    call = {"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"c": "P"}}
    request = [{"role": "assistant", "parts": [call]}]
    history = [user]
    if answered:
        answer = {"type": "tool_call_response", "id": "call_1", "response": "Sunny"}
        history = [user, request[0], {"role": "tool", "parts": [answer]}]
    final = [{"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}]}]
    spans = [
        span(
            "agent", trace_id=trace, span_id=root, start=T0, attrs={"gen_ai.conversation.id": "c1"}
        ),
        _chat(trace, root, 0, [user], request),
        _chat(trace, root, 1, history, final),
    ]
    with Collector(path, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request(spans))
        client.close()
    return path


def test_a_request_no_evidence_answered_is_listed_by_inspect(tmp_path: Path) -> None:
    db = _capture(tmp_path / "t.duckdb", answered=False)
    con = duckdb.connect(str(db), read_only=True)
    try:
        inspection = inspect_db(con)
    finally:
        con.close()
    items = [i for i in inspection.unexplained if i.kind == UNANSWERED_REQUEST]
    assert [(i.name, i.detail) for i in items] == [("get_weather", f"call_1: {NO_ANSWER}")]
    assert items[0].trace_id and items[0].span_id
    assert "call_1: no answer" in format_inspection(inspection)


def test_an_answered_request_is_quiet(tmp_path: Path) -> None:
    db = _capture(tmp_path / "t.duckdb", answered=True)
    con = duckdb.connect(str(db), read_only=True)
    try:
        inspection = inspect_db(con)
    finally:
        con.close()
    assert inspection.unexplained == []


def test_evaluate_warns_about_the_unanswered_call(tmp_path: Path) -> None:
    db = _capture(tmp_path / "t.duckdb", answered=False)
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", str(db), "--no-progress", "--output-dir", str(tmp_path / "o")]
    )
    line = next(x for x in result.output.splitlines() if "did not become a tool call" in x)
    assert "1 model requests never answered" in line, line
    with duckdb.connect(str(db), read_only=True) as con:
        summary = json.loads(con.execute("SELECT summary FROM runs").fetchone()[0])
    assert summary["unexplained_evidence"] == {UNANSWERED_REQUEST: 1}


def test_only_calls_known_from_the_model_alone_count() -> None:
    from_model = {"name": "model_request", "arguments": "model_request"}
    calls = [
        ToolCall(id="a", name="t", span_id="s1", provenance=dict(from_model)),
        # a tool span ran it and it returned nothing: an outcome
        ToolCall(id="b", name="t", span_id="s2"),
        # a model request whose execution span was found
        ToolCall(name="t", span_id="s3", provenance={**from_model, "error": "execution_span"}),
        # answered, or failed
        ToolCall(id="c", name="t", result="ok", provenance=dict(from_model)),
        ToolCall(id="d", name="t", error="boom", provenance=dict(from_model)),
        # replayed by a later model input only, id-less
        ToolCall(name="u", span_id="s4", provenance={"name": "model_history"}),
    ]
    found = unanswered_calls(calls, {"s1": "t1"})
    assert [(i.trace_id, i.span_id, i.name, i.detail) for i in found] == [
        ("t1", "s1", "t", f"a: {NO_ANSWER}"),
        ("", "s4", "u", NO_ANSWER),
    ]


def test_a_tool_span_outcome_the_model_input_contradicts_is_a_conflict() -> None:
    calls = [
        # a repr where the model got the member's answer (Agno under OpenLIT)
        ToolCall(id="a", name="delegate", span_id="s1", result="<generator object f at 0x7f>"),
        # a wrapper message where the model got the cause
        ToolCall(id="b", name="lookup", span_id="s2", error="Tool execution failed"),
        # agreeing, loosely: JSON by value, one text inside the other, quotes
        ToolCall(id="c", name="t", result='{"b": 1, "a": 2}'),
        ToolCall(id="d", name="t", error="order A1 not found"),
        ToolCall(id="e", name="t", result='"Sunny"'),
        # no answer for the id, no id, or the result came from the model input itself
        ToolCall(id="f", name="t", result="x"),
        ToolCall(name="t", result="x"),
        ToolCall(id="g", name="t", result="y", provenance={"result": "model_input_position"}),
    ]
    responses = {
        "a": "Sunny, 21 C in Paris",
        "b": "order A1 not found",
        "c": '{"a":2,"b":1}',
        "d": "error: order A1 not found",
        "e": "Sunny",
        "g": "z",
    }
    found = disagreeing_answers(calls, responses, {"s1": "t1"})
    assert [(i.kind, i.trace_id, i.span_id, i.name) for i in found] == [
        (CONFLICT, "t1", "s1", "delegate"),
        (CONFLICT, "", "s2", "lookup"),
    ]
    assert found[1].detail.startswith("b: error 'Tool execution failed' kept")
