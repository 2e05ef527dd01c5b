"""arksim's CLI cases (test_cli, test_cli_extended, test_cli_functions) on `tracesim`:
the same command names, overrides and exit codes (2 = bad config)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tracesim.cli import cli
from tracesim.config_loader import parse_override_args


def test_arksim_command_names_are_registered() -> None:
    names = set(cli.list_commands(None))  # type: ignore[arg-type]
    assert {"simulate", "evaluate", "simulate-evaluate", "show-prompts"} <= names


@pytest.mark.parametrize("command", ["simulate", "simulate-evaluate", "run"])
def test_unreadable_config_exits_config_error(command: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, [command, str(tmp_path / "absent.yaml"), "--no-progress"])
    assert result.exit_code == 2 and "not found" in result.output


def test_unknown_override_key_exits_config_error(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        "scenario_file_path: s.json\nagent_config: {agent_type: a2a, api_config: {endpoint: http://x}}\n"
    )
    result = CliRunner().invoke(
        cli, ["simulate", str(config), "--no_such_key", "1", "--no-progress"]
    )
    assert result.exit_code == 2 and "no_such_key" in result.output


def test_overrides_key_value_equals_and_dashes() -> None:
    assert parse_override_args([]) == {}
    assert parse_override_args(["--max-turns", "3", "--model=gpt-4o"]) == {
        "max_turns": "3",
        "model": "gpt-4o",
    }


def test_evaluate_without_a_database_exits_config_error(tmp_path: Path) -> None:
    config = tmp_path / "config_evaluate.yaml"
    config.write_text("simulation_file_path: ./simulation.json\nmetrics_to_run: [coherence]\n")
    result = CliRunner().invoke(cli, ["evaluate", str(config), "--no-progress"])
    assert result.exit_code == 2 and "tracesim.duckdb" in result.output
    result = CliRunner().invoke(cli, ["evaluate", "--no-progress"])
    assert result.exit_code == 2 and "--db" in result.output


def test_show_prompts_one_all_and_unknown() -> None:
    one = CliRunner().invoke(cli, ["show-prompts", "--category", "agent_behavior_failure"])
    assert one.exit_code == 0 and "Category: agent_behavior_failure" in one.output
    assert one.output.count("Category:") == 1 and "false information" in one.output
    every = CliRunner().invoke(cli, ["show-prompts"])
    assert every.exit_code == 0 and "Category: tool_call_behavior_failure" in every.output
    bad = CliRunner().invoke(cli, ["show-prompts", "--category", "nope"])
    assert bad.exit_code == 2 and "available" in bad.output


def test_simulate_then_evaluate_config_as_an_arksim_user_does(tmp_path: Path, monkeypatch) -> None:
    """`simulate config.yaml` captures only; `evaluate config.yaml` scores what it stored."""
    from tests.fakes.openai_server import chat_completion, fake_openai, judge_reply

    def stand_in(body: dict) -> dict:
        if "response_format" in body:
            return judge_reply(body)
        if "role-playing a USER" in body["messages"][0]["content"]:
            return chat_completion("Where is my order?")
        return chat_completion("It ships today.")

    (tmp_path / "scenarios.json").write_text(
        '{"schema_version": "v1", "scenarios": [{"scenario_id": "s1", "user_id": "u",'
        ' "goal": "know where the order is", "agent_context": "shop", "user_profile": "busy",'
        ' "knowledge": [{"content": "order 42"}]}]}'
    )
    with fake_openai(stand_in) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test")
        config = tmp_path / "config.yaml"
        config.write_text(
            "agent_config:\n  agent_type: chat_completions\n  agent_name: shop\n"
            f"  api_config:\n    endpoint: {fake.base_url}/chat/completions\n"
            "    body: {model: shop-agent}\n"
            "scenario_file_path: ./scenarios.json\nmax_turns: 1\n"
            "output_file_path: ./results/simulation/simulation.json\n"
            "metrics_to_run: [helpfulness]\nmodel: gpt-test\nprovider: openai\nnum_workers: auto\n"
            "generate_html_report: false\n"
        )
        runner = CliRunner()
        simulated = runner.invoke(cli, ["simulate", str(config), "--no-progress"])
        assert simulated.exit_code == 0, simulated.output
        out = tmp_path / "results" / "simulation"
        assert (out / "tracesim.duckdb").is_file() and not (out / "results.json").exists()
        evaluated = runner.invoke(cli, ["evaluate", str(config), "--no-progress"])
        assert evaluated.exit_code == 0, evaluated.output
    results = list(tmp_path.rglob("results.json"))
    assert results, evaluated.output
    assert not list(tmp_path.rglob("report.html"))  # generate_html_report: false
