"""evaluate, report, inspect and sql through the one store interface, on every backend:
the same capture (two chats, two turns each, a traced `lookup` call per turn) gives the
same answers whether it sits in a DuckDB file, behind the collector that holds that
file, in a chdb directory or on a ClickHouse server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.store.conftest import Backend
from tracesim.cli import cli

CONFIG = "evaluation:\n  metrics: []\n  policies: [{never: delete_everything}]\n"  # graded


def _run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _evaluate(backend: Backend, tmp_path: Path) -> dict:
    config = tmp_path / "config.yaml"
    config.write_text(CONFIG)
    out = tmp_path / "out"
    result = _run(
        "evaluate", "--db", backend.db, "--config", str(config), "--output-dir", str(out),
        "--no-progress", "--workers", "1",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (out / "report.html").is_file(), result.output
    return json.loads((out / "results.json").read_text())


def test_evaluate_scores_both_chats(backend: Backend, tmp_path: Path) -> None:
    results = _evaluate(backend, tmp_path)
    assert results["summary"]["num_conversations"] == 2
    assert results["summary"]["num_turns"] == 4
    calls = _run("sql", "SELECT count(*) AS n FROM tool_calls WHERE name = 'lookup'",
                 "--db", backend.db, "--format", "json")  # fmt: skip
    assert calls.exit_code == 0, calls.output
    assert json.loads(calls.stdout) == [{"n": 4}]
    scored = _run("sql", f"SELECT count(DISTINCT chat_id) AS n FROM scores "
                  f"WHERE eval_id = '{results['eval_id']}'", "--db", backend.db,
                  "--format", "json")  # fmt: skip
    assert json.loads(scored.stdout) == [{"n": 2}]


def test_report_names_the_evaluation(backend: Backend, tmp_path: Path) -> None:
    results = _evaluate(backend, tmp_path)
    out = tmp_path / "again.html"
    result = _run("report", "--db", backend.db, "--out", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    assert results["eval_id"] in page and "lookup" in page


def test_inspect_sees_the_tool_spans(backend: Backend) -> None:
    result = _run("inspect", "--db", backend.db, "--format", "json")
    assert result.exit_code == 0, result.output
    groups = json.loads(result.stdout)["groups"]
    assert sum(group["spans"] for group in groups) == 8
    assert sum(group["unkeyed_spans"] for group in groups) == 0


def test_sql_counts_the_spans(backend: Backend) -> None:
    result = _run("sql", "SELECT count(*) AS n FROM spans", "--db", backend.db, "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [{"n": 8}]


@pytest.mark.parametrize("command", ["inspect", "report", "sql"])
def test_a_missing_store_is_bad_input(command: str, tmp_path: Path) -> None:
    args = ["SELECT 1"] if command == "sql" else []
    result = CliRunner().invoke(cli, [command, *args, "--db", str(tmp_path / "none.duckdb")])
    assert result.exit_code == 2
    assert "none.duckdb" in result.output and "Traceback" not in result.output
