"""An agent that raises or hangs is recorded on its turn; the run goes on."""

from __future__ import annotations

from tests.simulator.conftest import Project, custom_agent, query

AGENT = """
import asyncio
from tracesim import BaseAgent


class Moody(BaseAgent):
    async def execute(self, user_query, **kwargs):
        if user_query == "crash":
            raise ValueError("inventory service is down")
        if user_query == "hang":
            await asyncio.Event().wait()
        return "fine"
"""


def test_errors_and_timeouts_are_recorded_and_the_run_continues(project: Project) -> None:
    project.agent(AGENT, "moody_agent.py")
    project.scenarios(
        [
            {"scenario_id": "crashes", "turns": ["hello", "crash", "never sent"]},
            {"scenario_id": "hangs", "turns": ["hang", "never sent"]},
            {"scenario_id": "fine", "turns": ["hello", "again"]},
        ]
    )
    project.config(
        agent_config=custom_agent("moody_agent.py", timeout=0.3),
        num_conversations_per_scenario=2,
        num_workers=3,
    )
    outcome = project.run()
    assert outcome.exit_code == 0, outcome.error
    counts = outcome.result.counts()
    assert counts["turn_errors"] == 2 and counts["turn_timeouts"] == 2
    turns = query(
        outcome.db_path,
        "SELECT scenario_id, turn_id, status, error FROM turns WHERE run_id = ? "
        "ORDER BY scenario_id, turn_id",
        [outcome.run_id],
    )
    crashes = [t for t in turns if t[0] == "crashes"]
    assert {(t[1], t[2]) for t in crashes} == {(0, "ok"), (1, "error")}
    assert all("ValueError: inventory service is down" in t[3] for t in crashes if t[2] == "error")
    assert {(t[1], t[2]) for t in turns if t[0] == "hangs"} == {(0, "timeout")}
    assert {(t[1], t[2]) for t in turns if t[0] == "fine"} == {(0, "ok"), (1, "ok")}
    conversations = dict(
        query(
            outcome.db_path,
            "SELECT scenario_id || '#' || conversation_index, status FROM conversations "
            "WHERE run_id = ?",
            [outcome.run_id],
        )
    )
    assert conversations == {
        "crashes#0": "error",
        "crashes#1": "error",
        "hangs#0": "error",
        "hangs#1": "error",
        "fine#0": "completed",
        "fine#1": "completed",
    }
