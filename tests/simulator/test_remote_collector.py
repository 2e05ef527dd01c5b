"""`collector.mode: remote`: the run sends everything to an already running collector."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from tracesim.collector.collector import Collector

from tests.simulator.conftest import Project, custom_agent

AGENT = """
from tracesim import BaseAgent

class Echo(BaseAgent):
    async def execute(self, user_query, **kwargs):
        return "re: " + user_query
"""


@pytest.mark.parametrize("receiver", ["grpc", "http"])
def test_remote_collector_receives_the_run(project: Project, tmp_path: Path, receiver: str) -> None:
    project.agent(AGENT, "echo_agent.py")
    project.scenarios([{"scenario_id": "s", "turns": ["a", "b"]}])
    db = tmp_path / "remote.duckdb"
    with Collector(db, grpc_port=0, http_port=0, auth_token="s3cret") as collector:
        endpoint = (
            collector.grpc_endpoint
            if receiver == "grpc"
            else f"{collector.http_endpoint}/v1/traces"
        )
        project.config(
            agent_config=custom_agent("echo_agent.py"),
            collector={"mode": "remote", "endpoint": endpoint, "auth_token_env": "TS_TOKEN"},
        )
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("TS_TOKEN", "s3cret")
            outcome = project.run()
        assert outcome.exit_code == 0, outcome.error
        collector.flush()
        assert outcome.db_path is None and outcome.spans_stored is None
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT turn_id, agent_message FROM turns WHERE run_id = ? ORDER BY turn_id",
        [outcome.run_id],
    ).fetchall()
    con.close()
    assert rows == [(0, "re: a"), (1, "re: b")]
