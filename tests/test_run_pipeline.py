"""`tracesim run` evaluates after capture: scores, results.json, report.html, gate exit codes."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import duckdb
import pytest

from tracesim.config_loader import load_run_config
from tracesim.run import RunOutcome, run

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "customer_service" / "config.yaml"


def _run(out: Path, junit_path: Path | None = None, **overrides: str) -> RunOutcome:
    loaded = load_run_config(EXAMPLE, {"output_dir": str(out), **overrides})
    return run(loaded, show_progress=False, junit_path=junit_path)


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> RunOutcome:
    """The example run, with a JUnit file and a GitHub step summary written."""
    root = tmp_path_factory.mktemp("run")
    summary = root / "step_summary.md"
    summary.write_text("earlier step\n")
    previous = os.environ.get("GITHUB_STEP_SUMMARY")
    os.environ["GITHUB_STEP_SUMMARY"] = str(summary)
    try:
        outcome = _run(root / "results", junit_path=root / "junit.xml")
    finally:
        if previous is None:
            os.environ.pop("GITHUB_STEP_SUMMARY")
        else:
            os.environ["GITHUB_STEP_SUMMARY"] = previous
    outcome.extra["test_root"] = root
    return outcome


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


def test_run_summary_wall_seconds_covers_the_whole_run(evaluated: RunOutcome) -> None:
    body = json.loads(Path(evaluated.summary_path).read_text())
    wall = body["finished_at"] - body["started_at"]
    assert body["wall_seconds"] == pytest.approx(wall, abs=0.01)
    assert body["wall_seconds"] >= body["simulate_seconds"] > 0


def test_run_writes_junit_with_the_failing_conversation_explained(evaluated: RunOutcome) -> None:
    root = ET.parse(evaluated.extra["test_root"] / "junit.xml").getroot()
    assert root.tag == "testsuites"
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 6 and root.get("tests") == "6" and root.get("failures") == "1"
    names = {case.get("name") for case in cases}
    assert "money-back-phrasing #0" in names and "order-status #0" in names
    (failure,) = root.findall("./testsuite/testcase/failure")
    assert "trajectory (turn 0)" in failure.get("message")
    assert "request_refund" in failure.text  # the expected call that was missing
    assert "lookup_order" in failure.text  # what the agent called instead


def test_run_appends_a_markdown_step_summary(evaluated: RunOutcome) -> None:
    text = (evaluated.extra["test_root"] / "step_summary.md").read_text()
    assert text.startswith("earlier step\n")  # appended, never overwritten
    assert "no gates defined: 1 conversation did not pass, and nothing sets the exit code" in text
    assert "| money-back-phrasing #0 | Failed |" in text and "request_refund" in text


def test_a_custom_db_path_keeps_results_in_output_dir(tmp_path: Path) -> None:
    """The config says where results go (`output_dir`) and where spans go (`db_path`): a run
    writes results.json and report.html to the first, its DuckDB file to the second."""
    db = tmp_path / "data" / "custom.duckdb"
    outcome = _run(tmp_path / "out", db_path=str(db))
    assert outcome.exit_code == 0, outcome.error
    assert Path(outcome.db_path) == db and db.is_file()
    assert Path(outcome.extra["results_path"]) == tmp_path / "out" / "results.json"
    assert (tmp_path / "out" / "report.html").is_file()
    assert (tmp_path / "out" / "run_summary.json").is_file()
    assert sorted(p.name for p in db.parent.iterdir() if not p.name.startswith(db.name)) == []
