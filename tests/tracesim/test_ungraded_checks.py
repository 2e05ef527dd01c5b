"""A configured check that could not grade is said in the terminal, not hidden in
`assertions N/M` (which counts graded checks only)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tests.simulator.conftest import Project, custom_agent
from tracesim.cli import cli

AGENT = """
from tracesim import AgentResponse, BaseAgent, ToolCall

class Agent(BaseAgent):
    async def execute(self, user_query, **kwargs):
        return AgentResponse(content="done", tool_calls=[
            ToolCall(name="lookup_order", arguments={"order_id": "A1"}, result="shipped")])
"""


def test_a_validity_check_with_no_tool_definitions_is_said_not_graded(tmp_path: Path) -> None:
    project = Project(tmp_path)
    project.agent(AGENT)
    project.scenarios(
        [
            {
                "scenario_id": "status",
                "turns": ["where is A1"],
                "assertions": [{"type": "tool_validity"}],  # no `tools`, no traced definitions
            }
        ]
    )
    config = project.config(agent_config=custom_agent("agent.py", class_name="Agent"))
    result = CliRunner().invoke(cli, ["run", str(config)])
    assert result.exit_code in (0, 3), result.output
    lines = [line for line in result.output.splitlines() if line.startswith("not graded: ")]
    assert lines == [
        "not graded: tool_validity in 1 conversation(s): no tool definitions: give the "
        "scenario `tools`, or trace the tools offered to the model (gen_ai.tool.definitions)"
    ]
