"""A misspelt scenario key is kept as an unused extra (arksim's own extras must survive),
so `tracesim run` names it before the run: `assertion` for `assertions` would otherwise
drop every check of the scenario and let it pass on nothing."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from tracesim.cli import cli

AGENT = """
from tracesim import BaseAgent

class Agent(BaseAgent):
    async def execute(self, user_query, **kwargs):
        return "ok"
"""


def test_misspelt_scenario_keys_are_named_and_arksim_extras_are_not(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    scenarios = [
        {
            "scenario_id": "refund",
            "goal": "g",
            "turns": ["refund A1"],
            "user_id": "u-1",  # arksim's: kept, never a typo
            "assertion": [{"type": "tool_calls", "expected": [{"name": "refund"}]}],
            "knowlege": ["Order A1"],
        }
    ]
    (tmp_path / "scenarios.json").write_text(json.dumps(scenarios))
    config = {
        "agent_config": {"agent_type": "custom", "module_path": "agent.py"},
        "scenario_file_path": "scenarios.json",
        "evaluation": {"metrics": []},
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "config.yaml"), "--no-progress"])
    assert (
        "unknown scenario key(s) kept unused: 'assertion' in 'refund' (did you mean "
        "'assertions'?); 'knowlege' in 'refund' (did you mean 'knowledge'?)" in result.output
    )
    assert "user_id" not in result.output
