"""`tracesim evaluate` through click: summary, exit codes 0 / 1 / 2, results.json."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tests.evaluator.test_pipeline import _judge_answers, build_db
from tests.fakes.openai_server import fake_openai
from tracesim.cli import cli


def _invoke(*args: str):
    return CliRunner().invoke(cli, ["evaluate", *args, "--no-progress"])


def test_without_config_runs_tool_checks_and_reports_judges_not_run(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    result = _invoke("--db", str(db), "--output-dir", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    assert "chat-ok" in result.output and "Done" in result.output
    assert "judges not run" in result.output
    report = json.loads((tmp_path / "out" / "results.json").read_text())
    assert report["summary"]["assertions_total"] == 3 and report["llm_usage"]["enabled"] is False


def test_failing_gate_exits_1(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    config = tmp_path / "config.yaml"
    config.write_text(
        "agent_config: {agent_type: custom}\nevaluation:\n  thresholds:\n    trajectory: 1.0\n"
    )
    result = _invoke("--db", str(db), "--config", str(config))
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.output and "trajectory" in result.output
    # default: beside the DuckDB file, in t_results/ (its name is not tracesim.duckdb)
    assert (tmp_path / "t_results" / "results.json").is_file()
    assert (tmp_path / "t_results" / "report.html").is_file()


def test_judges_through_config_llm(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    config = tmp_path / "config.yaml"
    with fake_openai(_judge_answers) as fake:
        config.write_text(
            f"llm:\n  model: judge\n  base_url: {fake.base_url}\n"
            "evaluation:\n  thresholds:\n    final_score: 0.5\n"
        )
        result = _invoke("--db", str(db), "--config", str(config), "--run-id", "run-1")
        assert len(fake.requests) == 20
    # mean final score (1.0 + 0.0) / 2 >= 0.5: chat-bad's failed conversation-level check
    # caps its formula's 0.75 at 0.0 (issue 23 item 2)
    assert result.exit_code == 0, result.output
    assert "20 request(s)" in result.output
    # every graded metric's mean in one line, judges included (arksim prints them too)
    (means,) = [line for line in result.output.splitlines() if line.startswith("metric means: ")]
    assert "goal_completion " in means and "helpfulness " in means and "final_score" not in means
    assert "agent_behavior_failure " in means


def test_bad_config_key_exits_2_naming_file_and_key(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    config = tmp_path / "config.yaml"
    config.write_text("evaluation:\n  treshold:\n    final_score: 0.7\n")
    result = _invoke("--db", str(db), "--config", str(config))
    assert result.exit_code == 2
    assert str(config) in result.output and "evaluation.treshold" in result.output
    assert "allowed keys" in result.output and "thresholds" in result.output


def test_unknown_gate_metric_and_bad_llm_key_exit_2(tmp_path: Path) -> None:
    db = build_db(tmp_path / "t.duckdb")
    config = tmp_path / "config.yaml"
    config.write_text("evaluation:\n  thresholds:\n    finalscore: 0.7\n")
    result = _invoke("--db", str(db), "--config", str(config))
    assert result.exit_code == 2 and "evaluation.thresholds.finalscore" in result.output
    config.write_text("llm:\n  modle: x\n")
    result = _invoke("--db", str(db), "--config", str(config))
    assert result.exit_code == 2 and "llm.modle" in result.output


def test_missing_db_exits_2(tmp_path: Path) -> None:
    result = _invoke("--db", str(tmp_path / "nope.duckdb"))
    assert result.exit_code == 2 and "does not exist" in result.output
    assert not (tmp_path / "nope.duckdb").exists()  # never created by accident


def test_an_unknown_run_id_exits_2_naming_the_runs(tmp_path: Path) -> None:
    """A mistyped --run-id evaluated nothing, exit 0, over the last results.json."""
    db = build_db(tmp_path / "t.duckdb")
    result = _invoke("--db", str(db), "--output-dir", str(tmp_path / "out"), "--run-id", "nope")
    assert result.exit_code == 2, result.output
    assert result.output.strip() == (
        f"tracesim evaluate: --run-id nope: no such run in {db}; its runs, newest first: "
        "run-1 (or --all-runs for every conversation)"
    )
    assert not (tmp_path / "out" / "results.json").exists()


def test_the_start_of_a_run_id_picks_that_run(tmp_path: Path) -> None:
    """`tracesim run` heads its output with the run id's first characters: they will do."""
    db = build_db(tmp_path / "t.duckdb")
    result = _invoke("--db", str(db), "--output-dir", str(tmp_path / "out"), "--run-id", "run-")
    assert result.exit_code == 0, result.output
    assert "evaluating run run-1" in result.output
    report = json.loads((tmp_path / "out" / "results.json").read_text())
    assert report["run_id"] == "run-1"
