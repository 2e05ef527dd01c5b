"""Verdicts a team can trust (issue 23 items 1-4): exit codes and the lines a user reads.

Each test drives the real CLI (`tracesim run` / `tracesim evaluate`) on a real agent
module, an embedded collector on free loopback ports and a DuckDB file.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import duckdb
import yaml
from click.testing import CliRunner
from tracesim.schemas.ddl import create_all

from tracesim.cli import cli

AGENT = """
import os, pathlib
from tracesim import BaseAgent

class Agent(BaseAgent):
    async def execute(self, user_query, **kwargs):
        marker = os.environ.get("VERDICT_MARKER")
        if marker:
            pathlib.Path(marker).write_text("ran")
        if user_query.startswith("boom"):
            raise ValueError("boom on " + user_query)
        return "ok: " + user_query
"""


def _project(tmp_path: Path, scenarios: list[dict[str, Any]], **config: Any) -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "scenarios.json").write_text(json.dumps(scenarios))
    body = {
        "agent_config": {"agent_type": "custom", "module_path": "agent.py", "class_name": "Agent"},
        "scenario_file_path": "scenarios.json",
        "output_dir": "results",
        "num_workers": 2,
        "evaluation": {"metrics": []},
        **config,
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(body))
    return path


def _run(*args: str) -> Any:
    return CliRunner().invoke(cli, ["run", *args, "--no-progress"])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_user_llm_is_nothing_graded_exit_3(tmp_path: Path) -> None:
    """The simulated user's LLM is down: no turn ran; never "gates passed (exit code 0)"."""
    dead = _free_port()  # nothing listens there
    config = _project(
        tmp_path,
        [{"scenario_id": "llm-user", "goal": "ask about order 1"}],
        user={"type": "llm"},
        llm={
            "base_url": f"http://127.0.0.1:{dead}/v1",
            "model": "m",
            "api_key_env": "NO_KEY_NEEDED",
            "max_retries": 0,
        },
        evaluation={"metrics": [], "thresholds": {"final_score": 0.7}},
    )
    result = _run(str(config))
    assert result.exit_code == 3, result.output
    out = result.output
    assert "Failing conversations (1, worst first):" in out
    assert "  llm-user #0  [Error]  simulated user: " in out
    assert (
        "nothing graded: every conversation (1) ended by an error, so nothing was tested "
        "(exit code 3)" in out
    )
    assert "the run completed no turn (0 turn(s) sent to the agent, none answered)" in out
    assert "gates passed" not in out


def test_agent_error_on_every_turn_exits_3_and_says_whose(tmp_path: Path) -> None:
    config = _project(
        tmp_path,
        [{"scenario_id": "crash", "goal": "g", "turns": ["boom 1"]}],
        evaluation={
            "metrics": [],
            "thresholds": {"final_score": 0.7},
        },
    )
    junit = tmp_path / "junit.xml"
    result = _run(str(config), "--junit-xml", str(junit))
    assert result.exit_code == 3, result.output
    assert "  crash #0  [Error]  agent: turn 0 error: ValueError: boom on boom 1" in result.output
    text = junit.read_text()
    # JUnit says the same as the terminal: the conversation is an <error>, and the verdict
    assert 'message="agent: turn 0 error: ValueError: boom on boom 1"' in text
    assert 'name="verdict"' in text and "nothing graded: every conversation (1)" in text


def test_failing_conversations_are_listed_worst_first_and_capped(tmp_path: Path) -> None:
    """The terminal says why: each failing conversation with its first reason, 10 at most."""
    scenarios = [
        {
            "scenario_id": f"needs-tool-{i:02d}",
            "goal": "g",
            "turns": [f"hello {i}"],
            "assertions": [{"type": "tool_calls", "turn": 0, "expected": [{"name": "refund"}]}],
        }
        for i in range(11)
    ]
    scenarios.append({"scenario_id": "crash", "goal": "g", "turns": ["boom 2"]})
    config = _project(tmp_path, scenarios)
    result = _run(str(config))
    assert result.exit_code == 0, result.output  # no gates: said, not enforced
    lines = result.output.splitlines()
    start = lines.index("Failing conversations (12, worst first):")
    listed = lines[start + 1 : start + 12]
    assert listed[0] == "  crash #0  [Error]  agent: turn 0 error: ValueError: boom on boom 2"
    assert listed[1] == (
        "  needs-tool-00 #0  [Failed 0.00]  trajectory (turn 0): expected, not found: refund(...)"
    )
    assert listed[10] == "  ... and 2 more (see the report)"
    assert any(
        line.startswith(
            "no gates defined: 11 conversations did not pass and 1 conversation ended by an error"
        )
        for line in lines
    )


def test_a_threshold_typo_stops_before_the_first_conversation(
    tmp_path: Path, monkeypatch: Any
) -> None:
    marker = tmp_path / "agent-ran"
    monkeypatch.setenv("VERDICT_MARKER", str(marker))
    config = _project(
        tmp_path,
        [{"scenario_id": "s", "goal": "g", "turns": ["hi"]}],
        evaluation={"metrics": [], "thresholds": {"final_scroe": 0.7}},
    )
    result = _run(str(config))
    assert result.exit_code == 2, result.output
    assert "evaluation.thresholds.final_scroe: unknown metric; did you mean 'final_score'?" in (
        result.output
    )
    assert not marker.exists() and not (tmp_path / "results" / "tracesim.duckdb").exists()


def test_a_busy_collector_port_is_one_line_exit_2(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        config = _project(
            tmp_path,
            [{"scenario_id": "s", "goal": "g", "turns": ["hi"]}],
            collector={"mode": "embedded", "grpc_port": port},
        )
        result = _run(str(config))
    assert result.exit_code == 2, result.output
    assert result.output.strip() == (
        f"tracesim run: collector.grpc_port: 127.0.0.1:{port} is already in use (by a running "
        "`tracesim collect`, another run or another collector?): stop that process, or set "
        "collector.grpc_port to a free port (0 picks one: `--collector.grpc_port 0`)"
    )


def test_evaluate_a_file_without_spans_with_gates_exits_3(tmp_path: Path) -> None:
    """The agent exported to the wrong port: 0 spans. With gates that is never a pass."""
    db = tmp_path / "empty.duckdb"
    with duckdb.connect(str(db)) as con:
        create_all(con)
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"evaluation": {"thresholds": {"final_score": 0.7}}}))
    junit = tmp_path / "junit.xml"
    runner = CliRunner()
    args = ["evaluate", "--db", str(db), "--no-progress", "--junit-xml", str(junit)]
    result = runner.invoke(cli, [*args, "--config", str(config)])
    assert result.exit_code == 3, result.output
    assert (
        "nothing graded: no conversation to grade, so the gates cannot pass (exit code 3)"
        in result.output
    )
    assert 'errors="1"' in junit.read_text()
    # no gates: a collect-only file may still evaluate to 0, saying so
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "nothing to grade: no conversation in the store" in result.output
    assert "gates passed" not in result.output


def test_a_capture_only_run_lists_what_did_not_finish_and_exits_3(tmp_path: Path) -> None:
    config = _project(
        tmp_path,
        [
            {"scenario_id": "crash", "goal": "g", "turns": ["boom 3"]},
            {"scenario_id": "fine", "goal": "g", "turns": ["hello"]},
        ],
    )
    result = CliRunner().invoke(cli, ["simulate", str(config), "--no-progress"])
    assert result.exit_code == 0, result.output  # one turn answered: something ran
    lines = result.output.splitlines()
    start = lines.index("Conversations that did not finish (1):")
    assert lines[start + 1] == (
        "  crash #0  [error]  agent: turn 0 error: ValueError: boom on boom 3"
    )
    only_crash = _project(tmp_path, [{"scenario_id": "crash", "goal": "g", "turns": ["boom 4"]}])
    result = CliRunner().invoke(cli, ["simulate", str(only_crash), "--no-progress"])
    assert result.exit_code == 3, result.output
    assert "the run completed no turn (1 turn(s) sent to the agent, none answered)" in (
        result.output
    )


def test_the_step_summary_says_what_the_terminal_says_when_nothing_was_graded(
    tmp_path: Path, monkeypatch: Any
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    config = _project(
        tmp_path,
        [{"scenario_id": "crash", "goal": "g", "turns": ["boom 5"]}],
        evaluation={"metrics": [], "thresholds": {"final_score": 0.7}},
    )
    result = _run(str(config))
    assert result.exit_code == 3, result.output
    text = summary.read_text()
    headline = "nothing graded: every conversation (1) ended by an error, so nothing was tested"
    assert text.startswith(f"## ❌ tracesim: {headline} (exit code 3)")
    assert f"{headline} (exit code 3)" in result.output
    assert "gates passed" not in text


def test_unreachable_judges_are_nothing_graded_and_named(tmp_path: Path) -> None:
    from tests.evaluator.test_pipeline import build_db

    db = build_db(tmp_path / "t.duckdb")
    config = tmp_path / "config.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "llm": {
                    "base_url": f"http://127.0.0.1:{_free_port()}/v1",
                    "model": "judge",
                    "max_retries": 0,
                },
                "evaluation": {"metrics": ["helpfulness"], "thresholds": {"helpfulness": 0.5}},
            }
        )
    )
    result = CliRunner().invoke(
        cli, ["evaluate", "--db", str(db), "--config", str(config), "--no-progress"]
    )
    assert result.exit_code == 3, result.output
    assert (
        "nothing graded: every gate was skipped (its metric was never graded), so the gates "
        "cannot pass (judge: 3 requests failed) (exit code 3)" in result.output
    )


def test_unreachable_judge_never_passes_on_the_other_checks(tmp_path: Path) -> None:
    """A gate that passes on what was graded without the judge (final_score from the
    scenario's assertions) used to exit 0 while every judge request failed: an unreachable
    judge LLM must make the evaluation incomplete (exit 3), naming why."""
    port = _free_port()
    scenario = [
        {
            "scenario_id": "s",
            "goal": "g",
            "turns": ["hi"],
            "assertions": [{"type": "tool_calls", "turn": 0, "expected": [], "match_mode": "strict"}],
        }
    ]
    config = _project(
        tmp_path,
        scenario,
        llm={"base_url": f"http://127.0.0.1:{port}/v1", "model": "judge", "max_retries": 0},
        evaluation={"metrics": ["helpfulness"], "thresholds": {"final_score": 0.5}},
    )
    result = _run(str(config))
    assert result.exit_code == 3, result.output
    assert "incomplete: judge: 1 request failed" in result.output
    assert "judge: 1 request(s) failed; the first: judge request could not reach " in (
        " ".join(result.output.split())
    )
    data = json.loads((tmp_path / "results" / "results.json").read_text())
    assert data["exit_code"] == 3
    assert f"127.0.0.1:{port}" in data["llm_usage"]["first_error"]


def test_every_name_gets_a_did_you_mean_before_the_run(tmp_path: Path) -> None:
    """A judge name and a failure label are checked as gate names are: before any turn."""
    scenario = [{"scenario_id": "s", "goal": "g", "turns": ["hi"]}]
    config = _project(tmp_path, scenario, evaluation={"metrics": ["helpfulnes"]})
    result = _run(str(config))
    assert result.exit_code == 2, result.output
    assert "evaluation.metrics.0: Input should be" in result.output
    assert "(got 'helpfulnes'). Did you mean 'helpfulness'?" in result.output
    config = _project(
        tmp_path,
        scenario,
        evaluation={"metrics": [], "failure_labels": {"agent_behavior_failure": ["false info"]}},
    )
    result = _run(str(config))
    assert result.exit_code == 2, result.output
    assert (
        f"{config}: evaluation.failure_labels.agent_behavior_failure: 'false info' is not a "
        "label of agent_behavior_failure; did you mean 'false information'?" in result.output
    )
    assert not (tmp_path / "results" / "tracesim.duckdb").exists()


def test_evaluate_collected_conversations_nothing_grades_says_so(tmp_path: Path) -> None:
    """Collected traffic with no scenario, policy or judge: nothing was graded, so it never
    passes: exit 3 with or without a gate, the line naming what would grade it."""
    span = {
        "traceId": "5b8efff798038103d269b633813fc60c",
        "spanId": "eee19b7ec3c1b174",
        "name": "execute_tool get_weather",
        "kind": 1,
        "startTimeUnixNano": "1700000000000000000",
        "endTimeUnixNano": "1700000001000000000",
        "attributes": [
            {"key": "gen_ai.tool.name", "value": {"stringValue": "get_weather"}},
            {"key": "gen_ai.conversation.id", "value": {"stringValue": "sess-1"}},
        ],
    }
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    db = tmp_path / "prod.duckdb"
    runner = CliRunner()
    result = runner.invoke(cli, ["import", str(trace), "--db", str(db)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["evaluate", "--db", str(db), "--no-progress"])
    assert result.exit_code == 3, result.output
    assert "nothing graded: none of 1 conversation could be graded (no judge ran, and no" in (
        " ".join(result.output.split())
    )
    policy = tmp_path / "policy.yaml"  # a policy grades it: no gate, exit 0
    policy.write_text(yaml.safe_dump({"evaluation": {"metrics": [],
                                                     "policies": [{"never": "delete_all"}]}}))  # fmt: skip
    result = runner.invoke(cli, ["evaluate", "--db", str(db), "--no-progress", "--config",
                                 str(policy)])  # fmt: skip
    assert result.exit_code == 0, result.output
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump({"evaluation": {"thresholds": {"final_score": 0.7}}}))
    args = ["evaluate", "--db", str(db), "--no-progress", "--config", str(config)]
    result = runner.invoke(cli, args)
    assert result.exit_code == 3, result.output
    assert (
        "nothing graded: none of 1 conversation could be graded, so the gates cannot pass "
        "(exit code 3)" in result.output
    )


def test_a_baseline_that_cannot_be_read_exits_2_before_the_agent_runs(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A typo'd baseline ref or file used to cost the whole run, then exit 2."""
    marker = tmp_path / "agent-ran"
    scenarios = [{"scenario_id": "s", "goal": "g", "turns": ["hi"]}]
    graded = {"metrics": [], "policies": [{"never": "delete_everything"}]}
    config = _project(tmp_path, scenarios, evaluation=graded)
    assert _run(str(config)).exit_code == 0  # the file now holds one evaluation
    monkeypatch.setenv("VERDICT_MARKER", str(marker))
    db = (tmp_path / "results" / "tracesim.duckdb").resolve()
    result = _run(str(config), "--evaluation.baseline.ref", "zzz")
    assert result.exit_code == 2, result.output
    assert f"evaluation.baseline: {db}: no evaluation or run 'zzz' stored." in result.output
    result = _run(str(config), "--evaluation.baseline.db", "main.duckdb")
    assert result.exit_code == 2, result.output
    assert f"evaluation.baseline.db: {tmp_path / 'main.duckdb'} does not exist." in result.output
    assert not marker.exists()
    result = _run(str(config), "--evaluation.baseline.ref", "latest")
    assert result.exit_code == 0, result.output
    assert marker.exists() and "against baseline" in result.output
