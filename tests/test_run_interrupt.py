"""Ctrl-C during `tracesim run`: exit 130, a clear message, and what was captured is stored."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent

AGENT = """
import asyncio, os, pathlib
from tracesim import BaseAgent

class Agent(BaseAgent):
    async def execute(self, user_query, **kwargs):
        if user_query == "block":
            pathlib.Path(os.environ["TRACESIM_TEST_MARKER"]).write_text("blocked")
            await asyncio.Event().wait()
        return "ok: " + user_query
"""

CONFIG = """
agent_config: {agent_type: custom, module_path: agent.py, timeout: 120}
scenario_file_path: scenarios.json
num_workers: 1
output_dir: results
evaluation: {metrics: []}
"""


def _wait_for(path: Path, process: subprocess.Popen, limit: float = 60.0) -> None:
    """Wait until the agent says it is blocked (a condition, not a fixed sleep)."""
    deadline = time.monotonic() + limit
    while not path.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the agent never reached the blocking turn"
        time.sleep(0.02)


def test_ctrl_c_keeps_what_was_captured(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "config.yaml").write_text(CONFIG)
    scenarios = [
        {"scenario_id": "first", "goal": "g", "turns": ["hello"]},
        {"scenario_id": "second", "goal": "g", "turns": ["block"]},
    ]
    (tmp_path / "scenarios.json").write_text(json.dumps(scenarios))
    marker = tmp_path / "blocked"
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from tracesim.cli import main; main()",
            "run",
            str(tmp_path / "config.yaml"),
            "--no-progress",
        ],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT), "TRACESIM_TEST_MARKER": str(marker)},
    )
    try:
        _wait_for(marker, process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "interrupted" in err and "tracesim evaluate" in err
    with duckdb.connect(str(tmp_path / "results" / "tracesim.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT user_message, agent_message, status FROM turns").fetchall()
    assert ("hello", "ok: hello", "ok") in rows
    # issue 23 item 1: the unfinished conversation is `interrupted`, never `completed`,
    # and an evaluation of the file says so and cannot pass
    with duckdb.connect(str(tmp_path / "results" / "tracesim.duckdb"), read_only=True) as con:
        statuses = dict(con.execute("SELECT scenario_id, status FROM conversations").fetchall())
    assert statuses == {"first": "completed", "second": "interrupted"}
    evaluated = subprocess.run(
        [
            sys.executable,
            "-c",
            "from tracesim.cli import main; main()",
            "evaluate",
            "--db",
            str(tmp_path / "results" / "tracesim.duckdb"),
            "--no-progress",
        ],
        cwd=ROOT,
        text=True,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert evaluated.returncode == 3, evaluated.stdout + evaluated.stderr
    assert "  second #0  [Interrupted]  run stopped: interrupted after 0 turn(s)" in (
        evaluated.stdout
    )
    assert (
        "incomplete: 1 conversation interrupted (the run was stopped before they ended); an "
        "interrupted run cannot pass, run it again (exit code 3)" in evaluated.stdout
    )
