"""Bad configs and scenarios fail before anything runs: exit 2, file, key, hint."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tests.simulator.conftest import Project, custom_agent
from tracesim.commands.run import command

AGENT = """
from tracesim import BaseAgent

class Echo(BaseAgent):
    async def execute(self, user_query, **kwargs):
        return user_query
"""


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(command, list(args))
    return result.exit_code, result.output


def _valid(project: Project) -> Path:
    project.agent(AGENT)
    project.scenarios([{"scenario_id": "s", "turns": ["hi"]}])
    return project.config(agent_config=custom_agent("agent.py"))


def test_a_typo_names_the_key_and_suggests_the_right_one(project: Project) -> None:
    _valid(project)
    path = project.config(agent_config=custom_agent("agent.py"), max_turn=3)
    code, output = _cli(str(path))
    assert code == 2
    assert str(path) in output and "max_turn" in output and "Did you mean 'max_turns'?" in output
    assert not (project.root / "results").exists()  # nothing ran


def test_a_nested_typo_and_a_bad_value(project: Project) -> None:
    _valid(project)
    path = project.config(
        agent_config={"agent_type": "custom", "modul_path": "agent.py"}, user={"type": "robot"}
    )
    code, output = _cli(str(path))
    assert code == 2
    assert "agent_config.modul_path" in output and "Did you mean 'module_path'?" in output
    assert "user.type" in output and "'scripted', 'llm' or 'auto'" in output


def test_overrides_are_validated_too(project: Project) -> None:
    path = _valid(project)
    code, output = _cli(str(path), "--max_turns", "many")
    assert code == 2 and "max_turns" in output and "'many'" in output
    code, output = _cli(str(path), "--set", "num_workerz=2")
    assert code == 2 and "Did you mean 'num_workers'?" in output


def test_overrides_apply(project: Project) -> None:
    path = _valid(project)
    code, output = _cli(str(path), "--no-progress", "--max_turns", "1", "--set", "num_workers=1")
    # no judge and no assertion grade it: exit 3 since "nothing graded never passes" (3f5264c);
    # what this test checks is that the overrides were taken and the run went through
    assert code == 3 and "nothing graded" in output, output
    assert (project.root / "results" / "run_summary.json").is_file()


def test_yaml_syntax_error_has_line_and_column(project: Project) -> None:
    path = project.root / "config.yaml"
    path.write_text("agent_config:\n  agent_type: [custom\nmax_turns: 2\n")
    code, output = _cli(str(path))
    assert code == 2 and f"{path}:" in output and "invalid YAML" in output
    assert any(f"{path}:{line}:" in output for line in range(2, 5))


def test_missing_scenario_file(project: Project) -> None:
    project.agent(AGENT)
    path = project.config(agent_config=custom_agent("agent.py"), scenario_file_path="nope.json")
    code, output = _cli(str(path))
    assert code == 2 and "nope.json" in output and "not found" in output


def test_invalid_scenario_field_names_file_scenario_and_field(project: Project) -> None:
    project.agent(AGENT)
    project.scenarios(
        {"scenarios": [{"id": "ok", "turns": ["hi"]}, {"id": "bad", "turns": "hi", "max_turns": 0}]}
    )
    path = project.config(agent_config=custom_agent("agent.py"))
    code, output = _cli(str(path))
    assert code == 2
    assert "scenarios.json" in output and "scenario #1 ('bad')" in output
    assert "'turns'" in output and "'max_turns'" in output


def test_duplicate_scenario_ids(project: Project) -> None:
    project.agent(AGENT)
    project.scenarios([{"id": "a", "turns": ["x"]}, {"scenario_id": "a", "turns": ["y"]}])
    code, output = _cli(str(project.config(agent_config=custom_agent("agent.py"))))
    assert code == 2 and "duplicate scenario_id 'a'" in output


def test_a_bad_assertion_fails_before_the_run(project: Project) -> None:
    project.agent(AGENT)
    project.scenarios(
        [{"id": "a", "turns": ["x"], "assertions": [{"type": "tool_calls", "match_mode": "fuzzy"}]}]
    )
    code, output = _cli(str(project.config(agent_config=custom_agent("agent.py"))))
    assert code == 2 and "scenario #0 ('a')" in output and "match_mode" in output
    assert not (project.root / "results").exists()


def test_missing_agent_file_and_class(project: Project) -> None:
    project.scenarios([{"id": "a", "turns": ["x"]}])
    code, output = _cli(str(project.config(agent_config=custom_agent("missing.py"))))
    assert code == 2 and "missing.py" in output and "not found" in output
    project.agent(AGENT)
    path = project.config(agent_config=custom_agent("agent.py", class_name="Nope"))
    code, output = _cli(str(path))
    assert code == 2 and "'Nope'" in output and "Echo" in output
    assert str(project.root / "agent.py") in output  # the user's file, not an internal module


def test_llm_user_without_key_or_base_url_fails_first(project: Project, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    project.agent(AGENT)
    project.scenarios([{"id": "a", "goal": "get help"}])
    code, output = _cli(str(project.config(agent_config=custom_agent("agent.py"))))
    assert code == 2 and "OPENAI_API_KEY" in output and "base_url" in output
    assert not (project.root / "results").exists()
