"""A second `tracesim run` on the same results folder (issue 19 item 12, issue 23 item 4):
one line naming the file and the fix, exit 2, no traceback; the first run unaffected."""

from __future__ import annotations

import json
import os
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
        pathlib.Path(os.environ["TRACESIM_TEST_MARKER"]).write_text("blocked")
        release = pathlib.Path(os.environ["TRACESIM_TEST_RELEASE"])
        while not release.exists():  # the test holds this run until the second one is done
            await asyncio.sleep(0.02)
        return "ok: " + user_query
"""

CONFIG = """
agent_config: {agent_type: custom, module_path: agent.py, timeout: 120}
scenario_file_path: scenarios.json
num_workers: 1
output_dir: results
evaluation: {metrics: [], policies: [{never: delete_everything}]}
"""


def _cli(tmp_path: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
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
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
    )


def test_a_second_run_on_the_same_folder_is_one_line_exit_2(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "config.yaml").write_text(CONFIG)
    (tmp_path / "scenarios.json").write_text(
        json.dumps([{"scenario_id": "first", "goal": "g", "turns": ["hello"]}])
    )
    marker, release = tmp_path / "blocked", tmp_path / "release"
    env = {"TRACESIM_TEST_MARKER": str(marker), "TRACESIM_TEST_RELEASE": str(release)}
    first = _cli(tmp_path, env)
    try:
        deadline = time.monotonic() + 60
        while not marker.exists():  # a condition, not a fixed sleep
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first run never reached its agent"
            time.sleep(0.02)
        second = _cli(tmp_path, {**env, "TRACESIM_TEST_MARKER": str(tmp_path / "second")})
        out, err = second.communicate(timeout=120)
        release.write_text("go")
        first_out, first_err = first.communicate(timeout=120)
    finally:
        for process in (first,):
            if process.poll() is None:
                process.kill()
                process.wait()
    db = tmp_path / "results" / "tracesim.duckdb"
    assert second.returncode == 2, out + err
    assert "Traceback" not in err and out == ""
    assert err.strip() == (
        f"tracesim run: {db} is in use by another process (another `tracesim run` on the same "
        "output_dir, or a `tracesim collect`): wait for it to finish, or give this run its "
        "own file (`--output_dir results-2`, or `--db_path other.duckdb`)"
    )
    assert not (tmp_path / "second").exists()  # the second run never reached the agent
    assert first.returncode == 0, first_out + first_err
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute("SELECT agent_message, status FROM turns").fetchall()
    assert rows == [("ok: hello", "ok")]
