"""A ClickHouse (chdb) evaluate is as loud as DuckDB's on whole-store evidence: unread turns
and spans whose token usage no model call accounts for are counted, warned about and kept
in the run summary; a server that cannot run the uncounted-usage walk says it did not
check, instead of reporting nothing.

Before: `ClickHouseStore.file_evidence` was the base class's `{}`: the same spans that
warned on DuckDB evaluated silently on ClickHouse (inspect listed them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from tracesim.evaluator.extract.audit import UNCOUNTED_USAGE, UNREAD_REQUEST, UNREAD_TURN

from tests.clickhouse.conftest import request_of, write_exporter_tables
from tests.collector.otlp import new_span_id, new_trace_id, span
from tracesim.cli import cli

pytest.importorskip("chdb", reason="the clickhouse extra is not installed")

T0 = 1_700_000_000_000_000_000
CHAT = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "m", "session.id": "c1"}
USAGE = {"gen_ai.usage.input_tokens": 97, "gen_ai.usage.output_tokens": 52}


def _store(directory: Path) -> str:
    counted, unknown = new_trace_id(), new_trace_id()
    root = new_span_id()
    spans = [
        span("chat m", trace_id=counted, start=T0, kind=3,
             attrs={**CHAT, "gen_ai.usage.input_tokens": 47, "gen_ai.usage.output_tokens": 17}),
        # an inference span no convention recognises: its usage is missing from the counts
        span("chat m", trace_id=counted, start=T0 + 1, kind=3,
             attrs={"gen_ai.request.model": "m", **USAGE}),
        # an instrumentation of its own carrying payloads: an unread turn
        span("generate", trace_id=unknown, span_id=root, start=T0 + 10,
             attrs={"acme:in": "{}", "session.id": "c2"}),
        span("model/x", trace_id=unknown, parent=root, start=T0 + 11,
             attrs={"acme:type": "action", "acme:input": '"hi"', "acme:output": '"yo"'}),
    ]  # fmt: skip
    return write_exporter_tables(directory, request_of(({"service.name": "agent"}, spans)))


def _evaluate(url: str, out: Path) -> tuple[str, dict]:
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", url, "--no-progress", "--output-dir", str(out)]
    )
    assert "Traceback" not in result.output, result.output
    summary = json.loads((out / "results.json").read_text())
    return result.output, summary


def test_chdb_evaluate_counts_unread_turns_and_uncounted_usage(tmp_path: Path) -> None:
    output, results = _evaluate(_store(tmp_path / "ch"), tmp_path / "out")
    line = next(x for x in output.splitlines() if "did not become a tool call" in x)
    assert "1 spans with token usage no model call accounts for" in line, line
    assert "1 turns whose agent spans gave no model call" in line, line
    # the counted chat span holds no message content, in a conversation with no call
    assert results["unexplained_evidence"] == {
        UNREAD_TURN: 1,
        UNCOUNTED_USAGE: 1,
        UNREAD_REQUEST: 1,
    }


def test_a_server_that_cannot_walk_says_usage_was_not_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from tracesim.evaluator.store import clickhouse_inspect

    broken = {**clickhouse_inspect.INSPECT_SQL, UNCOUNTED_USAGE: "WITH RECURSIVE x AS (SELECT"}
    monkeypatch.setattr(clickhouse_inspect, "INSPECT_SQL", broken)
    output, results = _evaluate(_store(tmp_path / "ch"), tmp_path / "out")
    assert results["unexplained_evidence"] == {
        UNREAD_TURN: 1,
        UNREAD_REQUEST: 1,
        "unchecked_usage": 1,
    }
    assert "token usage no model call accounts for was not checked" in " ".join(output.split())
    assert "uncounted token usage not checked" in caplog.text
