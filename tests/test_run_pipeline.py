"""`tracesim run` evaluates after capture: scores, results.json, report.html, gate exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from tracesim.config_loader import load_run_config
from tracesim.run import RunOutcome, run

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "customer_service" / "config.yaml"


def _run(out: Path, **overrides: str) -> RunOutcome:
    loaded = load_run_config(EXAMPLE, {"output_dir": str(out), **overrides})
    return run(loaded, show_progress=False)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> RunOutcome:
    return _run(tmp_path_factory.mktemp("run") / "results")


def test_run_scores_every_conversation(evaluated: RunOutcome) -> None:
    assert evaluated.exit_code == 0, evaluated.error
    con = duckdb.connect(str(evaluated.db_path), read_only=True)
    try:
        finals = con.execute(
            "SELECT chat_id, value, label FROM scores WHERE metric = 'final_score' AND run_id = ?",
            [evaluated.run_id],
        ).fetchall()
        chats = con.execute(
            "SELECT chat_id FROM conversations WHERE run_id = ?", [evaluated.run_id]
        ).fetchall()
        tool_calls = con.execute(
            "SELECT count(*), count(*) FILTER (WHERE traced) FROM tool_calls WHERE run_id = ?",
            [evaluated.run_id],
        ).fetchall()[0]
        run_rows = con.execute(
            "SELECT kind, exit_code FROM runs WHERE run_id = ?", [evaluated.run_id]
        ).fetchall()
    finally:
        con.close()
    assert {c for c, _, _ in finals} == {c for (c,) in chats} and len(chats) == 6
    # the example's money-back scenario fails by design; the others pass
    assert sorted(label for _, _, label in finals).count("Done") == 5
    assert tool_calls[0] == 8 and tool_calls[1] == 8  # every explicit call was also traced
    assert run_rows == [("run", 0)]


def test_run_writes_results_and_report(evaluated: RunOutcome) -> None:
    results = json.loads(Path(evaluated.extra["results_path"]).read_text())
    assert results["summary"]["num_conversations"] == 6
    report = Path(evaluated.extra["report_path"]).read_text()
    assert "lookup_order" in report and "Plotly" in report


def test_a_failed_gate_exits_1(tmp_path: Path) -> None:
    outcome = _run(tmp_path / "results", **{"evaluation.thresholds.final_score": "1.0"})
    assert outcome.exit_code == 1


def test_capture_only_skips_evaluation(tmp_path: Path) -> None:
    loaded = load_run_config(EXAMPLE, {"output_dir": str(tmp_path / "results")})
    outcome = run(loaded, show_progress=False, evaluate=False)
    assert outcome.exit_code == 0
    con = duckdb.connect(str(outcome.db_path), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM scores").fetchall() == [(0,)]
    finally:
        con.close()
