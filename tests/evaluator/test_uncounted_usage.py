"""Never silent on tokens tracesim did not count (SPEC §5): a span carrying token usage that
no counted model call accounts for (not a model call, none above or below it, not mirroring a
call's usage) is an `uncounted_usage` item: listed by `tracesim inspect`, counted by
`tracesim evaluate` and kept in the run summary. Wrappers, agent spans summing their calls,
usage records beside or below a call and duplicate reporters stay quiet. Files written by a
real collector."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from click.testing import CliRunner
from tracesim.collector import Collector
from tracesim.evaluator.extract.audit import UNCOUNTED_USAGE, WARNED_KINDS
from tracesim.evaluator.inspect.inspect import inspect_db

from tests.collector.otlp import GrpcClient, new_span_id, new_trace_id, span, trace_request
from tracesim.cli import cli

CHAT = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m"}


def _usage(inp: int, out: int) -> dict[str, int]:
    return {"gen_ai.usage.input_tokens": inp, "gen_ai.usage.output_tokens": out}


def _store(path: Path, spans: list) -> Path:
    with Collector(path, grpc_port=0, http_port=None) as collector:
        client = GrpcClient(collector.grpc_endpoint)
        client.export(trace_request(spans))
        client.close()
        assert collector.flush(30)
    return path


def _items(db: Path) -> list:
    with duckdb.connect(str(db), read_only=True) as con:
        return [i for i in inspect_db(con).unexplained if i.kind == UNCOUNTED_USAGE]


def test_an_inference_span_without_operation_is_reported(tmp_path: Path) -> None:
    """The semantic conventions' own example: a second client span with a model and usage
    but no operation is no counted call; its tokens are missing and that is said."""
    trace = new_trace_id()
    db = _store(
        tmp_path / "u.duckdb",
        [
            # content recorded: a call with content capture off is an unread_request too
            span(
                "chat m",
                trace_id=trace,
                kind=3,
                attrs={**CHAT, **_usage(47, 17), "gen_ai.output.messages": "[]"},
            ),
            span(
                "chat m",
                trace_id=trace,
                kind=3,
                attrs={"gen_ai.request.model": "m", **_usage(97, 52)},
            ),
        ],  # fmt: skip
    )
    items = _items(db)
    assert [(i.name, i.detail) for i in items] == [("chat m", "97 input / 52 output tokens")]
    assert UNCOUNTED_USAGE in WARNED_KINDS
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", str(db), "--no-progress", "--output-dir", str(tmp_path / "o")]
    )
    line = next(x for x in result.output.splitlines() if "did not become a tool call" in x)
    assert "1 spans with token usage no model call accounts for" in line, line
    with duckdb.connect(str(db), read_only=True) as con:
        summary = json.loads(con.execute("SELECT summary FROM runs").fetchone()[0])
    assert summary["unexplained_evidence"] == {UNCOUNTED_USAGE: 1}


def test_mirrors_wrappers_and_duplicates_stay_quiet(tmp_path: Path) -> None:
    trace = new_trace_id()
    agent, call, dup_call = new_span_id(), new_span_id(), new_span_id()
    db = _store(
        tmp_path / "q.duckdb",
        [
            # an agent span summing its calls' usage (above a counted call)
            span("invoke_agent a", trace_id=trace, span_id=agent, attrs=_usage(30, 9)),
            span(
                "chat m",
                trace_id=trace,
                span_id=call,
                parent=agent,
                attrs={**CHAT, **_usage(10, 3)},
            ),  # fmt: skip
            # a usage record below a counted call
            span("usage", trace_id=trace, parent=call, attrs=_usage(10, 3)),
            # a usage-record sibling mirroring a call's usage
            span(
                "chat m",
                trace_id=trace,
                span_id=dup_call,
                parent=agent,
                attrs={**CHAT, **_usage(20, 6)},
            ),  # fmt: skip
            span("record_usage", trace_id=trace, parent=agent, attrs=_usage(20, 6)),
        ],
    )
    assert _items(db) == []


def test_a_parent_cycle_ends_the_walk(tmp_path: Path) -> None:
    trace = new_trace_id()
    a, b = new_span_id(), new_span_id()
    db = _store(
        tmp_path / "c.duckdb",
        [
            span("step", trace_id=trace, span_id=a, parent=b, attrs=_usage(5, 1)),
            span("step", trace_id=trace, span_id=b, parent=a, attrs=_usage(7, 2)),
        ],
    )
    assert sorted(i.detail for i in _items(db)) == [
        "5 input / 1 output tokens",
        "7 input / 2 output tokens",
    ]
