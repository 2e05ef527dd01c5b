"""What the base install leaves to extras says so in one line, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from tracesim.cli import cli

_WITHOUT_A2A = (
    "import sys; sys.modules['a2a'] = None;"  # as if a2a-sdk were not installed
    "from tracesim.cli import main; sys.argv = ['tracesim', 'run', 'config.yaml']; main()"
)


def test_an_a2a_run_without_the_a2a_extra_names_the_extra(tmp_path: Path) -> None:
    project = tmp_path / "a2a-eval"
    assert CliRunner().invoke(cli, ["init", str(project), "--agent-type", "a2a"]).exit_code == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_A2A],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "pip install 'tracesim[a2a]'" in output and "Traceback" not in output


def test_mcp_mock_without_the_mcp_extra_names_the_extra(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['mcp'] = None;"
            "from tracesim.cli import main;"
            "sys.argv = ['tracesim', 'mcp-mock', '--scenarios', 'scenarios.json']; main()",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 2, output
    assert "pip install 'tracesim[mcp]'" in output and "Traceback" not in output
