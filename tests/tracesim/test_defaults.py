"""Defaults line up: one DB path, evaluate next to the run's results and on the newest run,
one message for a missing judge model, an install without licence warnings."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from tracesim.evaluator.llm.llm_client import judge_unavailable_reason
from tracesim.schemas.config import RunConfig

from tests.evaluator.test_pipeline import build_db
from tracesim.cli import cli
from tracesim.commands.evaluate import load_eval_settings
from tracesim.paths import DEFAULT_DB_PATH

ROOT = Path(__file__).resolve().parents[2]
_AGENT = {"agent_type": "custom", "module_path": "agent.py"}


@pytest.mark.parametrize("name", ["collect", "sql", "report", "evaluate"])
def test_every_command_defaults_to_the_same_db(name: str) -> None:
    command = cli.get_command(None, name)  # type: ignore[arg-type]
    (db,) = [p for p in command.params if p.name == "db_path"]
    assert str(db.default) == DEFAULT_DB_PATH == "results/tracesim.duckdb"
    assert db.envvar == "TRACESIM_DB"
    assert (
        RunConfig.model_validate(
            {"agent_config": _AGENT, "scenario_file_path": "s.json"}
        ).resolved_db_path
        == DEFAULT_DB_PATH
    )


def test_evaluate_without_db_reads_the_default_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "results").mkdir()
    build_db(tmp_path / DEFAULT_DB_PATH)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACESIM_DB", raising=False)
    result = CliRunner().invoke(cli, ["evaluate", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "results" / "results.json").is_file()  # next to the DuckDB file


def _second_run(db: Path) -> None:
    """Copy run-1's conversations as a later run-2 (one chat)."""
    con = duckdb.connect(str(db))
    con.execute(
        "INSERT INTO conversations (chat_id, run_id, scenario_id, num_turns, status, scenario, "
        "start_time) SELECT 'chat-new', 'run-2', scenario_id, num_turns, status, scenario, "
        "TIMESTAMP '2026-02-01' FROM conversations WHERE chat_id = 'chat-ok'"
    )
    con.execute(
        "INSERT INTO turns (chat_id, turn_id, run_id, scenario_id, user_message, agent_message, "
        "explicit_tool_calls, status, start_time) SELECT 'chat-new', turn_id, 'run-2', "
        "scenario_id, user_message, agent_message, explicit_tool_calls, status, start_time "
        "FROM turns WHERE chat_id = 'chat-ok'"
    )
    con.close()


def test_evaluate_scores_the_newest_run_next_to_the_db_and_says_so(tmp_path: Path) -> None:
    db = build_db(tmp_path / "tracesim.duckdb")
    _second_run(db)
    result = CliRunner().invoke(cli, ["evaluate", "--db", str(db), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "evaluating the newest run run-2; the file holds 2 runs" in result.output
    assert "--all-runs" in result.output
    report = json.loads((tmp_path / "results.json").read_text())  # next to the DB
    assert [c["chat_id"] for c in report["conversations"]] == ["chat-new"]
    assert (tmp_path / "report.html").is_file()

    every = CliRunner().invoke(cli, ["evaluate", "--db", str(db), "--all-runs", "--no-progress"])
    assert every.exit_code == 0, every.output
    report = json.loads((tmp_path / "results.json").read_text())
    assert {c["chat_id"] for c in report["conversations"]} == {"chat-new", "chat-ok", "chat-bad"}

    both = CliRunner().invoke(cli, ["evaluate", "--db", str(db), "--all-runs", "--run-id", "x"])
    assert both.exit_code == 2 and "exclude each other" in both.output


def test_run_and_evaluate_give_the_same_no_model_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = tmp_path / "config.yaml"
    config.write_text(
        "agent_config: {agent_type: custom}\nscenario_file_path: s.json\n"
        "evaluation: {thresholds: {final_score: 0.5}}\n"
    )
    _, llm = load_eval_settings(config)
    run_config = RunConfig.model_validate({"agent_config": _AGENT, "scenario_file_path": "s.json"})
    from_run = judge_unavailable_reason(run_config.evaluation.llm or run_config.llm)
    assert judge_unavailable_reason(llm) == from_run
    assert "OPENAI_API_KEY" in from_run
    db = build_db(tmp_path / "t.duckdb")
    result = CliRunner().invoke(cli, ["evaluate", "--db", str(db), "--no-progress"])
    assert f"judges not run: {from_run}" in " ".join(result.output.split())


def test_the_licence_is_an_spdx_string_for_setuptools_77() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["license"] == "Apache-2.0"
    (setuptools,) = [r for r in project["build-system"]["requires"] if "setuptools" in r]
    assert setuptools.replace(" ", "") == "setuptools>=77"
