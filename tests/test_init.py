"""`tracesim init` writes a project that runs as written, offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tracesim.cli import cli
from tracesim.config_loader import load_run_config
from tracesim.run import run


def test_init_writes_a_custom_project_that_runs(tmp_path: Path) -> None:
    target = tmp_path / "my-eval"
    result = CliRunner().invoke(cli, ["init", str(target)])
    assert result.exit_code == 0, result.output
    assert {p.name for p in target.iterdir()} == {"config.yaml", "scenarios.json", "agent.py"}
    outcome = run(load_run_config(target / "config.yaml"), show_progress=False)
    assert outcome.exit_code == 0, outcome.error
    assert outcome.result.num_turns == 3
    assert outcome.tool_spans == 0  # the skeleton reports its calls explicitly, no tool spans
    report = outcome.extra["report_path"].read_text()
    assert "lookup_order" in report


def test_the_starter_scenarios_compare_the_arguments_they_give(tmp_path: Path) -> None:
    """The starter assertions give `args`; under arksim's default `arg_match_mode: ignore`
    they were never compared, so an agent looking up the wrong order passed."""
    target = tmp_path / "my-eval"
    assert CliRunner().invoke(cli, ["init", str(target)]).exit_code == 0
    agent = target / "agent.py"
    source = agent.read_text()
    assert 'arguments={"order_id": order_id}' in source
    agent.write_text(
        source.replace('arguments={"order_id": order_id}', 'arguments={"order_id": "A9"}')
    )
    outcome = run(load_run_config(target / "config.yaml"), show_progress=False)
    assert outcome.exit_code == 1, outcome.error  # the final_score gate fails
    import duckdb

    with duckdb.connect(str(outcome.db_path), read_only=True) as con:
        failed = con.execute(
            "SELECT count(*) FROM scores WHERE metric = 'trajectory' AND passed = false"
        ).fetchone()[0]
    assert failed == 2  # both lookups of the wrong order; turn 0's `expected: []` passes


@pytest.mark.parametrize("agent_type", ["chat_completions", "a2a"])
def test_init_remote_configs_validate(tmp_path: Path, agent_type: str) -> None:
    result = CliRunner().invoke(cli, ["init", str(tmp_path), "--agent-type", agent_type])
    assert result.exit_code == 0, result.output
    loaded = load_run_config(tmp_path / "config.yaml")
    assert loaded.config.agent_config.agent_type == agent_type
    assert not (tmp_path / "agent.py").exists()


def test_init_refuses_to_overwrite(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("mine")
    result = CliRunner().invoke(cli, ["init", str(tmp_path)])
    assert result.exit_code != 0 and "--force" in result.output
    assert (tmp_path / "config.yaml").read_text() == "mine"


@pytest.mark.parametrize("agent_type", ["chat_completions", "a2a"])
def test_init_never_takes_the_ports_a_running_collect_holds(
    tmp_path: Path, agent_type: str
) -> None:
    """Issue 23 item 4: `tracesim collect` listens on 4317/4318 by default; a config from
    `init` must not collide with it (a port free now, outside those two)."""
    import socket

    from tracesim.commands.init import COLLECT_PORTS, pick_collector_port

    result = CliRunner().invoke(cli, ["init", str(tmp_path), "--agent-type", agent_type])
    assert result.exit_code == 0, result.output
    port = load_run_config(tmp_path / "config.yaml").config.collector.grpc_port
    assert port not in COLLECT_PORTS and port >= 4327
    with socket.socket() as holder:  # a busy port is skipped
        holder.bind(("127.0.0.1", port))
        assert pick_collector_port(port) != port


def test_init_refusing_to_overwrite_is_bad_input_exit_2(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("mine")
    result = CliRunner().invoke(cli, ["init", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.startswith(f"tracesim init: {tmp_path} already has config.yaml")


def test_a_remote_agent_project_says_where_the_agent_must_answer(tmp_path: Path) -> None:
    """`init --agent-type chat_completions|a2a`: the next step names the endpoint the config
    expects, since the run fails on every turn until an agent answers there."""
    from click.testing import CliRunner

    from tracesim.cli import cli

    for kind, endpoint in (("chat_completions", "http://127.0.0.1:8000/v1/chat/completions"),
                           ("a2a", "http://127.0.0.1:9999")):  # fmt: skip
        result = CliRunner().invoke(cli, ["init", str(tmp_path / kind), "--agent-type", kind])
        assert result.exit_code == 0, result.output
        assert f"next: start your agent at {endpoint} (or set" in result.output


def test_args_no_mode_compares_are_a_warning(tmp_path: Path) -> None:
    """`expected` args under arksim's default `arg_match_mode: ignore` are said, once."""
    target = tmp_path / "my-eval"
    assert CliRunner().invoke(cli, ["init", str(target)]).exit_code == 0
    scenarios = target / "scenarios.json"
    scenarios.write_text(scenarios.read_text().replace('"arg_match_mode": "exact",', ""))
    result = CliRunner().invoke(cli, ["run", str(target / "config.yaml")])
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if "arg_match_mode" in line]
    assert len(notes) == 1, result.output
    assert "2 tool_calls assertion(s) give expected `args` but no arg_match_mode" in notes[0]
    assert "(first: scenario 'order-status', assertion #0)" in notes[0]
    quiet = CliRunner().invoke(cli, ["init", str(tmp_path / "quiet")])
    assert quiet.exit_code == 0
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "quiet" / "config.yaml")])
    assert "arg_match_mode" not in result.output


def test_init_without_a_directory_writes_here_as_arksim_init(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["init"])
    assert result.exit_code == 0, result.output
    assert {p.name for p in tmp_path.iterdir()} == {"config.yaml", "scenarios.json", "agent.py"}
    assert "next: tracesim run config.yaml" in result.output
